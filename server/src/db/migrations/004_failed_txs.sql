-- Submissions that failed or timed out, kept so staff can retry them
-- (docs/behaviour.md#failed-transactions: status filter Failed or Timeout; retry moves rows to Retrying).

CREATE TABLE failed_txs (
  id bigserial PRIMARY KEY,
  txid text NOT NULL,
  tx_hex text NOT NULL,
  -- Every member's hex, in order, when the submission was a package.
  tx_hexes text[],
  submission_type text NOT NULL DEFAULT 'tx',
  client_code text,
  status text NOT NULL,
  errors text[] NOT NULL,
  attempts integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT failed_txs_submission_type_check CHECK (submission_type IN ('tx', 'package')),
  CONSTRAINT failed_txs_status_check CHECK (status IN ('Failed', 'Timeout', 'Retrying', 'Resolved')),
  CONSTRAINT failed_txs_package_has_hexes CHECK (submission_type <> 'package' OR tx_hexes IS NOT NULL),
  CONSTRAINT failed_txs_attempts_nonnegative CHECK (attempts >= 0)
);

-- At most one open row per txid; a Resolved row leaves room for a new failure.
CREATE UNIQUE INDEX failed_txs_open_txid_key ON failed_txs (txid)
  WHERE status IN ('Failed', 'Timeout', 'Retrying');
CREATE INDEX failed_txs_status_created_at_idx ON failed_txs (status, created_at DESC, id DESC);
CREATE INDEX failed_txs_created_at_idx ON failed_txs (created_at DESC, id DESC);
CREATE INDEX failed_txs_client_code_idx ON failed_txs (client_code);
CREATE INDEX failed_txs_txid_idx ON failed_txs (txid);
