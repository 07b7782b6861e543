-- What strangers may make the portal store as failed submissions (modules/
-- submission/submission-context.ts fail()): each row now says which client
-- address group it was stored for (an IPv4 address or an IPv6 /64; NULL for
-- staff retries and rows from before this migration) and how many bytes of
-- transaction hex it holds, so one address's rows and bytes of the last day
-- can be summed from an index without reading the hex. Rows untouched for
-- FAILED_TX_RETENTION_DAYS are deleted by a periodic job (updated_at index).
ALTER TABLE failed_txs ADD COLUMN client_address text;
ALTER TABLE failed_txs ADD COLUMN stored_bytes bigint NOT NULL DEFAULT 0;
ALTER TABLE failed_txs ADD CONSTRAINT failed_txs_stored_bytes_nonnegative CHECK (stored_bytes >= 0);
UPDATE failed_txs SET stored_bytes = octet_length(tx_hex) + COALESCE(octet_length(array_to_string(tx_hexes, '')), 0);
CREATE INDEX failed_txs_client_address_created_at_idx ON failed_txs (client_address, created_at) INCLUDE (stored_bytes)
  WHERE client_address IS NOT NULL;
CREATE INDEX failed_txs_updated_at_idx ON failed_txs (updated_at);
