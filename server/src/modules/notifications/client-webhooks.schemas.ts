import { Type } from 'typebox';

/** Wire shapes of a client's webhook on the Clients screen (staff API). */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const ClientWebhook = Type.Object({
  client_id: Type.Integer(),
  url: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const ClientWebhookResponse = Type.Object({ webhook: Nullable(ClientWebhook) });

export const SetClientWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000, description: 'https:// (or http://) URL that receives the events of every submission made with this client\'s codes' }),
    rotate_secret: Type.Optional(Type.Boolean({ description: 'Make a new signing secret (the old one stops signing at once)' })),
  },
  { additionalProperties: false },
);

export const SetClientWebhookResponse = Type.Object({
  webhook: ClientWebhook,
  // Named `secret` so that the audit trail redacts it: it is shown in this answer only.
  secret: Type.Optional(Type.String({ description: 'The signing secret, present when it is new: shown this once' })),
});

export const WebhookDeliveryRow = Type.Object({
  id: Type.Integer(),
  txid: Type.String(),
  event: Type.String(),
  url: Type.String(),
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  last_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  last_attempt_at: Nullable(Type.String({ format: 'date-time' })),
  delivered_at: Nullable(Type.String({ format: 'date-time' })),
});

export const WebhookDeliveriesQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);

export const WebhookDeliveriesResponse = Type.Object({
  result: Type.Array(WebhookDeliveryRow),
  total: Type.Integer(),
});

export const DeliveryParams = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, description: "The client's id" }),
    deliveryId: Type.Integer({ minimum: 1, description: "The delivery's id" }),
  },
  { additionalProperties: false },
);
