import { Type, type Static } from 'typebox';
import { ListResponse, PageQueryProperties } from '../../http/list-query.ts';
import { SubmissionFilterProperties } from '../tx-puller/tx-puller.schemas.ts';

/**
 * Wire shapes of TX Reports (docs/behaviour.md#tx-reports, docs/behaviour.md#data-shapes "Tx report
 * row" and docs/behaviour.md#staff-calls "/rest-api/tx-reports/list"): one row per accepted single
 * transaction and one per package, newest first, with what each earned.
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const TxReportQuery = Type.Object(
  {
    ...PageQueryProperties,
    ...SubmissionFilterProperties,
  },
  { additionalProperties: false },
);
export type TxReportQuery = Static<typeof TxReportQuery>;

export const TxReportRow = Type.Object({
  id: Type.String({ description: "Unique within the report: 'tx-{id}' or 'package-{id}'" }),
  kind: Type.Enum(['tx', 'package']),
  timestamp: Type.String({ format: 'date-time', description: 'When it was submitted' }),
  txid: Type.Union([Type.String(), Type.Array(Type.String())], { description: "The transaction's id; for a package, its members' ids" }),
  client_code: Nullable(Type.String()),
  size_bytes: Nullable(Type.Integer({ description: 'Virtual size, vB (a package: the total)' })),
  fee_rate: Nullable(Type.Number({ description: 'sat/vB' })),
  slipstream_multiplier: Nullable(Type.Number({ description: 'fee_rate over the market rate when submitted' })),
  revenue: Nullable(Type.Integer({ description: 'The fee, sats' })),
  premium: Nullable(
    Type.Integer({
      minimum: 0,
      description: 'What the fee pays above the market: max(0, fee − round(market rate × vsize)), sats; null when the market rate was not recorded',
    }),
  ),
  public_network: Nullable(
    Type.String({
      description: "Whether the public network (Bitcoin Core 30 and later, its default policy) would have relayed it when it was accepted: 'standard', 'non-standard: <Core's reject code>' or 'unknown' (a package: non-standard when any member is); null when not judged (submissions from before the policy oracle)",
    }),
  ),
  public_network_by_policy: Nullable(
    Type.String({
      description: "The same per relay policy, in one line: 'core: standard; core-29: non-standard (scriptpubkey); knots: unknown'; null when not judged that way (submissions from before it)",
    }),
  ),
});
export type TxReportRow = Static<typeof TxReportRow>;

export const TxReportListResponse = ListResponse(TxReportRow);
export type TxReportListResponse = Static<typeof TxReportListResponse>;
