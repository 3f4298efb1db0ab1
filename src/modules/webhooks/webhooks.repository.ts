/** All SQL of the `webhooks` and `webhook_deliveries` tables. */
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Database, Queryable, Tx } from '../../db/database.js';
import type { WebhookDeliveriesTable, WebhookDeliveryRow, WebhookRow, WebhooksTable } from '../../db/schema.js';

export async function listWebhooks(db: Queryable): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function findWebhook(db: Queryable, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countWebhooks(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertWebhook(trx: Tx, row: Insertable<WebhooksTable>): Promise<WebhookRow> {
  return trx.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateWebhook(trx: Tx, id: string, change: Updateable<WebhooksTable>): Promise<WebhookRow> {
  return trx.updateTable('webhooks').set(change).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteWebhook(trx: Tx, id: string): Promise<void> {
  // Explicitly, not by the foreign key's cascade: SQLite enforces foreign keys only when asked to.
  await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
  await trx.deleteFrom('webhooks').where('id', '=', id).execute();
}

/** The enabled webhooks and the events each wants (read in the event's transaction). */
export async function enabledSubscriptions(db: Queryable): Promise<Array<Pick<WebhookRow, 'id' | 'events'>>> {
  return db.selectFrom('webhooks').select(['id', 'events']).where('enabled', '=', 1).execute();
}

export async function insertDeliveries(
  db: Queryable,
  rows: ReadonlyArray<Insertable<WebhookDeliveriesTable>>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 200))
      .execute();
}

export async function findDelivery(db: Queryable, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A webhook's deliveries, newest first, after the keyset position (created_at, id). */
export async function listDeliveries(
  db: Queryable,
  webhookId: string,
  after: { created_at: string; id: string } | undefined,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (after)
    q = q.where((eb) =>
      eb.or([
        eb('created_at', '<', after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
      ]),
    );
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  payload: string;
  attempts: number;
  created_at: string;
  url: string;
  secret: string;
}

/**
 * Claims up to `limit` due deliveries of enabled webhooks for `worker`: pending, next attempt passed, and unclaimed or
 * claimed before `leaseBefore` (the claimant died mid-attempt). PostgreSQL reads them `FOR UPDATE SKIP LOCKED`, so two
 * instances never claim one delivery; the UPDATE repeats the condition. SQLite's single writer serialises claims.
 */
export async function claimDue(
  database: Database,
  worker: string,
  now: string,
  leaseBefore: string,
  limit: number,
  skipWebhooks: readonly string[] = [],
): Promise<ClaimedDelivery[]> {
  const lock = database.kind === 'postgres' ? sql`for update of d skip locked` : sql``;
  const skip = skipWebhooks.length > 0 ? sql` and d.webhook_id not in (${sql.join(skipWebhooks)})` : sql``;
  const due = sql`d.status = 'pending' and d.next_attempt_at <= ${now} and (d.claimed_at is null or d.claimed_at < ${leaseBefore})${skip}`;
  return database.db.transaction().execute(async (trx) => {
    const wanted = await sql<{
      id: string;
    }>`select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
      where ${due} and w.enabled = 1 order by d.next_attempt_at, d.id limit ${limit} ${lock}`.execute(trx);
    if (wanted.rows.length === 0) return [];
    const ids = wanted.rows.map((r) => r.id);
    const claimed = await sql<{ id: string }>`update webhook_deliveries set claimed_by = ${worker}, claimed_at = ${now}
      where id in (${sql.join(ids)}) and status = 'pending' and (claimed_at is null or claimed_at < ${leaseBefore}) returning id`.execute(
      trx,
    );
    if (claimed.rows.length === 0) return [];
    const rows = await trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select(['d.id', 'd.webhook_id', 'd.payload', 'd.attempts', 'd.created_at', 'w.url', 'w.secret'])
      .where(
        'd.id',
        'in',
        claimed.rows.map((r) => r.id),
      )
      .orderBy('d.next_attempt_at')
      .orderBy('d.id')
      .execute();
    return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
  });
}

/** Records an attempt's outcome and ends the claim; nothing happens when the claim was lost meanwhile (false). */
export async function recordAttempt(
  db: Queryable,
  id: string,
  worker: string,
  change: Updateable<WebhookDeliveriesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...change, claimed_by: null, claimed_at: null })
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives claims back unworked (claimable at once by any instance). */
export async function releaseClaims(db: Queryable, ids: readonly string[], worker: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ claimed_by: null, claimed_at: null })
    .where('id', 'in', ids)
    .where('claimed_by', '=', worker)
    .execute();
}

/** Deliveries by status (monitoring, tests). */
export async function countDeliveriesByStatus(db: Queryable): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}
