-- Transactions and packages accepted into the pool's mempool.
-- Amounts are integer satoshis (bigint); rates are sat/vB (double precision)
-- computed from integers (docs/architecture.md, convention 5).

CREATE TABLE tx_submissions (
  id bigserial PRIMARY KEY,
  txid text NOT NULL,
  wtxid text NOT NULL,
  tx_hex text NOT NULL,
  client_code text,
  discount_code_id integer CONSTRAINT tx_submissions_discount_code_id_fkey
    REFERENCES discount_codes (id) ON DELETE SET NULL,
  size integer,
  vsize integer,
  weight integer,
  fee bigint NOT NULL,
  fee_rate double precision NOT NULL,
  functional_rate double precision NOT NULL,
  market_rate double precision NOT NULL,
  threshold_rate double precision NOT NULL,
  -- The slipstream multiple: fee_rate / market_rate.
  multiplier double precision NOT NULL,
  status text NOT NULL DEFAULT 'accepted',
  block_hash text,
  block_height integer,
  block_time timestamptz,
  -- txid of the transaction that replaced this one (BIP 125 replace-by-fee).
  replaced_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tx_submissions_txid_key UNIQUE (txid),
  -- Ids are stored as the node prints them: 64 lowercase hex digits.
  CONSTRAINT tx_submissions_txid_hex CHECK (txid ~ '^[0-9a-f]{64}$'),
  CONSTRAINT tx_submissions_wtxid_hex CHECK (wtxid ~ '^[0-9a-f]{64}$'),
  CONSTRAINT tx_submissions_fee_nonnegative CHECK (fee >= 0),
  CONSTRAINT tx_submissions_status_check
    CHECK (status IN ('accepted', 'confirmed', 'replaced', 'evicted', 'conflicted')),
  CONSTRAINT tx_submissions_confirmed_has_block
    CHECK (status <> 'confirmed' OR (block_hash IS NOT NULL AND block_height IS NOT NULL))
);

CREATE INDEX tx_submissions_created_at_idx ON tx_submissions (created_at DESC, id DESC);
CREATE INDEX tx_submissions_client_code_idx ON tx_submissions (client_code, created_at DESC);
CREATE INDEX tx_submissions_status_idx ON tx_submissions (status, created_at);

CREATE TABLE package_submissions (
  id bigserial PRIMARY KEY,
  -- Hash of the ordered txids; the same package submitted twice is one row.
  package_hash text NOT NULL,
  txids text[] NOT NULL,
  tx_hexes text[] NOT NULL,
  client_code text,
  discount_code_id integer CONSTRAINT package_submissions_discount_code_id_fkey
    REFERENCES discount_codes (id) ON DELETE SET NULL,
  total_size integer,
  total_vsize integer,
  total_weight integer,
  total_fee bigint,
  fee_rate double precision,
  market_rate double precision,
  multiplier double precision,
  -- submitpackage's package_msg ('success' or the node's reason).
  package_msg text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT package_submissions_package_hash_key UNIQUE (package_hash),
  CONSTRAINT package_submissions_members
    CHECK (cardinality(txids) >= 1 AND cardinality(txids) = cardinality(tx_hexes)),
  CONSTRAINT package_submissions_fee_nonnegative CHECK (total_fee IS NULL OR total_fee >= 0)
);

-- Finds the packages containing a txid: WHERE txids @> ARRAY[$1]::text[]
CREATE INDEX package_submissions_txids_idx ON package_submissions USING gin (txids);
CREATE INDEX package_submissions_created_at_idx ON package_submissions (created_at DESC, id DESC);
CREATE INDEX package_submissions_client_code_idx ON package_submissions (client_code, created_at DESC);
