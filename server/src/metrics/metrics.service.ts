import type { AuditWriter } from '../audit/audit-writer.ts';
import type { Queryable } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { MempoolReader } from '@slipstream/mempool-engine';
import { pendingStats } from '../modules/notifications/webhooks.repository.ts';
import type { Metrics } from './metrics-registry.ts';
import { dailyFigures, dailyRefusals, openJobsByKind } from './metrics.repository.ts';
import { refusalReason, SUBMISSION_ENDPOINTS, type RefusalReason } from './refusal-reasons.ts';
import { nonStandardCounts } from '../modules/policy/standardness.repository.ts';
import type { NodeHealth, RpcErrorCount, SummaryDay, SummaryResponse } from './metrics.schemas.ts';

/**
 * The Prometheus scrape and the staff summary. Gauges that describe another
 * component's state (the mempool mirror, the job queue, the audit queue) are
 * read when scraped rather than pushed by those components, so none of them
 * knows about metrics.
 */

export interface MetricsServiceDeps {
  metrics: Metrics;
  db: Queryable;
  mempool: Pick<MempoolReader, 'health' | 'feed' | 'templateCheck'>;
  audit: Pick<AuditWriter, 'stats' | 'oldestQueuedAtMs'>;
  clock: Clock;
  log: Logger;
}

export interface MetricsService {
  readonly contentType: string;
  /** The registry in Prometheus text format, scrape-time gauges read first. */
  scrape(): Promise<string>;
  summary(days: number): Promise<SummaryResponse>;
}

const MIRROR_MODES = ['starting', 'zmq', 'polling'] as const;
const DAY_MS = 86_400_000;

/** Accepted out of every submission judged (accepted or refused, whatever the reason); null with neither. */
const ratio = (accepted: number, refused: number): number | null => (accepted + refused === 0 ? null : accepted / (accepted + refused));
const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export function createMetricsService(deps: MetricsServiceDeps): MetricsService {
  const { metrics, db, mempool, audit, clock, log } = deps;
  /** Kinds seen since start: one whose queue emptied reads 0 rather than vanishing. */
  const jobKinds = new Set<string>();

  async function readJobQueue(now: Date): Promise<void> {
    let open;
    try {
      open = await openJobsByKind(db, now);
    } catch (error) {
      // The rest of the scrape is still worth having; the failure is counted and logged, not hidden.
      metrics.scrapeErrors.inc({ source: 'jobs' });
      log.warn({ err: error }, 'metrics: the job queue could not be read');
      return;
    }
    for (const row of open) jobKinds.add(row.kind);
    metrics.jobQueueDepth.reset();
    metrics.jobQueueOldestAge.reset();
    for (const kind of jobKinds) {
      const row = open.find((r) => r.kind === kind);
      metrics.jobQueueDepth.set({ kind }, row?.depth ?? 0);
      metrics.jobQueueOldestAge.set({ kind }, row?.oldestAgeSeconds ?? 0);
    }
  }

  async function readWebhooks(now: Date): Promise<void> {
    try {
      const stats = await pendingStats(db, now);
      metrics.webhookPending.set(stats.pending);
      metrics.webhookOldestPendingAge.set(stats.oldestAgeSeconds);
    } catch (error) {
      metrics.scrapeErrors.inc({ source: 'webhooks' });
      log.warn({ err: error }, 'metrics: the webhook deliveries could not be read');
    }
  }

  /** Reasons seen since start: counts only grow, but a reason keeps its series once seen. */
  async function readStandardness(): Promise<void> {
    try {
      const counts = await nonStandardCounts(db);
      metrics.nonStandardSubmissions.reset();
      for (const { reason, count } of counts) metrics.nonStandardSubmissions.set({ reason }, count);
    } catch (error) {
      metrics.scrapeErrors.inc({ source: 'standardness' });
      log.warn({ err: error }, 'metrics: the non-standard submissions could not be counted');
    }
  }

  function readMirror(): void {
    const health = mempool.health();
    metrics.mirrorLag.set(Math.max(0, health.lagMs) / 1000);
    metrics.mirrorUp.set(health.lastError === undefined ? 1 : 0);
    metrics.mirrorZmqConnected.set(health.zmqConnected ? 1 : 0);
    for (const mode of MIRROR_MODES) metrics.mirrorMode.set({ mode }, health.mode === mode ? 1 : 0);
    metrics.nodeLastContact.set((health.lastContactAtMs ?? 0) / 1000);
    const state = mempool.feed.current();
    metrics.mempoolTxCount.set(state?.mempool.txCount ?? 0);
    metrics.tipHeight.set(state?.recentBlocks[0]?.height ?? 0);
    const { comparison, following } = mempool.templateCheck();
    metrics.templateAgreement.set(comparison?.agreement ?? 1);
    metrics.templateDifference.set({ side: 'template_only' }, comparison?.templateOnly ?? 0);
    metrics.templateDifference.set({ side: 'projection_only' }, comparison?.projectionOnly ?? 0);
    metrics.templateFollowed.set(following === 'node-template' ? 1 : 0);
    metrics.templateChecked.set((comparison?.checkedAtMs ?? 0) / 1000);
  }

  function readAudit(now: Date): void {
    const stats = audit.stats();
    metrics.auditQueueLength.set(stats.queued);
    const oldest = audit.oldestQueuedAtMs?.();
    metrics.auditWriteLag.set(oldest === undefined ? 0 : Math.max(0, now.getTime() - oldest) / 1000);
  }

  async function rpcErrorCounts(): Promise<RpcErrorCount[]> {
    const { values } = await metrics.rpcErrors.get();
    return values
      .filter((v) => v.value > 0)
      .map((v) => ({ method: String(v.labels.method), kind: String(v.labels.kind), count: v.value }))
      .sort((a, b) => b.count - a.count || a.method.localeCompare(b.method) || a.kind.localeCompare(b.kind));
  }

  async function nodeHealth(): Promise<NodeHealth> {
    const health = mempool.health();
    const state = mempool.feed.current();
    const rpcErrors = await rpcErrorCounts();
    return {
      connected: health.lastContactAtMs !== undefined && health.lastError === undefined,
      mode: health.mode,
      zmq_connected: health.zmqConnected,
      lag_seconds: Math.max(0, health.lagMs) / 1000,
      last_contact_at: health.lastContactAtMs === undefined ? null : new Date(health.lastContactAtMs).toISOString(),
      last_error: health.lastError ?? null,
      tip_height: state?.recentBlocks[0]?.height ?? null,
      mempool_tx_count: state?.mempool.txCount ?? null,
      mempool_vsize: state?.mempool.vsize ?? null,
      rpc_errors_total: rpcErrors.reduce((n, e) => n + e.count, 0),
      rpc_errors: rpcErrors,
    };
  }

  return {
    contentType: metrics.registry.contentType,
    async scrape() {
      const now = clock.now();
      readMirror();
      readAudit(now);
      await readJobQueue(now);
      await readStandardness();
      await readWebhooks(now);
      return metrics.registry.metrics();
    },
    async summary(days) {
      const now = clock.now();
      const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
      const from = new Date(today - (days - 1) * DAY_MS);
      const to = new Date(today + DAY_MS);
      const [figures, refusals, node] = await Promise.all([dailyFigures(db, from, to), dailyRefusals(db, from, to, SUBMISSION_ENDPOINTS), nodeHealth()]);
      const byDay = new Map(figures.map((f) => [f.day, f]));
      const refusedByDay = new Map<string, number>();
      const byReason = new Map<RefusalReason, number>();
      for (const r of refusals) {
        const reason = refusalReason(r.errorMessage);
        if (reason === undefined) continue;
        refusedByDay.set(r.day, (refusedByDay.get(r.day) ?? 0) + r.count);
        byReason.set(reason, (byReason.get(reason) ?? 0) + r.count);
      }
      const daily: SummaryDay[] = [];
      for (let i = 0; i < days; i++) {
        const day = isoDay(new Date(from.getTime() + i * DAY_MS));
        const f = byDay.get(day);
        const accepted = f?.accepted ?? 0;
        const refused = refusedByDay.get(day) ?? 0;
        daily.push({ day, accepted, refused, failed: f?.failed ?? 0, acceptance_ratio: ratio(accepted, refused), revenue_sats: f?.revenueSats ?? 0 });
      }
      const accepted = daily.reduce((n, d) => n + d.accepted, 0);
      const refused = daily.reduce((n, d) => n + d.refused, 0);
      return {
        days,
        from: isoDay(from),
        to: isoDay(new Date(today)),
        daily,
        totals: {
          accepted,
          refused,
          failed: daily.reduce((n, d) => n + d.failed, 0),
          acceptance_ratio: ratio(accepted, refused),
          revenue_sats: daily.reduce((n, d) => n + d.revenue_sats, 0),
          refused_by_reason: [...byReason].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
        },
        node,
      };
    },
  };
}
