import { Type, type Static } from 'typebox';

/**
 * GET /rest-api/health: what a load balancer or an uptime monitor asks. The
 * same shape answers 200 (`ok`) and 503 (`degraded`); the checks say which
 * part is failing, for staff (the status alone for anyone else). Errors are
 * short fixed phrases: the details may be public (the public mempool view
 * setting), so no host names, ports or driver messages reach them (the logs
 * have those).
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const NodeCheck = Type.Object({
  ok: Type.Boolean({ description: 'The node answered within the last few seconds and its last answer was not an error' }),
  lag_ms: Type.Number({ minimum: 0, description: "How far the portal's mirror of the node's mempool trails the node (ms)" }),
  last_contact_at: Nullable(Type.String({ format: 'date-time', description: 'When the node last answered; null before its first answer' })),
  error: Type.Optional(Type.String({ description: 'Why it is not ok' })),
});
export type NodeCheck = Static<typeof NodeCheck>;

export const DatabaseCheck = Type.Object({
  ok: Type.Boolean({ description: 'A trivial query answered in time' }),
  latency_ms: Nullable(Type.Number({ minimum: 0, description: 'How long it took (ms); null when it failed' })),
  error: Type.Optional(Type.String({ description: 'Why it is not ok: unreachable, timed out, or failed' })),
});
export type DatabaseCheck = Static<typeof DatabaseCheck>;

export const MempoolCheck = Type.Object({
  ok: Type.Boolean({ description: 'A projection of the next blocks exists, so submissions can be priced' }),
  mode: Type.String({ description: 'How the mirror follows the node: starting, zmq or polling' }),
  tx_count: Nullable(Type.Integer({ minimum: 0, description: 'Transactions in the latest projection; null before the first' })),
  updated_at: Nullable(Type.String({ format: 'date-time', description: 'When the latest projection was published; null before the first' })),
});
export type MempoolCheck = Static<typeof MempoolCheck>;

export const JobsCheck = Type.Object({
  queued: Nullable(Type.Integer({ minimum: 0, description: 'Background jobs due and waiting for a worker; null when the database could not be read' })),
  oldest_age_s: Nullable(Type.Number({ minimum: 0, description: 'How long the oldest of them has been due (seconds); 0 when none waits' })),
});
export type JobsCheck = Static<typeof JobsCheck>;

const HealthStatus = Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
  description: 'ok (HTTP 200) when the node, the database and the mempool projection are ok; degraded (HTTP 503) otherwise',
});

export const HealthChecks = Type.Object({ node: NodeCheck, database: DatabaseCheck, mempool: MempoolCheck, jobs: JobsCheck });

/** The whole report, as the service makes it. */
export const HealthReport = Type.Object({ status: HealthStatus, checks: HealthChecks });
export type HealthReport = Static<typeof HealthReport>;

/**
 * What a caller gets: the status for everyone (a load balancer needs no
 * more), the checks only for signed-in staff or when the public mempool view
 * setting is on, as they describe the private mempool (its size, the node's lag).
 */
export const HealthResponse = Type.Object({
  status: HealthStatus,
  checks: Type.Optional(
    Type.Object(HealthChecks.properties, {
      description: 'Only with a staff Bearer token, or for everyone when the public mempool view setting is on',
    }),
  ),
});
export type HealthResponse = Static<typeof HealthResponse>;
