import { staffApi, unwrap } from './http.ts';

/**
 * GET /rest-api/txs/{id}/hex: one failed submission's whole hex. The list
 * carries each hex shortened (a transaction can be megabytes of it); the
 * copy button fetches the whole of it when pressed.
 */
export async function fetchFailedTxHex(id: number): Promise<string> {
  const answer = await unwrap(staffApi.GET('/rest-api/txs/{id}/hex', { params: { path: { id } } }));
  return answer.tx_hex;
}
