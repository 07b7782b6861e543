-- Two small additions to what staff edit and read on the dashboard.
--
-- 1. Optional settings. A setting is required (docs/behaviour.md#validation-rules: 'Value is
--    required') unless it says otherwise: the pool's identification
--    (pool_coinbase_tag, pool_payout_addresses) starts empty and may be
--    emptied again. Only text-like settings can be optional: a number or a
--    boolean always has a value.
ALTER TABLE settings ADD COLUMN required boolean NOT NULL DEFAULT true;
UPDATE settings SET required = false WHERE item IN ('pool_coinbase_tag', 'pool_payout_addresses');
ALTER TABLE settings ADD CONSTRAINT settings_optional_is_text
  CHECK (required OR value_type IN ('text', 'email', 'url'));

-- 2. Who changed what, by email. The Logs tabs' Email column and filter show
--    and match the staff member's email from their sign-in token, with the
--    username beside it. Rows written before this migration (and by a local
--    account, whose token has no email) have none: NULL.
ALTER TABLE setting_logs ADD COLUMN email text;
ALTER TABLE discount_logs ADD COLUMN email text;
ALTER TABLE client_logs ADD COLUMN email text;
CREATE INDEX setting_logs_email_idx ON setting_logs (lower(email) text_pattern_ops);
CREATE INDEX discount_logs_email_idx ON discount_logs (lower(email) text_pattern_ops);
CREATE INDEX client_logs_email_idx ON client_logs (lower(email) text_pattern_ops);
