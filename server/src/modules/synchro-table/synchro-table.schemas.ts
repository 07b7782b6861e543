import { Type, type Static } from 'typebox';
import { MinedBlockSummary } from '../mempool-dashboard/mempool-dashboard.schemas.ts';

/**
 * The synchro table (docs/behaviour.md#synchro-table: the blank page /synchro/table
 * and its direct GET): what the pool has synchronised from its node, for an
 * operator's probe. Staff only: the private mempool's aggregates are the
 * same kind of figures the /mempool/ view shows staff.
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const SynchroTableResponse = Type.Object({
  generated_at: Type.String({ format: 'date-time' }),
  mempool: Type.Object(
    {
      mode: Type.String({ description: "How the mirror follows the node: 'zmq' (notifications) or 'polling'" }),
      zmq_connected: Type.Boolean(),
      lag_seconds: Type.Number({ minimum: 0, description: 'How far the mirror trails the node' }),
      last_contact_at: Nullable(Type.String({ format: 'date-time', description: 'When the node last answered' })),
      last_error: Nullable(Type.String({ description: "The mirror's last failure talking to the node; null when the last contact succeeded" })),
      tx_count: Nullable(Type.Integer({ minimum: 0, description: 'Transactions mirrored; null before the first view' })),
      vsize: Nullable(Type.Integer({ minimum: 0, description: 'Their total virtual size (vB)' })),
      full_resyncs: Type.Integer({ minimum: 0 }),
      polls: Type.Integer({ minimum: 0 }),
      gaps: Type.Integer({ minimum: 0, description: 'Notification sequences that skipped (each repaired by a poll)' }),
      projections: Type.Integer({ minimum: 0, description: 'Block projections computed since start' }),
    },
    { description: "The mirror of the node's mempool" },
  ),
  blocks: Type.Object(
    {
      tip_height: Nullable(Type.Integer({ minimum: 0 })),
      tip_hash: Nullable(Type.String()),
      last_24h_odds: Nullable(Type.Number({ description: "Percent of the last 144 blocks that are the pool's" })),
      last_7d_odds: Nullable(Type.Number({ description: "Percent of the last 1,008 blocks that are the pool's" })),
      odds_note: Nullable(Type.String({ description: 'Why the odds are unknown, when they are' })),
      recent: Type.Array(MinedBlockSummary, { description: 'The latest blocks the tracker read, newest first' }),
    },
    { description: 'The block tracker: the chain tip and whose the recent blocks are' },
  ),
  template: Type.Object(
    {
      following: Type.Union([Type.Literal('projection'), Type.Literal('node_template')], {
        description: "Whose next block the status answers use: the projection's, or the node's template while the two differ",
      }),
      checked_at: Nullable(Type.String({ format: 'date-time', description: 'When the last comparison was made; null before the first' })),
      checks: Type.Integer({ minimum: 0 }),
      last_error: Nullable(Type.String({ description: "The node's last getblocktemplate failure; null when the last one succeeded" })),
      template_txs: Nullable(Type.Integer({ minimum: 0, description: "Transactions in the node's template" })),
      projection_txs: Nullable(Type.Integer({ minimum: 0, description: "Transactions in the projection's next block" })),
      template_only: Nullable(Type.Integer({ minimum: 0, description: 'In the template, not in the projection' })),
      projection_only: Nullable(Type.Integer({ minimum: 0, description: 'In the projection, not in the template' })),
      agreement: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'The weight both hold, over the larger block' })),
    },
    { description: "The projection's next block against the node's own block template (getblocktemplate, at most every 30 s)" },
  ),
});
export type SynchroTableResponse = Static<typeof SynchroTableResponse>;
