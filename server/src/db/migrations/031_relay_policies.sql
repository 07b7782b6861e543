-- Whether each relay policy's nodes would have relayed an accepted
-- submission (modules/policy/policy-verdicts.ts), as TX Reports shows it:
-- 'core: standard; core-29: non-standard (scriptpubkey); knots: unknown'.
-- standard_verdict and standard_reason stay, and are the 'core' entry's.
-- NULL: not judged (a row from before this column, or still being judged).
ALTER TABLE tx_submissions ADD COLUMN relay_policies text;
ALTER TABLE package_submissions ADD COLUMN relay_policies text;
