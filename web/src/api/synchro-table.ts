import { staffApi, unwrap } from './http.ts';
import type { paths } from './schema';

export type SynchroTable = paths['/rest-api/synchro/table']['get']['responses'][200]['content']['application/json'];

/** GET /rest-api/synchro/table: staff only; the stored sign-in token is the bearer. */
export const fetchSynchroTable = (signal?: AbortSignal) => unwrap(staffApi.GET('/rest-api/synchro/table', { signal }));
