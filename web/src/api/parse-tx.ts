import { api, unwrap } from './http.ts';
import type { paths } from './schema';

type Endpoint = paths['/rest-api/parse-tx']['post'];
export type ParseTxBody = Endpoint['requestBody']['content']['application/json'];
export type ParseTxResponse = Endpoint['responses'][200]['content']['application/json'];
export type ParsedTx = ParseTxResponse['transactions'][number];

export const parseTx = (body: ParseTxBody, signal?: AbortSignal) => unwrap(api.POST('/rest-api/parse-tx', { body, signal }));
