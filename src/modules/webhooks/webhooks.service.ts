/**
 * Webhooks: subscriptions (CRUD, audited), the events other modules emit through `WebhookEvents` (a delivery row per
 * enabled subscribed webhook, written in the event's own transaction so a committed event is never lost and a rolled
 * back one never sent), the delivery log and the test event. Delivery itself is the worker's (webhook-worker.ts).
 * The signing secret is shown once, on creation, and stored sealed with the service's secret key.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Database, Tx } from '../../db/database.js';
import type { WebhookDeliveryRow, WebhookRow } from '../../db/schema.js';
import type { Caller } from '../../http/access.js';
import { AppError, notFound, unprocessable } from '../../http/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  checkWebhookUrl,
  parseWebhookUrl,
  WebhookUrlRefused,
  type AddressPolicy,
  type Resolver,
} from './webhook-address.js';
import { newWebhookSecret } from './webhook-sender.js';
import * as repo from './webhooks.repository.js';
import {
  MAX_WEBHOOKS,
  WEBHOOK_EVENTS,
  type CreateWebhookBody,
  type CreatedWebhookResponse,
  type DeliveryListQuery,
  type DeliveryListResponse,
  type DeliveryResponse,
  type UpdateWebhookBody,
  type WebhookEventType,
  type WebhookListResponse,
  type WebhookResponse,
} from './webhooks.schemas.js';

export type { WebhookEventType } from './webhooks.schemas.js';

/** An event as a module emits it: its type and its data (ids and classifications, never sample values or secrets). */
export interface WebhookEvent {
  type: WebhookEventType;
  data: Record<string, unknown>;
}

/** What other modules emit events through (injected as this interface, so they know nothing else of webhooks). */
export interface WebhookEvents {
  /** Queues the events for every enabled webhook subscribed to them, in the caller's transaction. */
  emit(trx: Tx, events: readonly WebhookEvent[]): Promise<void>;
}

/** Emits nothing: for services built without webhooks (tools, tests of one module). */
export const NO_WEBHOOK_EVENTS: WebhookEvents = { emit: async () => undefined };

export interface WebhooksServiceDeps {
  database: Database;
  clock: Clock;
  audit: AuditService;
  secretBox: SecretBox | undefined;
  policy: AddressPolicy;
  /** DNS resolution (tests give names their own answers). */
  resolve?: Resolver;
}

const NO_SECRET_KEY =
  'Webhook signing secrets cannot be stored: the service has no secret key (set FIELDLENS_SECRET_KEY or FIELDLENS_SECRET_KEY_FILE)';

export class WebhooksService implements WebhookEvents {
  constructor(private readonly deps: WebhooksServiceDeps) {}

  private get db() {
    return this.deps.database.db;
  }

  async listWebhooks(): Promise<WebhookListResponse> {
    return { items: (await repo.listWebhooks(this.db)).map(toResponse) };
  }

  /** 400/422 for a URL that may not be used (scheme, credentials, an address that is not public); 409 beyond MAX_WEBHOOKS. */
  async createWebhook(caller: Caller, body: CreateWebhookBody): Promise<CreatedWebhookResponse> {
    const box = this.deps.secretBox;
    if (!box) throw unprocessable(NO_SECRET_KEY);
    await this.checkUrl(body.url);
    const id = randomUUID();
    const secret = newWebhookSecret();
    const now = this.deps.clock.now().toISOString();
    const row = await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.webhooks');
      if ((await repo.countWebhooks(trx)) >= MAX_WEBHOOKS)
        throw new AppError('conflict', `At most ${MAX_WEBHOOKS} webhooks: delete one first`);
      const inserted = await repo.insertWebhook(trx, {
        id,
        url: body.url,
        events: JSON.stringify(body.events),
        enabled: body.enabled === false ? 0 : 1,
        description: body.description ?? null,
        secret: box.encrypt(secret, id),
        created_by: caller.id,
        created_at: now,
        updated_at: now,
      });
      await this.deps.audit.record(trx, caller, {
        action: 'webhook.created',
        targetType: 'webhook',
        targetId: id,
        details: { webhook: auditView(inserted) },
      });
      return inserted;
    });
    return { ...toResponse(row), secret };
  }

  /** Any of url, events, enabled, description; a new URL is checked like a new webhook's. */
  async updateWebhook(caller: Caller, id: string, body: UpdateWebhookBody): Promise<WebhookResponse> {
    if (body.url !== undefined) await this.checkUrl(body.url);
    const row = await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.webhooks');
      const before = await repo.findWebhook(trx, id);
      if (!before) throw notFound(`Webhook ${id}`);
      const updated = await repo.updateWebhook(trx, id, {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.events !== undefined ? { events: JSON.stringify(body.events) } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled ? 1 : 0 } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        updated_at: this.deps.clock.now().toISOString(),
      });
      await this.deps.audit.record(trx, caller, {
        action: 'webhook.updated',
        targetType: 'webhook',
        targetId: id,
        details: { before: auditView(before), after: auditView(updated) },
      });
      return updated;
    });
    return toResponse(row);
  }

  /** Deletes the webhook and its delivery log (pending deliveries are not sent). */
  async deleteWebhook(caller: Caller, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.webhooks');
      const before = await repo.findWebhook(trx, id);
      if (!before) throw notFound(`Webhook ${id}`);
      await repo.deleteWebhook(trx, id);
      await this.deps.audit.record(trx, caller, {
        action: 'webhook.deleted',
        targetType: 'webhook',
        targetId: id,
        details: { webhook: auditView(before) },
      });
    });
  }

  /** The webhook's deliveries, newest first, a page at a time. */
  async listDeliveries(id: string, query: DeliveryListQuery): Promise<DeliveryListResponse> {
    if (!(await repo.findWebhook(this.db, id))) throw notFound(`Webhook ${id}`);
    const limit = query.limit ?? 50;
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await repo.listDeliveries(this.db, id, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toDeliveryResponse),
      next_cursor: rows.length > limit && last ? encodeCursor(last) : null,
    };
  }

  /** Queues a `webhook.test` event for this webhook alone (enabled or not: a disabled one keeps it until enabled). */
  async sendTest(caller: Caller, id: string): Promise<DeliveryResponse> {
    const webhook = await repo.findWebhook(this.db, id);
    if (!webhook) throw notFound(`Webhook ${id}`);
    const now = this.deps.clock.now().toISOString();
    const deliveryId = `msg_${randomUUID()}`;
    await this.db.transaction().execute(async (trx) => {
      await repo.insertDeliveries(trx, [
        deliveryRow(
          deliveryId,
          id,
          { type: 'webhook.test', data: { webhook_id: id, requested_by: caller.username } },
          now,
        ),
      ]);
    });
    return toDeliveryResponse((await repo.findDelivery(this.db, deliveryId)) as WebhookDeliveryRow);
  }

  /** Queues the events for every enabled webhook subscribed to them, in the caller's transaction. */
  async emit(trx: Tx, events: readonly WebhookEvent[]): Promise<void> {
    if (events.length === 0) return;
    const subscriptions = await repo.enabledSubscriptions(trx);
    if (subscriptions.length === 0) return;
    const now = this.deps.clock.now().toISOString();
    const rows = [];
    for (const s of subscriptions) {
      const wanted = new Set(parseEvents(s.events));
      for (const event of events)
        if (wanted.has(event.type)) rows.push(deliveryRow(`msg_${randomUUID()}`, s.id, event, now));
    }
    await repo.insertDeliveries(trx, rows);
  }

  /** Deliveries by status (monitoring). */
  async countDeliveriesByStatus(): Promise<Map<string, number>> {
    return repo.countDeliveriesByStatus(this.db);
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      parseWebhookUrl(url, this.deps.policy);
    } catch (error) {
      if (error instanceof WebhookUrlRefused)
        throw new AppError('validation_failed', error.message, { errors: [{ path: '/url', message: error.message }] });
      throw error;
    }
    try {
      await checkWebhookUrl(url, this.deps.policy, this.deps.resolve);
    } catch (error) {
      if (error instanceof WebhookUrlRefused)
        throw unprocessable(error.message, [{ path: '/url', message: error.message }]);
      throw error;
    }
  }
}

function deliveryRow(id: string, webhookId: string, event: WebhookEvent, now: string) {
  return {
    id,
    webhook_id: webhookId,
    event: event.type,
    payload: JSON.stringify({ type: event.type, timestamp: now, data: event.data }),
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
  };
}

function parseEvents(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((e): e is string => typeof e === 'string') : [];
  } catch {
    return [];
  }
}

function toResponse(row: WebhookRow): WebhookResponse {
  const known = new Set<string>(WEBHOOK_EVENTS);
  return {
    id: row.id,
    url: row.url,
    events: parseEvents(row.events).filter((e) => known.has(e)) as WebhookResponse['events'],
    enabled: row.enabled === 1,
    description: row.description,
    created_at: row.created_at,
  };
}

/**
 * What the audit log keeps of a webhook: never its secret, and of its URL only the origin and a fingerprint — a
 * receiver's URL often carries its own credential in the path or query (chat and incident tools' incoming webhooks).
 */
function auditView(row: WebhookRow): Record<string, unknown> {
  let origin: string;
  try {
    origin = new URL(row.url).origin;
  } catch {
    origin = '';
  }
  const fingerprint = createHash('sha256').update(row.url).digest('hex').slice(0, 16);
  return {
    url_origin: origin,
    url_sha256: fingerprint,
    events: parseEvents(row.events),
    enabled: row.enabled === 1,
    description: row.description,
  };
}

function toDeliveryResponse(row: WebhookDeliveryRow): DeliveryResponse {
  return {
    id: row.id,
    event: row.event,
    status: row.status,
    attempts: Number(row.attempts),
    last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}

function encodeCursor(row: Pick<WebhookDeliveryRow, 'created_at' | 'id'>): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { created_at: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string')
      return { created_at: value[0], id: value[1] };
  } catch {
    // reported below
  }
  throw new AppError('validation_failed', 'The cursor is not one this list gave', {
    errors: [{ path: '/cursor', message: 'unknown cursor' }],
  });
}
