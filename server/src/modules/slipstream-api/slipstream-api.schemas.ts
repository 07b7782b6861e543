import { Type, type Static } from 'typebox';
import { MAX_PACKAGE_COUNT } from '../submission/submission-rules.ts';
import { PolicyVerdict, StandardVerdict } from '../policy/policy.schemas.ts';
import { BumpAdvice, RemovalReason } from '../status/status.schemas.ts';
import { CallbackNotice, CallbackSecret, CallbackUrl } from '../submission/submission.schemas.ts';
import { QuoteIdField, QuoteSchema } from '../quotes/quotes.schemas.ts';
import { ReceiptField, ReceiptsField } from '../receipts/receipts.schemas.ts';

/**
 * Wire shapes of the Slipstream-compatible public API (`/api/*`): the field
 * names of the public service it mirrors ("Slipstream Beta API", spec
 * 0.1.0-beta) and of the clients written against it. Two error shapes, as
 * that service has: `{status: "error", message}` for submissions and
 * `{is_success: false, message}` for the reads.
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Rate = (description: string) => Type.Number({ description: `${description} (sat/vB)` });

const TxHex = Type.String({ description: 'Raw transaction hex, or a PSBT (base64, or the hex of its binary form) that the node finalizes' });
const ClientCode = Type.Optional(Type.String({ maxLength: 64, description: 'A client code: its discount lowers the rate to pay' }));
const Notice = Type.Optional(Type.String({ description: 'Why a client code gave no discount (unknown, inactive, not valid yet, expired)' }));

export const IsSuccessError = Type.Object({ is_success: Type.Literal(false), message: Type.String() });
export const StatusError = Type.Object({ status: Type.Literal('error'), message: Type.String() }, { additionalProperties: true });

export const RatesQuery = Type.Object({ client_code: ClientCode }, { additionalProperties: false });

export const RatesResponse = Type.Object(
  {
    market_rate: Rate("The rate that makes the pool's next block: the lowest package rate in the mempool engine's projection of it when it is full, else the node's relay minimum"),
    multiplier: Type.Number({ description: 'The pricing multiplier setting' }),
    multiplier_discount_percent: Type.Number({ description: "The client code's discount on the multiplier, 0-99; 0 without an active code" }),
    discounted_multiplier: Type.Number({ description: 'multiplier × (1 − multiplier_discount_percent / 100)' }),
    submit_fee_rate: Rate('The fee rate floor setting: no transaction is admitted below it, whatever the market'),
    slipstream_rate: Rate('market_rate × discounted_multiplier'),
    effective_rate: Rate('What a transaction must pay to be admitted here now: the higher of submit_fee_rate and slipstream_rate (the threshold /rest-api/submit-tx applies)'),
    notice: Notice,
    quote: Type.Optional(QuoteSchema),
  },
  {
    description:
      "The portal's pricing in the public service's terms. Here a transaction is admitted when its rate (with its unconfirmed ancestors, child pays for parent) reaches effective_rate = max(fee rate floor, market rate × multiplier × (1 − discount/100)).",
  },
);
export type RatesResponse = Static<typeof RatesResponse>;

export const SystemResponse = Type.Object({
  version: Type.String({ description: "The portal's version" }),
  chain_name: Type.String({ description: "'bitcoin' (mainnet), 'testnet', 'testnet4', 'signet' or 'regtest'" }),
  block_height: Type.Integer({ description: "The node's chain height" }),
  slipstream_fee_rate_floor: Rate('What a transaction without client code must pay now (effective_rate of /api/rates)'),
  fee_rate_floor: Rate('The fee rate floor setting (submit_fee_rate of /api/rates)'),
});

export const BlockInfoResponse = Type.Object({
  block_height: Type.Integer(),
  block_hash: Type.String({ description: 'The best block hash' }),
  block_time: Type.Integer({ description: "The best block's time, Unix seconds" }),
  fee_rate: Rate('The market rate (market_rate of /api/rates)'),
  submit_fee_rate: Rate('The fee rate floor setting'),
  effective_rate: Rate('What a transaction without client code must pay now'),
});

export const TransactionBody = Type.Object(
  {
    tx_hex: TxHex,
    client_code: ClientCode,
    quote_id: QuoteIdField,
    callback_url: CallbackUrl,
    skip_mempool_submission: Type.Optional(
      Type.Boolean({
        description:
          "true: judged as a submission (decoded, priced, the node's testmempoolaccept) but not sent to the mempool. Nothing is recorded: no submission, nothing in the Tx Puller or reports, no failure for staff; the request is in the audit trail like any other",
      }),
    ),
  },
  { additionalProperties: false },
);

export const TransactionResponse = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  message: Type.String({ description: 'On success the txid; on error why it was refused' }),
  notice: Notice,
  receipt: ReceiptField,
  callback_secret: CallbackSecret,
  callback_notice: CallbackNotice,
  /** Only with skip_mempool_submission, on success (the route's description says so). */
  standard: Type.Optional(StandardVerdict),
  /** The same per relay policy, with skip_mempool_submission. */
  policies: Type.Optional(Type.Array(PolicyVerdict)),
});

export const PackageBody = Type.Object(
  {
    tx_hexes: Type.Array(TxHex, { minItems: 2, maxItems: MAX_PACKAGE_COUNT, description: `2 to ${MAX_PACKAGE_COUNT} raw transactions, parents first` }),
    client_code: ClientCode,
    quote_id: QuoteIdField,
    callback_url: CallbackUrl,
  },
  { additionalProperties: false },
);

export const PackageMember = Type.Object({
  txid: Nullable(Type.String()),
  wtxid: Type.String(),
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  message: Type.String({ description: "'accepted', or why the node refused it" }),
});

export const PackageResponse = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  message: Type.String(),
  notice: Notice,
  receipts: ReceiptsField,
  callback_secret: CallbackSecret,
  callback_notice: CallbackNotice,
  package_msg: Type.Optional(Type.String({ description: "The node's verdict on the package" })),
  transactions: Type.Optional(Type.Array(PackageMember, { description: 'Each member the node judged, in package order' })),
  result: Type.Optional(Type.Object({}, { additionalProperties: true, description: "The node's submitpackage result as it gave it" })),
});

export const TxStatusQuery = Type.Object({ tx_id: Type.String({ minLength: 1, maxLength: 128, description: 'The txid' }) }, { additionalProperties: false });

export const TxStatusResponse = Type.Object({
  is_success: Type.Literal(true),
  tx_id: Type.String(),
  state: Type.Union([Type.Literal('in_mempool'), Type.Literal('confirmed'), Type.Literal('not_in_mempool')]),
  confirmed: Type.Boolean(),
  block_height: Nullable(Type.Integer()),
  block_hash: Nullable(Type.String()),
  block_time: Nullable(Type.Integer({ description: 'Unix seconds' })),
  fee: Nullable(Type.Integer({ description: 'sats' })),
  vsize: Nullable(Type.Integer()),
  weight: Nullable(Type.Integer()),
  first_seen: Nullable(Type.Integer({ description: 'Unix seconds' })),
  projected_block: Nullable(Type.Integer({ description: "0 = the pool's next block, 1 = the one after, …" })),
  rate_to_beat: Nullable(Rate("The rate to beat for this transaction's size: what it, with its unconfirmed ancestors submitted here that are not already in the projected next block, must pay (strictly more) to enter that block. The lowest package rate in that block when it is full (else the node minimum), or higher when its cheapest packages and free room are smaller than this package; status-check's rate_to_beat. Null when it is not in the mempool")),
  functional_rate: Nullable(Rate('Its package rate with the unconfirmed ancestors it needs')),
  last_24h_odds: Nullable(Type.Number({ description: 'Percent of the last 144 blocks mined by the pool' })),
  last_7d_odds: Nullable(Type.Number({ description: 'Percent of the last 1,008 blocks mined by the pool' })),
  expected_next_block_seconds: Nullable(Type.Number()),
  removal_reason: Nullable(RemovalReason),
  replaced_by: Nullable(Type.String()),
  bump_advice: Nullable(BumpAdvice),
});

export const MempoolTestsBody = Type.Object(
  { tx_hexes: Type.Array(TxHex, { minItems: 1, maxItems: MAX_PACKAGE_COUNT, description: 'Raw transactions, parents first' }) },
  { additionalProperties: false },
);

export const MempoolTestResult = Type.Object({
  txid: Nullable(Type.String()),
  wtxid: Nullable(Type.String()),
  allowed: Type.Boolean(),
  vsize: Nullable(Type.Integer()),
  fee: Nullable(Type.Integer({ description: 'sats' })),
  reject_reason: Nullable(Type.String()),
  standard: StandardVerdict,
  policies: Type.Array(PolicyVerdict, { description: 'Whether nodes would relay it, per relay policy (core, core-29, knots); empty when it was not tested' }),
});

export const MempoolTestsResponse = Type.Object({ is_success: Type.Literal(true), results: Type.Array(MempoolTestResult) });

export const ExplorerTxHex = Type.String({ description: 'The serialized transaction, witness included, in lowercase hex (text/plain)', pattern: '^[0-9a-f]+$' });

export const ExplorerTxParams = Type.Object({ txid: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'The txid' }) }, { additionalProperties: false });

export const ExplorerStatus = Type.Object(
  {
    confirmed: Type.Boolean(),
    block_height: Type.Optional(Type.Integer()),
    block_hash: Type.Optional(Type.String()),
    block_time: Type.Optional(Type.Integer({ description: 'Unix seconds' })),
  },
  { description: 'As block explorers (Esplora) answer it: the block fields only once confirmed' },
);

const ExplorerOutput = Type.Object({
  scriptpubkey: Type.String(),
  scriptpubkey_type: Type.String({ description: "Esplora's names: p2pkh, p2sh, v0_p2wpkh, v0_p2wsh, v1_p2tr, p2pk, op_return, anchor, empty or unknown" }),
  scriptpubkey_address: Type.Optional(Type.String()),
  value: Type.Integer({ description: 'sats' }),
});

export const ExplorerTx = Type.Object({
  txid: Type.String(),
  version: Type.Integer(),
  locktime: Type.Integer(),
  vin: Type.Array(
    Type.Object({
      txid: Type.String(),
      vout: Type.Integer(),
      // The output it spends, from the chain; null while that output is unconfirmed (the pool's mempool is private).
      prevout: Nullable(ExplorerOutput),
      scriptsig: Type.String(),
      witness: Type.Optional(Type.Array(Type.String())),
      is_coinbase: Type.Boolean(),
      sequence: Type.Integer(),
    }),
  ),
  vout: Type.Array(ExplorerOutput),
  size: Type.Integer(),
  weight: Type.Integer(),
  fee: Nullable(Type.Integer({ description: 'sats' })),
  status: ExplorerStatus,
});
