import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import {
  CreatedWebhookResponse,
  CreateWebhookBody,
  DeliveryListQuery,
  DeliveryListResponse,
  DeliveryResponse,
  UpdateWebhookBody,
  WebhookIdParams,
  WebhookListResponse,
  WebhookResponse,
} from './webhooks.schemas.js';

const URL_RULES =
  'The URL must be https and resolve to public addresses only (no loopback, private, link-local, CGNAT or metadata address): 400 for a URL that is not https, 422 for one resolving elsewhere, ' +
  'unless FIELDLENS_WEBHOOK_ALLOW_HTTP / FIELDLENS_WEBHOOK_ALLOW_PRIVATE are on.';
const DELIVERY =
  'Each event is POSTed as {type, timestamp, data} with the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">); ' +
  'a non-2xx answer, a redirect or no answer within 10 s is retried with exponential backoff (first retry within 30 s) for up to 24 h, then the delivery is failed.';

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { webhooks } = services;

  app.get(
    '/webhooks',
    {
      config: { access: 'webhook:write' },
      schema: {
        summary: 'List webhooks',
        description: 'Every webhook; the signing secrets are never shown again.',
        tags: ['webhooks'],
        response: { 200: WebhookListResponse },
      },
    },
    async () => webhooks.listWebhooks(),
  );

  app.post(
    '/webhooks',
    {
      config: { access: 'webhook:write' },
      schema: {
        summary: 'Create a webhook',
        description: `${URL_RULES} The answer holds the signing secret (whsec_…), shown this once. ${DELIVERY} 409 beyond 50 webhooks. Audit-logged as webhook.created.`,
        tags: ['webhooks'],
        body: CreateWebhookBody,
        response: { 201: CreatedWebhookResponse },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.createWebhook(callerOf(request), request.body)),
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { access: 'webhook:write' },
      schema: {
        summary: 'Change a webhook',
        description: `Any of url, events, enabled, description. ${URL_RULES} Audit-logged as webhook.updated with before and after.`,
        tags: ['webhooks'],
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookResponse },
      },
    },
    async (request) => webhooks.updateWebhook(callerOf(request), request.params.id, request.body),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { access: 'webhook:write' },
      schema: {
        summary: 'Delete a webhook',
        description: 'With its delivery log; pending deliveries are not sent. Audit-logged as webhook.deleted.',
        tags: ['webhooks'],
        params: WebhookIdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await webhooks.deleteWebhook(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { access: 'webhook:write' },
      schema: {
        summary: "List a webhook's deliveries",
        description: `Newest first, a page at a time (next_cursor). ${DELIVERY}`,
        tags: ['webhooks'],
        params: WebhookIdParams,
        querystring: DeliveryListQuery,
        response: { 200: DeliveryListResponse },
      },
    },
    async (request) => webhooks.listDeliveries(request.params.id, request.query),
  );

  app.post(
    '/webhooks/:id/test',
    {
      config: { access: 'webhook:write' },
      schema: {
        summary: 'Send a test event',
        description:
          'Queues a webhook.test event for this webhook (sent within a second or two while it is enabled); the answer is the delivery, to follow in the log.',
        tags: ['webhooks'],
        params: WebhookIdParams,
        response: { 202: DeliveryResponse },
      },
    },
    async (request, reply) => reply.code(202).send(await webhooks.sendTest(callerOf(request), request.params.id)),
  );
};
