import { Type } from 'typebox';

/** Wire shapes of the Clients screen's API keys (staff API). */

export const ApiKeyParams = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, description: "The client's id" }),
    keyId: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, description: "The key's id" }),
  },
  { additionalProperties: false },
);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const ApiKeyRow = Type.Object({
  id: Type.Integer(),
  client_id: Type.Integer(),
  key_prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  created_by: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
  revoked_by: Nullable(Type.String()),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
});

export const ApiKeyListResponse = Type.Object({ result: Type.Array(ApiKeyRow) });

export const IssuedApiKeyResponse = Type.Object({
  // Named `secret` so that the audit trail redacts it (audit/audit-payload.ts): the key exists nowhere but in this answer.
  secret: Type.String({ description: 'The key itself: shown this once, never again (only its hash is kept); send it as `Authorization: Bearer <key>`' }),
  api_key: ApiKeyRow,
});
