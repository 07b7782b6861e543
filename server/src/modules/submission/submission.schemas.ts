import { Type, type Static } from 'typebox';
import { PolicyVerdict, StandardVerdict } from '../policy/policy.schemas.ts';
import { QuoteIdField, QuoteSchema } from '../quotes/quotes.schemas.ts';
import { MAX_QUOTE_ID_CHARS } from '../quotes/quote-token.ts';
import { ReceiptField, ReceiptsField } from '../receipts/receipts.schemas.ts';

/** Wire shapes of the public submission API (docs/behaviour.md#data-shapes and docs/behaviour.md#public-calls). One schema per shape. */

/** A 4,000,000 WU transaction is at most 4,000,000 bytes, so 8,000,000 hex characters. */
export const MAX_TX_HEX_CHARS = 8_000_000;

/**
 * Hex fields carry no maxLength: ajv counts length in code points, walking all
 * 8 million characters on the event loop. The route's bodyLimit bounds the
 * size, and the decoder refuses more than MAX_TX_HEX_CHARS with a clear message.
 */
const TxHex = Type.String({ description: `Raw transaction hex, at most ${MAX_TX_HEX_CHARS.toLocaleString('en-US')} characters, or a PSBT (base64, or the hex of its binary form) that the node finalizes` });

const ClientCode = Type.Optional(Type.String({ maxLength: 64, description: 'A client code for a discount' }));

/** Where to send the submission's events (docs/notifications.md). */
export const CallbackUrl = Type.Optional(
  Type.String({ maxLength: 2000, description: "https:// URL that receives a signed POST for each event of the transaction (accepted, mined, replaced, evicted, conflicted, unconfirmed); the answer's callback_secret signs them" }),
);

export const SubmitTxBody = Type.Object(
  {
    tx_hex: TxHex,
    client_code: ClientCode,
    quote_id: QuoteIdField,
    callback_url: CallbackUrl,
  },
  { additionalProperties: false },
);

const TxHexes = Type.Array(TxHex, { minItems: 1, maxItems: 100, description: 'Raw transaction hexes, parents before children' });

export const TxHexesBody = Type.Object(
  {
    tx_hexes: TxHexes,
    client_code: ClientCode,
    quote_id: Type.Optional(Type.String({ maxLength: MAX_QUOTE_ID_CHARS, description: 'A quote the preview is judged at while it holds, as a submission naming it would be (one that does not hold is left out here)' })),
  },
  { additionalProperties: false },
);

export const SubmitPackageBody = Type.Object(
  {
    tx_hexes: TxHexes,
    client_code: ClientCode,
    quote_id: QuoteIdField,
    callback_url: CallbackUrl,
  },
  { additionalProperties: false },
);

/** Present when the request gave a callback_url: shown this once. */
export const CallbackSecret = Type.Optional(Type.String({ description: "Signs every delivery to the request's callback_url (Slipstream-Signature header); shown only in this answer" }));

/** Present when the request gave a callback_url that was not subscribed (or, in a package, not for every member): the submission's own outcome is the rest of the answer. */
export const CallbackNotice = Type.Optional(
  Type.String({
    description:
      "Why the request's callback_url was not subscribed (for a package: which members, each sentence led by their txids): it already follows the transaction (its first secret still signs, and is not shown again), the transaction has 5 callback URLs, this client address started its day's share of subscriptions, or the database failed. The submission itself is answered as if no callback_url had been given",
  }),
);

const Notice = Type.Optional(Type.String({ description: 'Why a client code gave no discount' }));

export const SubmitResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String({ description: 'The txid' }),
  notice: Notice,
  receipt: ReceiptField,
  callback_secret: CallbackSecret,
  callback_notice: CallbackNotice,
});
export type SubmitResponse = Static<typeof SubmitResponse>;

const TxResult = Type.Object(
  {
    txid: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const PackageResult = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  message: Type.String(),
  notice: Notice,
  receipts: ReceiptsField,
  callback_secret: CallbackSecret,
  callback_notice: CallbackNotice,
  result: Type.Object(
    {
      package_msg: Type.String(),
      'tx-results': Type.Record(Type.String(), TxResult),
      'replaced-transactions': Type.Optional(Type.Array(Type.String())),
    },
    { additionalProperties: true },
  ),
});
export type PackageResult = Static<typeof PackageResult>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** A transaction already mined: public, as any block explorer shows it. */
export const Confirmed = Type.Object(
  { txid: Type.String(), block_height: Type.Integer(), block_hash: Type.String() },
  { description: 'The block that already holds this transaction (then nothing is left to submit)' },
);

export const ParsedTxItem = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  message: Type.String(),
  txid: Type.Optional(Type.String()),
  wtxid: Type.Optional(Type.String()),
  version: Type.Optional(Type.Integer()),
  locktime: Type.Optional(Type.Integer()),
  size: Type.Optional(Type.Integer()),
  vsize: Type.Optional(Type.Integer()),
  weight: Type.Optional(Type.Integer()),
  fee: Type.Optional(Nullable(Type.Integer({ description: 'sats' }))),
  fee_rate: Type.Optional(Nullable(Type.Number({ description: 'sat/vB' }))),
  functional_rate: Type.Optional(Nullable(Type.Number({ description: 'sat/vB, with unconfirmed ancestors' }))),
  meets_minimum_fee: Type.Optional(Nullable(Type.Boolean())),
  input_count: Type.Optional(Type.Integer()),
  output_count: Type.Optional(Type.Integer()),
  inputs: Type.Optional(Type.Array(Type.Object({ txid: Type.String(), vout: Type.Integer(), sequence: Type.Integer() }))),
  outputs: Type.Optional(Type.Array(Type.Object({ value: Type.Integer(), script_pubkey: Type.String() }))),
  psbt: Type.Optional(
    Type.Object(
      { stated_fee: Nullable(Type.Integer({ description: 'sats: the fee the PSBT states (its inputs\' UTXOs minus its outputs); null when it does not carry every UTXO' })) },
      { description: 'Present when the entry was a PSBT: the node finalized it and this item describes the extracted transaction' },
    ),
  ),
  confirmed: Type.Optional(Confirmed),
  standard: Type.Optional(StandardVerdict),
  policies: Type.Optional(Type.Array(PolicyVerdict, { description: "Whether nodes would relay it, per relay policy: Bitcoin Core 30+ ('core', what `standard` says), Core 29 and Knots with -corepolicy ('core-29'), Knots' defaults ('knots')" })),
  child_pays_for_parent: Type.Optional(Type.String({
    description:
      'How child pays for parent counts for it, in plain words: a child priced with the unconfirmed parents it pays for; a package member below the minimum that the members spending it pay for; or, for one below the minimum, how a child can still pay for it',
  })),
});
export type ParsedTxItem = Static<typeof ParsedTxItem>;

export const ParseResponse = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  message: Type.String(),
  notice: Notice,
  transactions: Type.Array(ParsedTxItem),
});
export type ParseResponse = Static<typeof ParseResponse>;

export const InfoResponse = Type.Object({
  block_height: Type.Integer(),
  network: Type.String({ description: "'mainnet', 'testnet', 'testnet4', 'signet' or 'regtest'" }),
  fee_rate: Type.Number({ description: 'The current minimum fee rate (sat/vB) for a submission without client code' }),
  quote: Type.Optional(QuoteSchema),
});

export const InfoQuery = Type.Object(
  { client_code: Type.Optional(Type.String({ maxLength: 64, description: "The quote is for this client code (its discount applied); fee_rate stays the minimum without one" })) },
  { additionalProperties: false },
);
