import { Type, type Static } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const StatusQuery = Type.Object(
  { tx_id: Type.String({ minLength: 1, maxLength: 128, description: 'The txid to look up' }) },
  { additionalProperties: false },
);

export const RemovalReason = Type.Union(
  [Type.Literal('replaced'), Type.Literal('conflicted'), Type.Literal('evicted'), Type.Literal('unknown')],
  {
    description:
      'replaced: another transaction spending the same inputs took its place (replace-by-fee); ' +
      'conflicted: a transaction spending the same inputs was mined; ' +
      'evicted: dropped (expired, or the mempool was full) with its inputs still unspent, so it can be submitted again; ' +
      'unknown: it left without being mined, and the portal holds too little of it to say why',
  },
);

/** The Tx status response of SPEC.md section 3, with the mempool engine's position, rates and the pool's odds. */
export const StatusResponse = Type.Object({
  transaction: Type.Object({
    txid: Type.String(),
    weight: Nullable(Type.Integer()),
    fee: Nullable(Type.Integer({ description: 'sats (base fee)' })),
    size: Nullable(Type.Integer()),
    vsize: Nullable(Type.Integer({ description: "The node's sigop-adjusted virtual size" })),
    firstSeen: Nullable(Type.Integer({ description: 'Unix seconds the node first saw it (for one no longer in the mempool: when it was submitted here)' })),
    position: Type.Object({
      block: Nullable(Type.Integer({ description: '0 = in the next block the pool would build, 1 = the one after, …; null when not in the mempool or in no projected block' })),
      vsize: Nullable(Type.Integer({ description: 'vbytes from the start of its projected block up to and including it' })),
    }),
    status: Type.Object({
      confirmed: Type.Boolean(),
      block_hash: Nullable(Type.String()),
      block_height: Nullable(Type.Integer()),
      block_time: Nullable(Type.Integer({ description: 'Unix seconds' })),
    }),
  }),
  state: Type.Union([Type.Literal('in_mempool'), Type.Literal('confirmed'), Type.Literal('not_in_mempool')], {
    description: 'not_in_mempool: it left the node\'s mempool without being mined (`removal` says why)',
  }),
  removal: Nullable(
    Type.Object({
      reason: RemovalReason,
      replaced_by: Nullable(Type.String({ description: 'The txid of the transaction that replaced it, when known' })),
      message: Type.String(),
    }),
  ),
  last_24h_odds: Nullable(Type.Number({ description: 'Percent of the last 144 blocks mined by the pool' })),
  last_7d_odds: Nullable(Type.Number({ description: 'Percent of the last 1,008 blocks mined by the pool' })),
  expected_next_block_seconds: Nullable(Type.Number({ description: "Expected wait for the pool's next block: 600 s ÷ its 24-hour share; null when it mined none" })),
  market_rate: Nullable(Type.Number({ description: 'The rate to beat (sat/vB): the lowest package rate in the projected next block when it is full, else the node\'s minimum' })),
  functional_rate: Nullable(Type.Number({ description: 'The package rate (sat/vB, with the unconfirmed ancestors it needs) at which the projection selects it' })),
});
export type StatusResponse = Static<typeof StatusResponse>;
