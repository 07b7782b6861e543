-- Child pays for parent with a parent the pool's node does not hold
-- (modules/submission/offered-parents.ts): a transaction refused as below the
-- minimum (submit-tx, or parse-tx's preview) is remembered for a while, so
-- that a child spending it, submitted next from the same client address, is
-- priced with it and both are sent to the node as one package. Strangers
-- write these rows: they expire after a day, and each client address (an
-- IPv6 client by its /64) keeps only a few, by count and by bytes.
CREATE TABLE offered_parents (
  client_address text NOT NULL,
  txid text NOT NULL,
  tx_hex text NOT NULL,
  offered_at timestamptz NOT NULL,
  PRIMARY KEY (client_address, txid),
  CONSTRAINT offered_parents_txid_hex CHECK (txid ~ '^[0-9a-f]{64}$')
);
CREATE INDEX offered_parents_offered_at_idx ON offered_parents (offered_at);

-- A transaction below the minimum that entered the pool's mempool with a
-- child paying for it: both status pages say so. Written when the node
-- accepts the package; both are the portal's records from then on.
CREATE TABLE cpfp_links (
  parent_txid text NOT NULL,
  child_txid text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (parent_txid, child_txid)
);
CREATE INDEX cpfp_links_child_idx ON cpfp_links (child_txid);
