-- Exact counts of the audit trail per UTC day, so that the staff audit list
-- answers in under 100 ms at a million rows (docs/architecture.md#performance-budgets; server/bench/audit-list.ts).
--
-- The list's pager needs total_records (docs/behaviour.md#staff-calls). A count(*) over
-- audit_logs reads every row it counts: at a million rows that is 130-180 ms
-- unfiltered and 400-700 ms for an endpoint search, on Postgres and PGlite
-- alike, however the table is indexed. Here the rows are counted once, as
-- they are written, per day and per value of the filters with few distinct
-- values (endpoint, method, source type, success), so a list filtered on
-- those alone sums one row per day and combination (about 130 a day)
-- instead. The same per-day counts place a deep page: they say which day
-- its first row falls on, so the page query starts there rather than
-- stepping over every newer row (audit-logs.repository.ts).
--
-- Exact, not estimated: statement-level triggers keep the counts in the same
-- transaction as the rows they count, for every insert, update, delete and
-- truncate, so no reader ever sees the two disagree. The audit writer inserts
-- in batches, so that is one grouped upsert per batch. Rows are upserted in
-- key order, so two writers (two portal instances) lock shared rows in the
-- same order and cannot deadlock.
--
-- ip_address and client_code are not counted here (they have thousands of
-- values); the list counts those filters on audit_logs through their indexes.

CREATE TABLE audit_log_counts (
  -- The UTC day of request_at; every session runs in UTC (db/database.ts).
  day date NOT NULL,
  endpoint text,
  http_method text,
  source_type text,
  is_success boolean NOT NULL,
  records bigint NOT NULL,
  -- NULLS NOT DISTINCT (PostgreSQL 15): rows with a null endpoint, method or
  -- source type are counted in one row too, as GROUP BY groups them.
  CONSTRAINT audit_log_counts_key UNIQUE NULLS NOT DISTINCT (day, endpoint, http_method, source_type, is_success)
) WITH (fillfactor = 70); -- today's rows are updated by every batch: room for HOT updates

CREATE FUNCTION audit_log_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM audit_log_counts;
    RETURN NULL;
  END IF;
  -- old_rows and new_rows are the statement's transition tables; each branch
  -- runs only for the operations whose trigger declares the table it reads.
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO audit_log_counts AS c (day, endpoint, http_method, source_type, is_success, records)
    SELECT (request_at AT TIME ZONE 'UTC')::date, endpoint, http_method, source_type, is_success, -count(*)
      FROM old_rows
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (day, endpoint, http_method, source_type, is_success) DO UPDATE SET records = c.records + excluded.records;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO audit_log_counts AS c (day, endpoint, http_method, source_type, is_success, records)
    SELECT (request_at AT TIME ZONE 'UTC')::date, endpoint, http_method, source_type, is_success, count(*)
      FROM new_rows
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (day, endpoint, http_method, source_type, is_success) DO UPDATE SET records = c.records + excluded.records;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM audit_log_counts WHERE records = 0;
  END IF;
  RETURN NULL;
END
$$;

-- Writers wait from here until this migration commits, so that no row is
-- counted twice or missed between the triggers and the count of the rows
-- already there (CREATE TRIGGER would take this lock anyway).
LOCK TABLE audit_logs IN SHARE ROW EXCLUSIVE MODE;

-- Transition tables need one trigger per operation.
CREATE TRIGGER audit_log_counts_insert AFTER INSERT ON audit_logs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_log_counts_apply();
CREATE TRIGGER audit_log_counts_update AFTER UPDATE ON audit_logs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_log_counts_apply();
CREATE TRIGGER audit_log_counts_delete AFTER DELETE ON audit_logs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_log_counts_apply();
CREATE TRIGGER audit_log_counts_truncate AFTER TRUNCATE ON audit_logs
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_counts_apply();

-- The rows already there.
INSERT INTO audit_log_counts (day, endpoint, http_method, source_type, is_success, records)
SELECT (request_at AT TIME ZONE 'UTC')::date, endpoint, http_method, source_type, is_success, count(*)
  FROM audit_logs
 GROUP BY 1, 2, 3, 4, 5;
