-- A submission is written as 'pending' while the node validates it, so that
-- the row exists before the user is told "success" without waiting for the
-- write after the node's answer; it becomes 'accepted' once the node has taken
-- the transaction. 'claim' names the request that wrote a pending row: only
-- that request takes it back when the node refuses.
ALTER TABLE tx_submissions DROP CONSTRAINT tx_submissions_status_check;
ALTER TABLE tx_submissions ADD CONSTRAINT tx_submissions_status_check
  CHECK (status IN ('pending', 'accepted', 'confirmed', 'replaced', 'evicted', 'conflicted'));
ALTER TABLE tx_submissions ADD COLUMN claim uuid;
