import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * Webhooks (the webhooks module): the subscriptions, their signing secret sealed with the service's secret key
 * (crypto/secret-box.ts, bound to the webhook id), and one delivery row per event and webhook. A delivery row is its
 * own queue entry: due when `status = 'pending'` and `next_attempt_at` has passed, leased by `claimed_by`/`claimed_at`
 * so any instance delivers it and a dead instance's lease runs out. `payload` is the exact body sent (retries send the
 * same bytes). Numbered 0022: 0021 belongs to another change; the migrator orders by name and allows the gap.
 */
export const webhooks: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('description', 'text')
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('claimed_by', 'text')
      .addColumn('claimed_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('delivered_at', 'text')
      .execute();
    // The worker reads due deliveries in time order; the log lists a webhook's deliveries newest first.
    await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at, id) where status = 'pending'`.execute(
      db,
    );
    await sql`create index webhook_deliveries_log_idx on webhook_deliveries (webhook_id, created_at, id)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('webhook_deliveries').execute();
    await db.schema.dropTable('webhooks').execute();
  },
});
