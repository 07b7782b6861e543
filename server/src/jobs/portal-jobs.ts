import type { RpcClient } from '../bitcoin/rpc-client.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../lib/logger.ts';
import type { MempoolReader } from '@slipstream/mempool-engine';
import type { RecordKeeper } from '../modules/submission/record-keeper.ts';
import type { SubmissionService } from '../modules/submission/submission.service.ts';
import { enqueueJob } from './job-queue.ts';
import { createJobRunner, type JobRunner, type JobRunnerOptions } from './job-runner.ts';
import { createRetryJob } from './retry-job.ts';
import { startFailedTxRetention } from './failed-txs-retention.ts';
import { DEFAULT_FAILED_TX_RETENTION_DAYS } from '../modules/failed-txs/failed-tx-storage.ts';
import { createEmailJob, startEmailDispatch, type EmailJobOptions } from '../modules/notifications/email-job.ts';
import { createWebhookJob, startWebhookDispatch, type WebhookDeliveryOptions } from '../modules/notifications/webhook-job.ts';
import { startNextBlockWatch } from '../modules/notifications/next-block-watch.ts';
import { followChainEvents } from './tracking/chain-events.ts';
import { createScanBlocksJob } from './tracking/scan-blocks-job.ts';
import { createTrackJob } from './tracking/track-job.ts';

/**
 * The portal's background work in this instance: tracking accepted
 * submissions (per-transaction jobs and the block scan, woken by the mempool
 * engine's events) and staff retries. Started by runtime.ts and the tests,
 * never by buildApp.
 */

export interface PortalJobsDeps {
  db: Database;
  rpc: RpcClient;
  mempool: MempoolReader;
  submission: Pick<SubmissionService, 'submitTx' | 'submitPackage'>;
  /** Where the submissions' records wait when the database cannot take them (retries read it). */
  records: Pick<RecordKeeper, 'spooled'>;
  log: Logger;
  runner?: Pick<JobRunnerOptions, 'concurrency' | 'pollMs' | 'leaseMs' | 'workerId'>;
  /** Between looks at a tracked transaction when no event came (default 10 min). */
  recheckMs?: number;
  /** A block scan is queued this often even without events (default 5 min), in case events stop. */
  safetyScanMs?: number;
  /** A 'pending' submission this old is settled by the block scan (default 2 min; PENDING_SETTLE_MS). */
  pendingAfterMs?: number;
  /** Webhook deliveries: how to sign and where they may go; `dispatchPollMs`: how often new events are looked for (default 1 s). */
  webhooks: Omit<WebhookDeliveryOptions, 'db' | 'log'> & { dispatchPollMs?: number };
  /** Notification emails, when SMTP is configured (none without). */
  email?: Omit<EmailJobOptions, 'db' | 'log'> & { dispatchPollMs?: number };
  /** FAILED_TX_RETENTION_DAYS (default 30) and, for tests, the time between sweeps (default one hour). */
  failedTxRetention?: { retentionDays: number; sweepMs?: number };
}

export interface PortalJobs {
  runner: JobRunner;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createPortalJobs(deps: PortalJobsDeps): PortalJobs {
  const { db, rpc, log } = deps;
  const safetyScanMs = deps.safetyScanMs ?? 5 * 60_000;
  // The handlers wake the runner they belong to, which exists only once they do.
  const wake = () => jobs.wake();
  const jobs: JobRunner = createJobRunner({
    db,
    log,
    ...deps.runner,
    handlers: {
      track: createTrackJob({ db, rpc, log, wake, ...(deps.recheckMs === undefined ? {} : { recheckMs: deps.recheckMs }) }),
      'scan-blocks': createScanBlocksJob({ db, rpc, log, ...(deps.pendingAfterMs === undefined ? {} : { pendingAfterMs: deps.pendingAfterMs }) }),
      retry: createRetryJob({ db, submission: deps.submission, records: deps.records, log }),
      webhook: createWebhookJob({ db, log, ...deps.webhooks }),
      ...(deps.email ? { email: createEmailJob({ db, log, ...deps.email }) } : {}),
    },
  });
  let stopEvents: (() => void) | undefined;
  let stopWebhookDispatch: (() => void) | undefined;
  let stopEmailDispatch: (() => void) | undefined;
  let stopNextBlockWatch: (() => void) | undefined;
  let stopRetention: (() => void) | undefined;
  let safety: NodeJS.Timeout | undefined;

  const queueScan = () => enqueueJob(db, { kind: 'scan-blocks', key: 'scan-blocks' }).then(wake);

  return {
    runner: jobs,
    async start() {
      // Blocks mined while no server ran are matched first.
      await queueScan();
      jobs.start();
      stopEvents = followChainEvents({ db, mempool: deps.mempool, log, wake });
      if (deps.email) stopEmailDispatch = startEmailDispatch({ db, log, wake, ...(deps.email.dispatchPollMs === undefined ? {} : { pollMs: deps.email.dispatchPollMs }) });
      stopNextBlockWatch = startNextBlockWatch({ db, mempool: deps.mempool, log });
      stopRetention = startFailedTxRetention({ db, log, retentionDays: DEFAULT_FAILED_TX_RETENTION_DAYS, ...deps.failedTxRetention });
      stopWebhookDispatch = startWebhookDispatch({ db, log, wake, ...(deps.webhooks.dispatchPollMs === undefined ? {} : { pollMs: deps.webhooks.dispatchPollMs }) });
      safety = setInterval(() => {
        queueScan().catch((error: unknown) => log.warn({ err: (error as Error).message }, 'Could not queue the periodic block scan'));
      }, safetyScanMs);
      safety.unref();
    },
    async stop() {
      stopEvents?.();
      stopWebhookDispatch?.();
      stopEmailDispatch?.();
      stopNextBlockWatch?.();
      stopRetention?.();
      if (safety) clearInterval(safety);
      await jobs.stop();
    },
  };
}
