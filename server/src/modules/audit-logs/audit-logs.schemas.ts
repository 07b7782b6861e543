import { Type, type Static } from 'typebox';
import { DateRangeQueryProperties, ListResponse, PageQueryProperties } from '../../http/list-query.ts';

/** Wire shapes of the audit trail list (SPEC.md sections 3 "Audit log" and 7 "/rest-api/audits/list"). */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

// Enums rather than unions of literals: ajv then reports one "must be equal to
// one of the allowed values" instead of a failed constant per member.
const SourceType = (options: { description?: string } = {}) => Type.Enum(['Internal', 'External'], options);

export const AuditListQuery = Type.Object(
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
    source_type: Type.Optional(SourceType({ description: "Internal: the portal's web app and signed-in staff; External: everyone else; absent: both" })),
  },
  { additionalProperties: false },
);
export type AuditListQuery = Static<typeof AuditListQuery>;

export const AuditRow = Type.Object({
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
export type AuditRow = Static<typeof AuditRow>;

export const AuditListResponse = ListResponse(AuditRow);
export type AuditListResponse = Static<typeof AuditListResponse>;
