import { Type, type Static } from 'typebox';
import { DateRangeQueryProperties, ListResponse, PageQueryProperties } from '../../http/list-query.ts';
import { SHORT_HEX_DESCRIPTION } from '../failed-txs/short-hex.ts';

/**
 * Wire shapes of the Tx Puller (docs/behaviour.md#tx-puller, docs/behaviour.md#data-shapes "Puller
 * row", docs/behaviour.md#staff-calls "/rest-api/tx-puller/list"; default submission_type
 * tx_submissions). Only transactions the node accepted are listed: a
 * submission still 'pending' with the node is not.
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const SUBMISSION_TYPES = ['tx_submissions', 'package_submissions'] as const;
export type SubmissionType = (typeof SUBMISSION_TYPES)[number];

/** The filters the puller and the reports share (the same submissions, seen two ways). */
export const SubmissionFilterProperties = {
  client_code: Type.Optional(Type.String({ maxLength: 64, description: 'Exact client code. Blank means no filter.' })),
  txid: Type.Optional(
    Type.String({
      maxLength: 128,
      description: 'A transaction id or its start, any case; a package matches when it holds such a transaction. Blank means no filter.',
    }),
  ),
  ...DateRangeQueryProperties,
  download: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: every matching row (page and limit ignored) as a CSV attachment instead of a page of JSON',
    }),
  ),
};

export const TxPullerQuery = Type.Object(
  {
    ...PageQueryProperties,
    ...SubmissionFilterProperties,
    submission_type: Type.Optional(
      Type.Enum([...SUBMISSION_TYPES], { default: 'tx_submissions', description: 'Single transactions (default) or packages' }),
    ),
  },
  { additionalProperties: false },
);
export type TxPullerQuery = Static<typeof TxPullerQuery>;

const common = {
  id: Type.Integer(),
  client_code: Nullable(Type.String()),
  timestamp: Type.String({ format: 'date-time', description: 'When it was submitted' }),
};

export const PulledTx = Type.Object({
  ...common,
  txid: Type.String(),
  tx_hex: Type.String({ description: `The raw transaction, ${SHORT_HEX_DESCRIPTION} (the download carries it whole; so does GET /rest-api/tx-puller/{id}/hex)` }),
  tx_hex_length: Type.Integer({ minimum: 0, description: 'How many characters the whole tx_hex has' }),
  tx_size: Nullable(Type.Integer({ description: 'Virtual size, vB' })),
  fee_rate: Type.Number({ description: 'sat/vB' }),
  total_fee: Type.Integer({ description: 'sats' }),
  multiplier: Type.Number({ description: 'The slipstream multiple: fee rate over the market rate when submitted' }),
});
export type PulledTx = Static<typeof PulledTx>;

export const PulledPackage = Type.Object({
  ...common,
  txids: Type.Array(Type.String(), { description: 'The members the node accepted, in package order' }),
  txs_hex: Type.Array(Type.String(), { description: `Each member's raw transaction, in order, each ${SHORT_HEX_DESCRIPTION} (the download carries them whole; so does GET /rest-api/tx-puller/{id}/hex)` }),
  txs_hex_length: Type.Array(Type.Integer({ minimum: 0 }), { description: 'How many characters each whole member hex has' }),
  tx_size: Nullable(Type.Integer({ description: 'Total virtual size, vB' })),
  fee_rate: Nullable(Type.Number({ description: 'sat/vB over the whole package' })),
  total_fee: Nullable(Type.Integer({ description: 'sats' })),
  multiplier: Nullable(Type.Number()),
});
export type PulledPackage = Static<typeof PulledPackage>;

export const TxPullerListResponse = ListResponse(Type.Union([PulledTx, PulledPackage]));
export type TxPullerListResponse = Static<typeof TxPullerListResponse>;

export const PulledHexParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }, { additionalProperties: false });
export type PulledHexParams = Static<typeof PulledHexParams>;

export const PulledHexQuery = Type.Object(
  { submission_type: Type.Optional(Type.Enum([...SUBMISSION_TYPES], { default: 'tx_submissions', description: 'Which table the id is in: single transactions (default) or packages' })) },
  { additionalProperties: false },
);
export type PulledHexQuery = Static<typeof PulledHexQuery>;

export const PulledHexResponse = Type.Object({
  id: Type.Integer(),
  txids: Type.Array(Type.String(), { description: 'The transaction, or the package members, in order' }),
  txs_hex: Type.Array(Type.String(), { description: 'Each one whole, in the same order' }),
});
export type PulledHexResponse = Static<typeof PulledHexResponse>;

export const PULLED_TX_NOT_FOUND_MESSAGE = 'No accepted submission with that id.';
