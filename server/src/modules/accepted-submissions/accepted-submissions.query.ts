import { filterText, parseDateRange } from '../../http/list-query.ts';
import type { SubmissionFilters } from './accepted-submissions.repository.ts';

/** The Tx Puller's and TX Reports' query fields that filter. */
export interface SubmissionFilterQuery {
  client_code?: string | undefined;
  txid?: string | undefined;
  from_date?: string | undefined;
  to_date?: string | undefined;
}

/** The filters of a query; bad dates and an inverted range are 400s (parseDateRange). */
export function submissionFilters(query: SubmissionFilterQuery): SubmissionFilters {
  const filters: SubmissionFilters = parseDateRange(query);
  const clientCode = filterText(query.client_code);
  if (clientCode !== undefined) filters.clientCode = clientCode;
  const txid = filterText(query.txid);
  if (txid !== undefined) filters.txid = txid.toLowerCase();
  return filters;
}
