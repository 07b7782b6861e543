-- Indexes for the staff Tx Puller and TX Reports lists and their CSV
-- downloads (docs/behaviour.md#downloads: /rest-api/tx-puller/list, /rest-api/tx-reports/list).
--
-- Both lists show only transactions the node accepted: a tx_submissions row
-- is 'pending' while the node is still deciding, and is never listed
-- (007_pending_submissions.sql). They read newest first, ordered by
-- (created_at, id), and downloads walk that order in keyset pages:
--   WHERE status <> 'pending' [AND client_code = $1] [AND created_at range]
--     AND (created_at, id) < ($cursor_at, $cursor_id)
--   ORDER BY created_at DESC, id DESC LIMIT $batch
-- The txid filter needs nothing new: tx_submissions_txid_key on single
-- transactions, package_submissions_txids_idx (GIN, txids @> ARRAY[$1]) on packages.
--
-- Measured with EXPLAIN (ANALYZE, BUFFERS) on Postgres 15 at 1,000,000
-- tx_submissions rows (server/bench/csv-export.ts fills the same shape):
-- - Partial on status <> 'pending', so a count of a list (its total_records)
--   is an index-only scan that never visits the heap to test the status:
--   one client code's count went from 58 ms (bitmap heap scan) to 1.3 ms,
--   the unfiltered count from 110 ms to 68 ms, a day's count to 1.3 ms.
-- - id as the last key, so a client's list and its keyset pages come out of
--   the index in order, with no sort of equal timestamps (the index of
--   003_submissions.sql on (client_code, created_at) needed an incremental
--   sort, and a sort of the whole client for a keyset page).
-- They replace 003's indexes on the same leading columns: every query that
-- used those (these lists, metrics' daily figures, which also leave pending
-- rows out) is served by these, and one index fewer is one write fewer per
-- submission. Pending rows keep tx_submissions_status_idx (status, created_at),
-- which is what the recovery of stale pending rows reads.

DROP INDEX tx_submissions_created_at_idx;
DROP INDEX tx_submissions_client_code_idx;
CREATE INDEX tx_submissions_listed_idx ON tx_submissions (created_at DESC, id DESC) WHERE status <> 'pending';
CREATE INDEX tx_submissions_listed_client_idx ON tx_submissions (client_code, created_at DESC, id DESC) WHERE status <> 'pending';

-- Packages are never pending; only the client index lacked id.
DROP INDEX package_submissions_client_code_idx;
CREATE INDEX package_submissions_client_code_idx ON package_submissions (client_code, created_at DESC, id DESC);
