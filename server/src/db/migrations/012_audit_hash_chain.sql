-- A hash chain over the audit trail, so that an administrator can check that
-- no row was changed or removed since it was written (GET /rest-api/audits/verify;
-- src/audit/audit-chain.ts).
--
-- Each row has the hash of the row before it (prev_hash, in id order) and its
-- own: row_hash = SHA-256(prev_hash || audit_log_encoding(row)). The first
-- row's prev_hash is 32 zero bytes. Changing a row's content breaks its own
-- hash; removing a row breaks the next row's link; removing the newest rows is
-- seen against audit_chain_head, which records the newest row chained and its
-- hash. Anyone who can write to the database could recompute the whole chain,
-- so the verification also answers the head's hash: noted down elsewhere (a
-- ticket, a log shipped off the machine), it shows later whether the chain up
-- to that row is still the same.
--
-- Rows written from now on carry their hashes in audit_logs: the audit writer
-- computes them in JavaScript (src/audit/audit-chain.ts) with exactly the
-- encoding below, and appends each batch under the head row's lock in one
-- transaction, so that several portal instances sharing the database append
-- one chain, in id order. The rows already there are chained by this
-- migration into audit_log_hashes (below). sha256() is built into PostgreSQL
-- 11+ and PGlite; pgcrypto is not needed. An instance still running code from
-- before this migration would append rows without hashes, which the
-- verification reports as unchained: upgrade every instance together.

ALTER TABLE audit_logs ADD COLUMN prev_hash bytea, ADD COLUMN row_hash bytea;

-- A text column: 0x00 for NULL; otherwise 0x01, its UTF-8 length as a 4-byte
-- big-endian integer, and its UTF-8 bytes. Length-prefixed, so that no two
-- different rows encode to the same bytes.
CREATE FUNCTION audit_chain_text(value text) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN value IS NULL THEN '\x00'::bytea
              ELSE '\x01'::bytea || int4send(octet_length(convert_to(value, 'UTF8'))) || convert_to(value, 'UTF8') END
$$;

-- The canonical encoding of a row's content, in column order: id (8 bytes,
-- big-endian), ip_address, endpoint, http_method, client_code (text as
-- above), request_at (microseconds since 1970-01-01 UTC, 8 bytes),
-- request_payload, response_payload (text), response_time_ms (0x00 for NULL,
-- else 0x01 and the IEEE 754 double, 8 bytes big-endian), error_message,
-- source_type (text), is_success (one byte, 0x00 or 0x01). Binary forms,
-- not text: JavaScript and Postgres print some doubles differently, but their
-- bits are the same.
CREATE FUNCTION audit_log_encoding(a audit_logs) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT int8send(a.id)
      || audit_chain_text(a.ip_address)
      || audit_chain_text(a.endpoint)
      || audit_chain_text(a.http_method)
      || audit_chain_text(a.client_code)
      || int8send((extract(epoch FROM a.request_at) * 1000000)::bigint)
      || audit_chain_text(a.request_payload)
      || audit_chain_text(a.response_payload)
      || CASE WHEN a.response_time_ms IS NULL THEN '\x00'::bytea ELSE '\x01'::bytea || float8send(a.response_time_ms) END
      || audit_chain_text(a.error_message)
      || audit_chain_text(a.source_type)
      || boolsend(a.is_success)
$$;

-- The chain as an aggregate: over rows in id order it yields each row's
-- row_hash (a running window aggregate, ORDER BY id). Used below to chain the
-- rows already there in one statement; a fixture that fills an empty trail
-- directly (server/bench/audit-list.ts) chains its rows the same way.
CREATE FUNCTION audit_chain_step(state bytea, encoding bytea) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT sha256(state || encoding)
$$;
CREATE AGGREGATE audit_chain(bytea) (
  SFUNC = audit_chain_step,
  STYPE = bytea,
  INITCOND = '\x0000000000000000000000000000000000000000000000000000000000000000'
);

-- The newest row chained: one row, locked by each writer while it appends a batch.
CREATE TABLE audit_chain_head (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  -- NULL while the trail is empty.
  last_id bigint,
  last_hash bytea NOT NULL
);

-- The hashes of the rows already there, chained in id order. They are kept
-- beside those rows rather than written into them: an UPDATE of every row
-- would rewrite the whole table and each of its eight indexes (measured at a
-- million rows: 94 s on PGlite, 58 s on a Postgres server), where this insert
-- takes 20 s and 9 s. The verification reads a row's hashes from audit_logs,
-- or else from here.
CREATE TABLE audit_log_hashes (
  id bigint PRIMARY KEY,
  prev_hash bytea NOT NULL,
  row_hash bytea NOT NULL
);

-- Writers wait from here until this migration commits: no row is written
-- between the backfill and the head.
LOCK TABLE audit_logs IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO audit_log_hashes (id, prev_hash, row_hash)
SELECT id, coalesce(lag(row_hash) OVER (ORDER BY id), '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea), row_hash
  FROM (SELECT id, audit_chain(audit_log_encoding(l)) OVER (ORDER BY id) AS row_hash FROM audit_logs l) AS chained;

INSERT INTO audit_chain_head (last_id, last_hash)
SELECT id, row_hash FROM audit_log_hashes ORDER BY id DESC LIMIT 1;
INSERT INTO audit_chain_head (last_id, last_hash)
SELECT NULL, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea
 WHERE NOT EXISTS (SELECT 1 FROM audit_chain_head);
