import type { Database } from '../../db/database.ts';
import { enqueueIdleJobs, type JobKind } from '../../jobs/job-queue.ts';
import type { Logger } from '../../lib/logger.ts';

/**
 * Queues a job for each piece of outbox work that has none yet (webhook
 * events written by the database's trigger, emails due once a transaction
 * settled): the rows are written outside any code that could queue jobs,
 * and jobs are queued only through the job queue. A job already open for a
 * key is left alone, so a backoff it is waiting out stands. Runs every
 * `pollMs` in each instance; the job queue keeps two from doing the same work.
 */
export function startJobDispatch(deps: {
  db: Database;
  log: Logger;
  wake: () => void;
  pollMs: number;
  /** What the work is, for the log. */
  what: string;
  /** Ids with work waiting and no open job yet. */
  find: (db: Database) => Promise<number[]>;
  kind: JobKind;
  job: (id: number) => { key: string; payload: Record<string, unknown> };
}): () => void {
  const { db, log, wake } = deps;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const ids = await deps.find(db);
      if ((await enqueueIdleJobs(db, deps.kind, ids.map(deps.job))) > 0) wake();
    } catch (error) {
      log.warn({ err: (error as Error).message }, `Could not queue ${deps.what}; trying again shortly`);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), deps.pollMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
