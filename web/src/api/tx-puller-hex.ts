import { staffApi, unwrap } from './http.ts';
import type { SubmissionType } from './lists.ts';

/**
 * GET /rest-api/tx-puller/{id}/hex: an accepted submission's whole hex, or
 * a package member's (`index`, in package order). Pages carry each hex
 * shortened; the copy button fetches the whole of it when pressed.
 */
export async function fetchPulledTxHex(id: number, type: SubmissionType, index: number): Promise<string> {
  const answer = await unwrap(staffApi.GET('/rest-api/tx-puller/{id}/hex', { params: { path: { id }, query: { submission_type: type } } }));
  const hex = answer.txs_hex[index];
  if (hex === undefined) throw new Error(`Submission ${id} has no transaction ${index + 1}`);
  return hex;
}
