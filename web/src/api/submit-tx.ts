import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from './http.ts';
import type { paths } from './schema';

type Single = paths['/rest-api/submit-tx']['post'];
type Package = paths['/rest-api/submit-package']['post'];
export type SubmitTxBody = Single['requestBody']['content']['application/json'];
export type SubmitTxResponse = Single['responses'][200]['content']['application/json'];
export type SubmitPackageBody = Package['requestBody']['content']['application/json'];
export type SubmitPackageResponse = Package['responses'][200]['content']['application/json'];

export const submitTx = (body: SubmitTxBody) => unwrap(api.POST('/rest-api/submit-tx', { body }));
export const submitPackage = (body: SubmitPackageBody) => unwrap(api.POST('/rest-api/submit-package', { body }));

export const useSubmitTx = () => useMutation({ mutationFn: submitTx });
export const useSubmitPackage = () => useMutation({ mutationFn: submitPackage });
