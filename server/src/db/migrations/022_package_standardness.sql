-- Whether the public network would have relayed an accepted package, as the
-- standard-policy oracle judged its members right after the pool node took
-- them (modules/policy/note-standardness.ts), as migration 018 keeps it for
-- single submissions: 'non-standard' when any member is (standard_reason:
-- the first such member's Bitcoin Core reject code), else 'unknown' when any
-- member could not be judged, else 'standard'. NULL: not judged (rows from
-- before this migration, or one whose judgement was lost with a restart).
ALTER TABLE package_submissions ADD COLUMN standard_verdict text;
ALTER TABLE package_submissions ADD COLUMN standard_reason text;
ALTER TABLE package_submissions ADD CONSTRAINT package_submissions_standard_verdict
  CHECK (standard_verdict IN ('standard', 'non-standard', 'unknown'));
ALTER TABLE package_submissions ADD CONSTRAINT package_submissions_standard_reason
  CHECK ((standard_verdict = 'non-standard') = (standard_reason IS NOT NULL) AND length(standard_reason) <= 200);
CREATE INDEX package_submissions_nonstandard_idx ON package_submissions (standard_reason) WHERE standard_verdict = 'non-standard';
