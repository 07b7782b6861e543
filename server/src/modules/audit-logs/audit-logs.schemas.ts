import { Type, type Static } from 'typebox';
import { DateRangeQueryProperties, ListResponse, PageQueryProperties } from '../../http/list-query.ts';

/** Wire shapes of the audit trail list (docs/behaviour.md#data-shapes "Audit log" and docs/behaviour.md#staff-calls "/rest-api/audits/list"). */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

// Enums rather than unions of literals: ajv then reports one "must be equal to
// one of the allowed values" instead of a failed constant per member.
const SourceType = (options: { description?: string } = {}) => Type.Enum(['Internal', 'External'], options);

export const AuditLogListQuery = Type.Object(
  {
    ...PageQueryProperties,
    ip_or_endpoint: Type.Optional(
      Type.String({
        maxLength: 512,
        description:
          'An IP address matches ip_address exactly; any other text matches endpoints containing it, ignoring case ' +
          "(e.g. 'submit' finds /rest-api/submit-tx and /rest-api/submit-package). Blank means no filter.",
      }),
    ),
    client_code: Type.Optional(Type.String({ maxLength: 64, description: 'Exact client code. Blank means no filter.' })),
    ...DateRangeQueryProperties,
    method: Type.Optional(
      Type.Enum(['All', ...HTTP_METHODS], { description: "HTTP method; 'All' or absent means any" }),
    ),
    is_success: Type.Optional(Type.Boolean({ description: 'true: successful requests only; false: failed only; absent: both' })),
    source_type: Type.Optional(SourceType({ description: 'Internal: signed-in staff whose token the portal verified; External: everyone else; absent: both' })),
  },
  { additionalProperties: false },
);
export type AuditLogListQuery = Static<typeof AuditLogListQuery>;

export const AuditLogRow = Type.Object({
  id: Type.Integer(),
  ip_address: Nullable(Type.String()),
  endpoint: Nullable(Type.String({ description: 'The path, without the query string' })),
  http_method: Nullable(Type.String()),
  client_code: Nullable(Type.String()),
  client_code_info: Nullable(
    Type.Object({
      client_name: Type.String(),
      discount_percentage: Type.Integer(),
    }, { description: 'The client the code was issued to; null when the code is not one of the discount codes' }),
  ),
  request_at: Type.String({ format: 'date-time' }),
  request_payload: Nullable(Type.String({ description: 'The body, or the query for a GET; secrets redacted, long values cut' })),
  response_payload: Nullable(Type.String()),
  response_time: Nullable(Type.Number({ description: 'Milliseconds' })),
  error_message: Nullable(Type.String()),
  source_type: Nullable(SourceType()),
  is_success: Type.Boolean(),
});
export type AuditLogRow = Static<typeof AuditLogRow>;

export const AuditLogListResponse = ListResponse(AuditLogRow);
export type AuditLogListResponse = Static<typeof AuditLogListResponse>;

export const AuditLogVerifyQuery = Type.Object(
  {
    anchor_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'A head_id an earlier verification answered (with anchor_hash)' })),
    anchor_hash: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'The head_hash it answered with it: the row must still have that hash' })),
  },
  { additionalProperties: false },
);
export type AuditLogVerifyQuery = Static<typeof AuditLogVerifyQuery>;

export const AuditLogVerifyResponse = Type.Object({
  status: Type.Literal('success'),
  ok: Type.Boolean({ description: 'True when every row up to the newest one chained is as it was written' }),
  verified: Type.Integer({ minimum: 0, description: 'Rows checked and found intact, in id order from the first' }),
  head_id: Nullable(Type.Integer({ description: 'The newest row the verification covers (rows written meanwhile are left for the next); null while the trail is empty' })),
  head_hash: Type.String({
    description:
      'SHA-256 of the chain up to head_id, in hex. Note both down outside the portal: anyone who can write to the database could recompute ' +
      'every hash, but a later verification with anchor_id and anchor_hash set to them fails if any row up to head_id changed.',
  }),
  first_broken_id: Type.Optional(Type.Integer({ description: 'When ok is false: the first row that fails (for rows removed at the end, the newest row written)' })),
  last_intact_id: Type.Optional(Nullable(Type.Integer({ description: 'When ok is false: the last row that verified before it' }))),
  reason: Type.Optional(
    Type.Union([Type.Literal('changed'), Type.Literal('removed'), Type.Literal('unchained'), Type.Literal('rewritten')], {
      description:
        'changed: the row does not match its hash; removed: rows before it (or at the end, or the anchor row) are missing; ' +
        'unchained: a row without a valid place in the chain (not written by the portal); rewritten: the anchor row no longer has anchor_hash (the chain was recomputed)',
    }),
  ),
  message: Type.Optional(Type.String()),
});
export type AuditLogVerifyResponse = Static<typeof AuditLogVerifyResponse>;
