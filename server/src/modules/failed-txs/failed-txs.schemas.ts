import { Type, type Static } from 'typebox';
import { DateRangeQueryProperties, ListResponse, PageQueryProperties } from '../../http/list-query.ts';
import { SHORT_HEX_DESCRIPTION } from './short-hex.ts';

/**
 * Wire shapes of the Failed Transactions screen (docs/behaviour.md#failed-transactions, docs/behaviour.md#data-shapes "Failed tx row" and "Payloads", docs/behaviour.md#staff-calls:
 * /rest-api/txs/view and /rest-api/retry-txs/update).
 */

/** docs/behaviour.md#failed-transactions: the list shows open failures, Failed by default or Timeout. */
export const FAILED_TX_STATUSES = ['Failed', 'Timeout'] as const;
export type FailedTxStatus = (typeof FAILED_TX_STATUSES)[number];
export const DEFAULT_FAILED_TX_STATUS: FailedTxStatus = 'Failed';

/**
 * The most ids one retry request takes. Select-all can pick more than this;
 * the dashboard then sends them in several requests of at most this many.
 */
export const MAX_RETRY_IDS = 10_000;

export const FailedTxListQuery = Type.Object(
  {
    ...PageQueryProperties,
    // An enum rather than a union of literals: ajv then reports one "must be equal to one of the allowed values".
    tx_status: Type.Optional(Type.Enum([...FAILED_TX_STATUSES], { default: DEFAULT_FAILED_TX_STATUS, description: 'Which open failures: Failed (the default) or Timeout' })),
    txid: Type.Optional(
      Type.String({ maxLength: 128, description: 'A transaction id or its start, in either case (for a package, the id of its last transaction). Blank means no filter.' }),
    ),
    client_code: Type.Optional(Type.String({ maxLength: 64, description: 'Exact client code the submission carried. Blank means no filter.' })),
    ...DateRangeQueryProperties,
  },
  { additionalProperties: false },
);
export type FailedTxListQuery = Static<typeof FailedTxListQuery>;

export const FailedTxRow = Type.Object({
  id: Type.Integer(),
  txid: Type.String({ description: 'The transaction id; for a package, the id of its last transaction' }),
  tx_hex: Type.String({ description: `The raw transaction (for a package, its last transaction), ${SHORT_HEX_DESCRIPTION}; the whole of it from GET /rest-api/txs/{id}/hex` }),
  tx_hex_length: Type.Integer({ minimum: 0, description: 'How many characters the whole tx_hex has' }),
  client_code: Type.Union([Type.String(), Type.Null()]),
  timestamp: Type.String({ format: 'date-time', description: 'When the submission first failed' }),
  errors: Type.Array(Type.String(), {
    description: "Why each attempt failed, oldest first: a node's refusal in plain words followed by the node's own, '(node: code, details)'; other errors as they were",
  }),
  submission_type: Type.Enum(['tx', 'package']),
  attempts: Type.Integer({ minimum: 0, description: 'How many times the submission failed' }),
  status: Type.Enum([...FAILED_TX_STATUSES]),
});
export type FailedTxRow = Static<typeof FailedTxRow>;

const FailedTxPage = ListResponse(FailedTxRow);

export const FailedTxListResponse = Type.Object({
  ...FailedTxPage.properties,
  ids: Type.Array(Type.Integer(), { description: 'Every id matching the filters, over all pages, newest first (for select-all)' }),
});
export type FailedTxListResponse = Static<typeof FailedTxListResponse>;

export const FailedTxRetryBody = Type.Object(
  {
    ids: Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
      minItems: 1,
      maxItems: MAX_RETRY_IDS,
      description: `The failed transactions to retry, 1 to ${MAX_RETRY_IDS} ids; repeats count once`,
    }),
  },
  { additionalProperties: false },
);
export type FailedTxRetryBody = Static<typeof FailedTxRetryBody>;

export const RETRY_SUCCESS_MESSAGE = 'Transactions updated successfully!';

export const FailedTxRetryResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  queued: Type.Integer({ minimum: 0, description: 'Transactions moved from Failed or Timeout into retry, each with a retry job queued' }),
  skipped: Type.Integer({ minimum: 0, description: 'Ids left as they were: unknown, already retrying, or resolved' }),
});
export type FailedTxRetryResponse = Static<typeof FailedTxRetryResponse>;

export const FailedTxHexParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The failed transaction row id' }) }, { additionalProperties: false });
export type FailedTxHexParams = Static<typeof FailedTxHexParams>;

export const FailedTxHexResponse = Type.Object({
  id: Type.Integer(),
  txid: Type.String(),
  tx_hex: Type.String({ description: 'The whole raw transaction; for a package, its last transaction' }),
  tx_hexes: Type.Union([Type.Array(Type.String()), Type.Null()], { description: "A package's members, whole, in order; null for a single transaction" }),
});
export type FailedTxHexResponse = Static<typeof FailedTxHexResponse>;

export const FAILED_TX_NOT_FOUND_MESSAGE = 'No failed transaction with that id.';
