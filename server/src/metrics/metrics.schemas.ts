import { Type, type Static } from 'typebox';
import { REFUSAL_REASONS } from './refusal-reasons.ts';

/**
 * Wire shapes of the metrics routes: the Prometheus scrape (text) and the
 * staff /metrics page's summary (JSON). Amounts are integer satoshis.
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export const ScrapeResponse = Type.String({ description: 'Prometheus text exposition format 0.0.4' });

export const MIN_SUMMARY_DAYS = 1;
export const MAX_SUMMARY_DAYS = 90;
export const DEFAULT_SUMMARY_DAYS = 14;

export const SummaryQuery = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: MIN_SUMMARY_DAYS,
        maximum: MAX_SUMMARY_DAYS,
        default: DEFAULT_SUMMARY_DAYS,
        description: `UTC days to cover, today included (${MIN_SUMMARY_DAYS}-${MAX_SUMMARY_DAYS})`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type SummaryQuery = Static<typeof SummaryQuery>;

const Ratio = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
  description: 'accepted / (accepted + refused): of the submissions the portal judged, the share it accepted; null when there were neither',
});

export const RefusalCount = Type.Object({
  reason: Type.Enum([...REFUSAL_REASONS], {
    description:
      'fee_too_low; invalid (not a transaction, a malformed PSBT or package, a body the API refuses); missing_inputs; already_confirmed; conflict (with the pool mempool); node_refused (any other verdict of the node); maintenance; unavailable (the node or the database); connection_closed (the body never fully arrived)',
  }),
  count: Type.Integer({ minimum: 1 }),
});
export type RefusalCount = Static<typeof RefusalCount>;

export const SummaryDay = Type.Object({
  day: Type.String({ format: 'date', description: 'UTC day, yyyy-MM-dd' }),
  accepted: Type.Integer({ minimum: 0, description: 'Transactions the node accepted (not pending) plus packages submitted' }),
  refused: Type.Integer({ minimum: 0, description: 'Submissions refused, for any reason (fee too low, not a transaction, missing inputs, the node said no, unavailable...), from the audit trail; requests turned away by the rate limit are not counted' }),
  failed: Type.Integer({ minimum: 0, description: 'Failed transactions kept for staff to retry (their refusals are counted in refused too)' }),
  acceptance_ratio: Ratio,
  revenue_sats: Type.Integer({ minimum: 0, description: 'Fees of the accepted transactions and packages (sats)' }),
});
export type SummaryDay = Static<typeof SummaryDay>;

export const RpcErrorCount = Type.Object({
  method: Type.String(),
  kind: Type.String({ description: 'refused (the node answered an error), unreachable, timeout, http or other' }),
  count: Type.Integer({ minimum: 0 }),
});
export type RpcErrorCount = Static<typeof RpcErrorCount>;

export const NodeHealth = Type.Object({
  connected: Type.Boolean({ description: "The mempool mirror's last exchange with the node succeeded" }),
  mode: Type.String({ description: 'How the mirror follows the node: starting, zmq or polling' }),
  zmq_connected: Type.Boolean(),
  lag_seconds: Type.Number({ minimum: 0, description: "How far the mirror trails the node's mempool" }),
  last_contact_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the node last answered; null before the first answer' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  tip_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'The newest block seen; null before the first projection' }),
  mempool_tx_count: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null before the first projection' }),
  mempool_vsize: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  rpc_errors_total: Type.Integer({ minimum: 0, description: 'Node RPC failures since this server started' }),
  rpc_errors: Type.Array(RpcErrorCount, { description: 'By method and kind, most first' }),
});
export type NodeHealth = Static<typeof NodeHealth>;

export const SummaryResponse = Type.Object({
  days: Type.Integer({ minimum: MIN_SUMMARY_DAYS, maximum: MAX_SUMMARY_DAYS }),
  from: Type.String({ format: 'date', description: 'First UTC day covered' }),
  to: Type.String({ format: 'date', description: 'Last UTC day covered (today)' }),
  daily: Type.Array(SummaryDay, { description: 'One entry per day, oldest first, days without activity included' }),
  totals: Type.Object({
    accepted: Type.Integer({ minimum: 0 }),
    refused: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    acceptance_ratio: Ratio,
    revenue_sats: Type.Integer({ minimum: 0 }),
    refused_by_reason: Type.Array(RefusalCount, { description: 'The refused submissions by reason, most first' }),
  }),
  node: NodeHealth,
});
export type SummaryResponse = Static<typeof SummaryResponse>;
