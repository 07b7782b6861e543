-- "Email me when it is mined" on the status page: one address per row, kept
-- only until the transaction's final event (mined, or replaced, evicted,
-- conflicted) has been mailed, then deleted. Nothing else about the address
-- is stored (the request's audit row has it redacted).

CREATE TABLE email_subscriptions (
  id bigserial PRIMARY KEY,
  txid text NOT NULL,
  email text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  first_attempt_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT email_subscriptions_txid_hex CHECK (txid ~ '^[0-9a-f]{64}$'),
  CONSTRAINT email_subscriptions_one_per_address UNIQUE (txid, email)
);
CREATE INDEX email_subscriptions_txid_idx ON email_subscriptions (txid);

ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('track', 'scan-blocks', 'retry', 'webhook', 'email'));
