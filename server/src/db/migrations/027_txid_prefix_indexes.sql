-- Staff lists show txids shortened to their first and last 10 characters,
-- so their Transaction ID filters take the start of a txid
-- (db/sql.ts txidStartsWith: txid LIKE 'start%'). A plain btree on text
-- serves LIKE only under the C collation; text_pattern_ops serves it under
-- any collation. A whole txid is still matched by equality, through the
-- unique and GIN indexes that exist. Package members (package_submissions
-- txids, an array) are searched by their start without an index: packages
-- are few beside single transactions.
CREATE INDEX tx_submissions_txid_prefix_idx ON tx_submissions (txid text_pattern_ops) WHERE status <> 'pending';
CREATE INDEX failed_txs_txid_prefix_idx ON failed_txs (txid text_pattern_ops);
