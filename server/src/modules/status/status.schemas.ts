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

export const BumpAdvice = Type.Object({
  rate_to_beat: Type.Number({ description: 'The rate (sat/vB) the package must beat to enter the next block, the status answer\'s `rate_to_beat`: the market rate, or higher when the cheapest packages of the projected next block free too little room for its size' }),
  package: Type.Object({
    vsize: Type.Integer({ description: 'This transaction and the unconfirmed ancestors submitted here that the projection counts with it (those not already in the next block)' }),
    fee: Type.Integer({ description: 'sats (base fees)' }),
    ancestors: Type.Integer({ description: 'How many unconfirmed ancestors submitted here are counted' }),
    rate: Type.Number({ description: 'sat/vB' }),
  }),
  cpfp: Nullable(Type.Object({
    output: Type.String({ description: 'txid:vout of the output of this transaction a child would spend: its largest output that can pay for the child and that no child submitted here spends' }),
    output_value: Type.Integer({ description: 'sats' }),
    child_vsize: Type.Integer({ description: 'The child size assumed: one input spending that output (sized by its script type; P2WPKH-sized when unknown) and one P2WPKH output' }),
    child_fee: Type.Integer({ description: 'sats the child must pay' }),
    child_rate: Type.Number({ description: 'sat/vB' }),
    package_rate: Type.Number({ description: 'The package rate with the child (sat/vB)' }),
    rate_to_enter: Type.Number({ description: 'The rate (sat/vB) the package with the child must beat to enter the next block: the rate to beat for that larger size, so at least `rate_to_beat`' }),
    explanation: Type.String(),
  }, { description: 'null when no output is large enough to pay for a child' })),
  rbf: Nullable(Type.Object({
    fee: Type.Integer({ description: 'sats a replacement of the same vsize must pay at least (with the unconfirmed ancestors it keeps, the package must beat the rate that enters the next block)' }),
    rate: Type.Number({ description: 'sat/vB' }),
    vsize: Type.Integer({ description: 'The replacement size assumed: the original\'s' }),
    replaced_fees: Type.Integer({ description: 'sats paid by the transaction and its descendants submitted here, which a replacement evicts' }),
    bip125_minimum: Type.Integer({ description: 'BIP125 rules 3 and 4: the replaced fees plus the incremental relay fee for the replacement\'s vsize' }),
    feerate_diagram_minimum: Type.Optional(Type.Integer({ description: "On a pool node with Bitcoin Core 31's cluster mempool: the least fee that improves the feerate diagram of its cluster (the relatives submitted here), which that node requires of a replacement" })),
    binding: Type.Union([Type.Literal('bip125'), Type.Literal('rate_to_beat'), Type.Literal('feerate_diagram')], { description: 'Which minimum sets the fee' }),
    explanation: Type.String(),
  }, { description: 'null when the pool node would not let a replacement evict it: it neither signals BIP125 on its own inputs nor is version 3 (TRUC), and the node does not run full RBF' })),
  explanation: Type.String(),
}, { description: 'How to lift a transaction not competitive for the next block; null when it is, or is not in the mempool. The portal builds no transaction.' });
export type BumpAdvice = Static<typeof BumpAdvice>;

/** The Tx status response of docs/behaviour.md#data-shapes, with the mempool engine's position, rates and the pool's odds. */
export const StatusResponse = Type.Object({
  transaction: Type.Object({
    txid: Type.String(),
    weight: Nullable(Type.Integer()),
    fee: Nullable(Type.Integer({ description: 'sats (base fee)' })),
    size: Nullable(Type.Integer()),
    vsize: Nullable(Type.Integer({ description: "The node's sigop-adjusted virtual size" })),
    firstSeen: Nullable(Type.Integer({ description: 'Unix seconds the portal first accepted it (a failed attempt: when it was made); null for a transaction not submitted here' })),
    position: Type.Object({
      block: Nullable(Type.Integer({ description: '0 = in the next block the pool would build, 1 = the one after, …; null when not in the mempool or in no projected block' })),
      vsize: Nullable(Type.Integer({ description: 'vbytes from the start of its projected block up to and including it; null when an unconfirmed relative of it was not submitted here (the block alone is given)' })),
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
      replaced_by: Nullable(Type.String({ description: 'The txid of the transaction that replaced it, when the portal accepted that transaction; null when it was sent to the pool some other way (private until mined: the message then says "a transaction not submitted here")' })),
      message: Type.String(),
    }),
  ),
  last_24h_odds: Nullable(Type.Number({ description: 'Percent of the last 144 blocks mined by the pool' })),
  last_7d_odds: Nullable(Type.Number({ description: 'Percent of the last 1,008 blocks mined by the pool' })),
  odds_note: Nullable(Type.String({ description: 'Why the odds are unknown (null), e.g. the pool identification settings are blank; null when they are known' })),
  expected_next_block_seconds: Nullable(Type.Number({ description: "Expected wait for the pool's next block: 600 s ÷ its 24-hour share; null when it mined none" })),
  market_rate: Nullable(Type.Number({ description: 'The market rate (sat/vB): the lowest package rate in the projected next block when it is full, else the node\'s minimum; what a small transaction must beat (`rate_to_beat` counts this one\'s size)' })),
  rate_to_beat: Nullable(Type.Number({ description: 'The rate to beat for this transaction\'s size (sat/vB): what it, with the unconfirmed ancestors submitted here that are not already in the projected next block, must pay (strictly more) to enter that block. The market rate, or higher when the block\'s cheapest packages and free room are smaller than its package, which must push them out: the rate of the last one pushed. For one already in that block, the rate its package beats there. Null when it is not in the mempool' })),
  functional_rate: Nullable(Type.Number({ description: 'The package rate (sat/vB, base fees) at which block assembly would take it, counting only the unconfirmed relatives submitted here (its ancestors, and children that pay for it)' })),
  bump: Type.Optional(Nullable(BumpAdvice)),
  child_pays_for_parent: Type.Optional(Nullable(Type.Object({
    pays_for: Type.Array(Type.String(), { description: 'The txids of the parents this transaction paid for: they were below the minimum and entered the mempool with it' }),
    paid_by: Type.Array(Type.String(), { description: 'The txids of the children that paid for this transaction: it was below the minimum and entered the mempool with them' }),
    message: Type.String(),
  }, { description: 'Child pays for parent: set when this transaction entered the mempool below the minimum with a child paying for it, or is such a child; null otherwise' }))),
});
export type StatusResponse = Static<typeof StatusResponse>;
