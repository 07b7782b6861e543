import { Type, type Static } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const StatusQuery = Type.Object(
  { tx_id: Type.String({ minLength: 1, maxLength: 128, description: 'The txid to look up' }) },
  { additionalProperties: false },
);

/** The Tx status response of SPEC.md section 3. Fields the mempool engine fills later are null for now. */
export const StatusResponse = Type.Object({
  transaction: Type.Object({
    txid: Type.String(),
    weight: Nullable(Type.Integer()),
    fee: Nullable(Type.Integer({ description: 'sats' })),
    size: Nullable(Type.Integer()),
    vsize: Nullable(Type.Integer()),
    firstSeen: Nullable(Type.Integer({ description: 'Unix seconds the node first saw it' })),
    position: Type.Object({
      block: Nullable(Type.Integer({ description: '0 = in the next block the pool would build' })),
      vsize: Nullable(Type.Integer({ description: 'vbytes ahead of it in its projected block' })),
    }),
    status: Type.Object({
      confirmed: Type.Boolean(),
      block_hash: Nullable(Type.String()),
      block_height: Nullable(Type.Integer()),
      block_time: Nullable(Type.Integer({ description: 'Unix seconds' })),
    }),
  }),
  state: Type.Union([Type.Literal('in_mempool'), Type.Literal('confirmed'), Type.Literal('not_in_mempool')], {
    description: 'not_in_mempool: recorded by the portal but no longer in the node\'s mempool (replaced or evicted)',
  }),
  last_24h_odds: Nullable(Type.Number()),
  last_7d_odds: Nullable(Type.Number()),
  market_rate: Nullable(Type.Number({ description: 'The rate to beat (sat/vB)' })),
  functional_rate: Nullable(Type.Number({ description: 'The rate it is mined at with its unconfirmed ancestors (sat/vB)' })),
});
export type StatusResponse = Static<typeof StatusResponse>;
