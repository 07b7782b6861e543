-- Whether the public network would have relayed each accepted submission, as
-- the standard-policy oracle judged it right after the pool node took it
-- (modules/policy/): 'standard', 'non-standard' (standard_reason: Bitcoin
-- Core's reject code, e.g. 'tx-size', 'dust') or 'unknown' (no oracle, or
-- it could not judge). NULL: not judged (rows from before this migration, or
-- one whose judgement was lost with a restart). Staff see it in TX Reports;
-- the metrics count non-standard submissions by reason, so a pool sees what
-- its customers need it for.
ALTER TABLE tx_submissions ADD COLUMN standard_verdict text;
ALTER TABLE tx_submissions ADD COLUMN standard_reason text;
ALTER TABLE tx_submissions ADD CONSTRAINT tx_submissions_standard_verdict
  CHECK (standard_verdict IN ('standard', 'non-standard', 'unknown'));
ALTER TABLE tx_submissions ADD CONSTRAINT tx_submissions_standard_reason
  CHECK ((standard_verdict = 'non-standard') = (standard_reason IS NOT NULL) AND length(standard_reason) <= 200);
-- The metrics' count of non-standard submissions by reason reads only these rows.
CREATE INDEX tx_submissions_nonstandard_idx ON tx_submissions (standard_reason) WHERE standard_verdict = 'non-standard';
