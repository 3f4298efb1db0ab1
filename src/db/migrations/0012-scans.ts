import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * Scans of a data source's database (the scans module). A scan row is its own job: workers on any instance claim a
 * queued row (or a running one whose heartbeat stopped: its instance died) `FOR UPDATE SKIP LOCKED`, and every write
 * of the worker names its `claimed_by`, so a worker that lost its claim cannot write any more.
 * At most one queued or running scan per data source, enforced by a partial unique index (not only by a check).
 * `tables_done` is also the checkpoint a taken-over scan resumes from. `requested_by` is the user (null: a periodic
 * scan started by the workers); `requested_by_name` names it in the audit entries the worker writes.
 */
export const scans: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('scans')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('datasource_id', 'text', (c) => c.notNull().references('datasources.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('phase', 'text', (c) => c.notNull())
      .addColumn('tables_done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('tables_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('fields_done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('fields_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('count_new', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('count_changed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('count_removed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('count_unchanged', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('count_classified', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error', 'text')
      .addColumn('requested_by', 'text')
      .addColumn('requested_by_name', 'text')
      .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('claimed_by', 'text')
      .addColumn('heartbeat_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .execute();
    await db.schema
      .createIndex('scans_one_active_idx')
      .unique()
      .on('scans')
      .column('datasource_id')
      .where(sql.ref('status'), 'in', sql`('queued', 'running')`)
      .execute();
    // A data source's scans newest first (the list, the schedule's "last scan").
    await db.schema
      .createIndex('scans_datasource_idx')
      .on('scans')
      .columns(['datasource_id', 'created_at', 'id'])
      .execute();
    // What workers claim: few rows at any time.
    await db.schema
      .createIndex('scans_active_idx')
      .on('scans')
      .columns(['status', 'created_at'])
      .where(sql.ref('status'), 'in', sql`('queued', 'running')`)
      .execute();
  },
});
