import type { Queryable } from './database.ts';

/** How often the embedded database's audit table is vacuumed. */
export const EMBEDDED_VACUUM_INTERVAL_MS = 10 * 60_000;

/**
 * PGlite runs no autovacuum worker, so nothing would ever set the audit
 * table's visibility map, and the staff audit list's counts over busy filters
 * (an IP with tens of thousands of requests) would keep reading the heap:
 * 170 ms instead of 10 ms at a million rows (server/bench/audit-list.ts). A
 * Postgres server's autovacuum does this on its own; the embedded database
 * gets it here. The first run at a million rows takes about a second, later
 * ones tens of milliseconds.
 */
export function startEmbeddedVacuum(db: Queryable, log: (message: string) => void, intervalMs = EMBEDDED_VACUUM_INTERVAL_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    db.query('VACUUM (ANALYZE) audit_logs')
      .catch((error: unknown) => log(`vacuuming the audit trail failed: ${(error as Error).message}`))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
