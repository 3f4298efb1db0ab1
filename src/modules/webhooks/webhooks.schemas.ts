import { Type, type Static } from 'typebox';
import { PlainText, StringEnum, Timestamp, Uuid } from '../../http/schemas.js';

/** The events a webhook may subscribe to; `webhook.test` is sent only by POST /webhooks/{id}/test. */
export const WEBHOOK_EVENTS = [
  'scan.finished',
  'scan.failed',
  'finding.high_risk',
  'field.confirmed',
  'field.level_changed',
  'license.expiring',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number] | 'webhook.test';
export const MAX_WEBHOOKS = 50;

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'Where events are POSTed: https, resolving to public addresses only (see FIELDLENS_WEBHOOK_ALLOW_HTTP / _PRIVATE)',
});
const Events = Type.Array(StringEnum(WEBHOOK_EVENTS), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
  description: 'The events to receive',
});
const Description = Type.Union([PlainText({ maxLength: 500 }), Type.Null()]);

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, enabled: Type.Optional(Type.Boolean()), description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const WebhookIdParams = Type.Object({ id: Uuid });

const webhookFields = {
  id: Uuid,
  url: Type.String(),
  events: Type.Array(StringEnum(WEBHOOK_EVENTS)),
  enabled: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
};
export const WebhookResponse = Type.Object(webhookFields);
export type WebhookResponse = Static<typeof WebhookResponse>;

export const CreatedWebhookResponse = Type.Object({
  ...webhookFields,
  secret: Type.String({
    description: 'The signing secret (whsec_ + base64 of 32 random bytes): shown this once, never again',
  }),
});
export type CreatedWebhookResponse = Static<typeof CreatedWebhookResponse>;

export const WebhookListResponse = Type.Object({ items: Type.Array(WebhookResponse) });
export type WebhookListResponse = Static<typeof WebhookListResponse>;

export const DeliveryResponse = Type.Object({
  id: Type.String({ description: 'The webhook-id header of the message' }),
  event: Type.String(),
  status: StringEnum(['pending', 'delivered', 'failed'] as const),
  attempts: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  delivered_at: Type.Union([Timestamp, Type.Null()]),
});
export type DeliveryResponse = Static<typeof DeliveryResponse>;

export const DeliveryListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const DeliveryListResponse = Type.Object({
  items: Type.Array(DeliveryResponse),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type DeliveryListResponse = Static<typeof DeliveryListResponse>;
