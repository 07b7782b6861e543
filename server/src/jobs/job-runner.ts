import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Queryable } from '../db/database.ts';
import type { Logger } from '../lib/logger.ts';
import { claimJobs, completeJob, extendLease, failJob, pruneFinishedJobs, rescheduleJob, type ClaimedJob, type JobKind } from './job-queue.ts';

/**
 * Runs due jobs in this server instance: a few at a time, each under a lease
 * that is renewed while it runs. Instances share nothing but the database;
 * the queue (job-queue.ts) makes sure each job runs in one place at a time.
 *
 * The queue is looked at when something happens here (wake(): a block, a
 * mempool change, a staff retry) and otherwise every `pollMs`, so that jobs
 * another instance queued, or that fell due, are not left waiting.
 */

/** What a run decided: finished, or look again later. */
export type JobOutcome = { done: true } | { done: false; afterMs: number };

export const jobDone: JobOutcome = { done: true };
export const runAgainAfter = (afterMs: number): JobOutcome => ({ done: false, afterMs });

export type JobHandler = (job: ClaimedJob) => Promise<JobOutcome>;

export interface JobRunnerOptions {
  db: Queryable;
  log: Logger;
  handlers: Partial<Record<JobKind, JobHandler>>;
  /** Jobs run at once by this instance (default 4). */
  concurrency?: number;
  /** How often the queue is looked at without a wake-up (default 2 s). */
  pollMs?: number;
  /** How long a claim holds a job before another instance may take it over (default 60 s); renewed at a third of it while running. */
  leaseMs?: number;
  /**
   * Runs that throw are retried after 2^attempts seconds, capped here
   * (default 5 min); a job of a kind listed in `giveUpAfter` fails for good
   * after that many attempts.
   */
  maxBackoffMs?: number;
  giveUpAfter?: Partial<Record<JobKind, number>>;
  /** Finished jobs are deleted after this long (default 7 days). */
  keepFinishedMs?: number;
  /** Names this instance in the jobs table (default host:pid:random). */
  workerId?: string;
}

export interface JobRunner {
  readonly workerId: string;
  start(): void;
  /** Look at the queue now (something was queued or woken). */
  wake(): void;
  /** Stops claiming and waits for the runs under way. */
  stop(): Promise<void>;
  /** Resolves when no run is under way and nothing due was found on the last look (tests). */
  idle(): Promise<void>;
  /** Runs counted by kind since start (tests, metrics). */
  readonly runs: Readonly<Record<string, number>>;
}

const PRUNE_EVERY_MS = 60 * 60 * 1000;

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { db, log, handlers } = options;
  const concurrency = options.concurrency ?? 4;
  const pollMs = options.pollMs ?? 2_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const maxBackoffMs = options.maxBackoffMs ?? 5 * 60_000;
  const keepFinishedMs = options.keepFinishedMs ?? 7 * 24 * 60 * 60 * 1000;
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const kinds = Object.keys(handlers) as JobKind[];
  const running = new Set<Promise<void>>();
  const runs: Record<string, number> = {};
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  let lookAgain = false;
  let lastPrune = 0;
  let idleWaiters: Array<() => void> = [];

  function schedule(delayMs: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      wake();
    }, delayMs);
    timer.unref();
  }

  function wake(): void {
    if (stopped) return;
    if (looking) {
      lookAgain = true;
      return;
    }
    looking = look()
      .catch((error: unknown) => log.error({ err: (error as Error).message }, 'Claiming jobs failed; trying again shortly'))
      .finally(() => {
        looking = undefined;
        if (lookAgain) {
          lookAgain = false;
          wake();
        } else {
          schedule(pollMs);
          settleIdle();
        }
      });
  }

  let foundLastLook = false;

  async function look(): Promise<void> {
    if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      await pruneFinishedJobs(db, keepFinishedMs);
    }
    const jobs = await claimJobs(db, { worker: workerId, limit: concurrency - running.size, leaseMs, kinds });
    foundLastLook = jobs.length > 0;
    for (const job of jobs) {
      const run = execute(job).finally(() => {
        running.delete(run);
        // A free slot: there may be more due.
        wake();
      });
      running.add(run);
    }
  }

  async function execute(job: ClaimedJob): Promise<void> {
    runs[job.kind] = (runs[job.kind] ?? 0) + 1;
    const handler = handlers[job.kind]!;
    const renew = setInterval(() => {
      extendLease(db, job, workerId, leaseMs).catch((error: unknown) => log.warn({ err: (error as Error).message, job: job.key }, 'Could not renew a job lease'));
    }, leaseMs / 3);
    renew.unref();
    try {
      const outcome = await handler(job);
      const kept = outcome.done ? await completeJob(db, job, workerId) : await rescheduleJob(db, job, workerId, outcome.afterMs);
      if (!kept) log.warn({ job: job.key }, 'A job lease ran out before its run finished; another worker has it');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const limit = options.giveUpAfter?.[job.kind];
      if (limit !== undefined && job.attempts >= limit) {
        log.error({ job: job.key, attempts: job.attempts, err: message }, 'A job failed for good');
        await failJob(db, job, workerId, message).catch(() => {});
      } else {
        const backoff = Math.min(maxBackoffMs, 1000 * 2 ** Math.min(job.attempts, 20));
        log.warn({ job: job.key, attempts: job.attempts, err: message, retryInMs: backoff }, 'A job run failed; it will run again');
        // When even this write fails, the lease runs out and the job is due again.
        await rescheduleJob(db, job, workerId, backoff, message).catch(() => {});
      }
    } finally {
      clearInterval(renew);
    }
  }

  function settleIdle(): void {
    if (running.size > 0 || looking || foundLastLook) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  return {
    workerId,
    runs,
    start() {
      if (!stopped) return;
      stopped = false;
      wake();
    },
    wake,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await looking;
      while (running.size > 0) await Promise.allSettled([...running]);
      foundLastLook = false;
      settleIdle();
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        if (!stopped) wake();
        else settleIdle();
      });
    },
  };
}
