import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The portal's Prometheus metrics, in a registry of its own: no module-level
 * default registry (docs/architecture.md, convention 3), so two apps in one process (the
 * tests) never share or collide on a metric. Label values are bounded: route
 * patterns rather than URLs, RPC method names from our own code, fixed
 * outcome and kind sets.
 */

export const SUBMISSION_KINDS = ['tx', 'package'] as const;
export type SubmissionKind = (typeof SUBMISSION_KINDS)[number];
export const SUBMISSION_OUTCOMES = ['accepted', 'rejected', 'failed', 'invalid'] as const;
export type SubmissionOutcome = (typeof SUBMISSION_OUTCOMES)[number];

/**
 * How an RPC call failed: `refused` the node answered with an error (it
 * understood and said no); the rest are RpcTransportError's kinds (it could
 * not be asked); `other` anything else.
 */
export type RpcErrorKind = 'refused' | 'unreachable' | 'timeout' | 'http' | 'other';

/** The label of requests that matched no route (404s, the web app's deep links): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface Metrics {
  readonly registry: Registry;
  readonly submissions: Counter<'kind' | 'outcome'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly rpcDuration: Histogram<'method'>;
  readonly rpcErrors: Counter<'method' | 'kind'>;
  readonly mirrorLag: Gauge;
  readonly mirrorUp: Gauge;
  readonly mirrorZmqConnected: Gauge;
  readonly mirrorMode: Gauge<'mode'>;
  readonly nodeLastContact: Gauge;
  readonly mempoolTxCount: Gauge;
  readonly tipHeight: Gauge;
  readonly templateAgreement: Gauge;
  readonly templateDifference: Gauge<'side'>;
  readonly templateFollowed: Gauge;
  readonly templateChecked: Gauge;
  readonly jobQueueDepth: Gauge<'kind'>;
  readonly jobQueueOldestAge: Gauge<'kind'>;
  readonly auditWriteLag: Gauge;
  readonly auditQueueLength: Gauge;
  readonly scrapeErrors: Counter<'source'>;
  readonly loginFailures: Counter<'reason'>;
  readonly loginFailureBursts: Counter;
  /** Accepted submissions the public network would have refused, by Core's reject code (tx_submissions, migration 018). */
  readonly nonStandardSubmissions: Gauge<'reason'>;
  readonly webhookAttempts: Counter<'outcome'>;
  readonly webhookPending: Gauge;
  readonly webhookOldestPendingAge: Gauge;
}

/**
 * Why a local sign-in was refused: `invalid_credentials` (an unknown username
 * or a wrong password, one reason so that the metric tells no more than the
 * answer does) or `throttled` (the address waits after failures, unchecked).
 */
export const LOGIN_FAILURE_REASONS = ['invalid_credentials', 'throttled'] as const;

/** Request latencies from 5 ms (a cached read) to 30 s (the RPC timeout's default). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Node calls: sub-millisecond for getmempoolentry, seconds for a large submitpackage. */
const RPC_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const submissions = new Counter({
    name: 'slipstream_submissions_total',
    help: 'Submissions answered, by kind (tx, package) and outcome: accepted (2xx), invalid (400/413), rejected by the node or the fee minimum (422), failed (5xx)',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  // Every combination exists from the start, so rate() and alerts see a 0 rather than no series.
  for (const kind of SUBMISSION_KINDS) for (const outcome of SUBMISSION_OUTCOMES) submissions.inc({ kind, outcome }, 0);
  const loginFailures = new Counter({
    name: 'slipstream_login_failures_total',
    help: 'Local staff sign-ins refused, by reason: invalid_credentials (unknown username or wrong password), throttled (the address must wait after failures)',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of LOGIN_FAILURE_REASONS) loginFailures.inc({ reason }, 0);
  return {
    registry,
    submissions,
    httpDuration: new Histogram({
      name: 'slipstream_http_request_duration_seconds',
      help: `HTTP request duration by method, route pattern ('${UNMATCHED_ROUTE}' when no route matched) and status code`,
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    rpcDuration: new Histogram({
      name: 'slipstream_node_rpc_duration_seconds',
      help: "Bitcoin node JSON-RPC call duration by method ('batch:<methods>' for a batch), retries included",
      labelNames: ['method'] as const,
      buckets: RPC_BUCKETS,
      registers,
    }),
    rpcErrors: new Counter({
      name: 'slipstream_node_rpc_errors_total',
      help: 'Bitcoin node JSON-RPC failures by method and kind: refused (the node answered an error), unreachable, timeout, http, other',
      labelNames: ['method', 'kind'] as const,
      registers,
    }),
    mirrorLag: new Gauge({ name: 'slipstream_mempool_mirror_lag_seconds', help: "How far the mempool mirror trails the node's mempool", registers }),
    mirrorUp: new Gauge({ name: 'slipstream_mempool_mirror_up', help: '1 when the last exchange with the node succeeded, 0 when the mirror reports an error', registers }),
    mirrorZmqConnected: new Gauge({ name: 'slipstream_mempool_mirror_zmq_connected', help: "1 while the mirror follows the node's ZMQ notifications", registers }),
    mirrorMode: new Gauge({
      name: 'slipstream_mempool_mirror_mode',
      help: 'How the mirror follows the node: 1 for the current mode (starting, zmq, polling), 0 for the others',
      labelNames: ['mode'] as const,
      registers,
    }),
    nodeLastContact: new Gauge({ name: 'slipstream_node_last_contact_timestamp_seconds', help: 'When the node last answered the mempool mirror (Unix seconds; 0 before the first answer)', registers }),
    mempoolTxCount: new Gauge({ name: 'slipstream_mempool_transactions', help: "Transactions in the mirror of the node's mempool (0 before the first projection)", registers }),
    tipHeight: new Gauge({ name: 'slipstream_chain_tip_height', help: 'Height of the newest block the mempool engine has seen (0 before the first)', registers }),
    templateAgreement: new Gauge({
      name: 'slipstream_block_template_agreement_ratio',
      help: "The weight the projection's next block and the node's block template both hold, over the larger one's weight (1: the same transactions; 1 before the first comparison)",
      registers,
    }),
    templateDifference: new Gauge({
      name: 'slipstream_block_template_difference_transactions',
      help: "Transactions in only one of the two next blocks, at the last comparison: side 'template_only' (the node takes it, the projection does not) or 'projection_only'",
      labelNames: ['side'] as const,
      registers,
    }),
    templateFollowed: new Gauge({ name: 'slipstream_block_template_followed', help: "1 while the next block's positions and rate to beat come from the node's template (it differs from the projection), 0 while from the projection", registers }),
    templateChecked: new Gauge({ name: 'slipstream_block_template_checked_timestamp_seconds', help: "When the node's block template was last compared with the projection (Unix seconds; 0 before the first)", registers }),
    jobQueueDepth: new Gauge({
      name: 'slipstream_job_queue_depth',
      help: "Open jobs (queued or running) by kind",
      labelNames: ['kind'] as const,
      registers,
    }),
    jobQueueOldestAge: new Gauge({
      name: 'slipstream_job_queue_oldest_age_seconds',
      help: 'Age of the oldest open job (queued or running) by kind, since it was created',
      labelNames: ['kind'] as const,
      registers,
    }),
    auditWriteLag: new Gauge({ name: 'slipstream_audit_write_lag_seconds', help: 'How long the oldest audit row not yet written has waited in the audit queue (0 when empty)', registers }),
    auditQueueLength: new Gauge({ name: 'slipstream_audit_queue_length', help: 'Audit rows waiting to be written, the batch being written included', registers }),
    scrapeErrors: new Counter({
      name: 'slipstream_metrics_scrape_errors_total',
      help: 'Scrape-time readings that failed (their gauges keep the last value); the reason is in the log',
      labelNames: ['source'] as const,
      registers,
    }),
    loginFailures,
    nonStandardSubmissions: new Gauge({
      name: 'slipstream_nonstandard_submissions',
      help: "Accepted submissions (single transactions and packages) that the public network (Bitcoin Core's default policy) would have refused, all time, by Core's reject code: what customers need the pool for",
      labelNames: ['reason'] as const,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'slipstream_webhook_attempts_total',
      help: "Webhook delivery attempts by outcome: 'delivered', 'retrying' (failed, tried again later) or 'failed' (given up after 24 h, or a refused destination)",
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookPending: new Gauge({ name: 'slipstream_webhook_pending', help: 'Webhook events not yet delivered (read at scrape time)', registers }),
    webhookOldestPendingAge: new Gauge({
      name: 'slipstream_webhook_oldest_pending_age_seconds',
      help: 'How long the oldest undelivered webhook event has waited since it happened (0 when none): the delivery lag',
      registers,
    }),
    loginFailureBursts: new Counter({
      name: 'slipstream_login_failure_bursts_total',
      help: 'Bursts of failed local sign-ins on one username (20 within 5 minutes, from any addresses); each is logged once as a warning naming the username and addresses',
      registers,
    }),
  };
}

/** The outcome a submission's HTTP status code means; undefined for answers that are no submission attempt (429, 404). */
export function submissionOutcome(statusCode: number): SubmissionOutcome | undefined {
  if (statusCode >= 200 && statusCode < 300) return 'accepted';
  if (statusCode === 400 || statusCode === 413) return 'invalid';
  if (statusCode === 422) return 'rejected';
  if (statusCode >= 500) return 'failed';
  return undefined;
}
