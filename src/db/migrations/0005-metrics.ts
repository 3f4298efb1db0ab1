import { sql, type Kysely } from 'kysely';
import type { DialectKind, MigrationFactory } from './index.js';

const AXES = ['category_anchor', 'centroid', 'peer_mean', 'nearest', 'lower_quartile', 'farthest'] as const;

/**
 * Stored per-field metrics, the shared work queue of stale fields, and a change log written by triggers on
 * `fields` (every insert, delete — including cascades — and classification/embedding change) so each instance
 * can keep its in-memory index in step with the database without knowing who changed what.
 */
export const metrics: MigrationFactory = (kind: DialectKind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    const float = kind === 'postgres' ? 'double precision' : 'real';
    let table = db.schema
      .createTable('field_metrics')
      .addColumn('field_id', 'text', (c) => c.primaryKey().references('fields.id').onDelete('cascade'));
    for (const axis of AXES) {
      table = table.addColumn(`raw_${axis}`, sql.raw(float), (c) => c.notNull());
      table = table.addColumn(`score_${axis}`, sql.raw(float), (c) => c.notNull());
    }
    await table
      .addColumn('category_similarity', sql.raw(float), (c) => c.notNull())
      .addColumn('centroid_similarity', sql.raw(float), (c) => c.notNull())
      .addColumn('neighbour_disagreement', sql.raw(float), (c) => c.notNull())
      .addColumn('peer_margin', sql.raw(float))
      .addColumn('anchor_margin', sql.raw(float))
      .addColumn('outlier_score', sql.raw(float), (c) => c.notNull())
      .addColumn('severity', 'text', (c) => c.notNull())
      .addColumn('nearest_field_id', 'text')
      .addColumn('nearest_similarity', sql.raw(float))
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('computed_at', 'text', (c) => c.notNull())
      .execute();

    // One row per stale field; `token` changes on every re-enqueue so a worker only deletes what it computed.
    await db.schema
      .createTable('metrics_queue')
      .addColumn('field_id', 'text', (c) => c.primaryKey().references('fields.id').onDelete('cascade'))
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('enqueued_at', 'text', (c) => c.notNull())
      .addColumn('claimed_by', 'text')
      .addColumn('claimed_at', 'text')
      .execute();
    await db.schema
      .createIndex('metrics_queue_claim_idx')
      .on('metrics_queue')
      .columns(['claimed_at', 'enqueued_at'])
      .execute();

    if (kind === 'postgres') {
      await sql`create table metrics_changes (seq bigserial primary key, field_id text not null)`.execute(db);
      await sql`create function fieldlens_field_changed() returns trigger language plpgsql as $$
        begin
          if (tg_op = 'DELETE') then insert into metrics_changes(field_id) values (old.id);
          else insert into metrics_changes(field_id) values (new.id); end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger fields_metrics_change after insert or delete or update of tag_id, level, embedding, review_status, table_name, field_name
        on fields for each row execute function fieldlens_field_changed()`.execute(db);
    } else {
      await sql`create table metrics_changes (seq integer primary key autoincrement, field_id text not null)`.execute(
        db,
      );
      await sql`create trigger fields_metrics_insert after insert on fields begin insert into metrics_changes(field_id) values (new.id); end`.execute(
        db,
      );
      await sql`create trigger fields_metrics_delete after delete on fields begin insert into metrics_changes(field_id) values (old.id); end`.execute(
        db,
      );
      await sql`create trigger fields_metrics_update after update of tag_id, level, embedding, review_status, table_name, field_name on fields
        begin insert into metrics_changes(field_id) values (new.id); end`.execute(db);
    }
  },
  async down(db: Kysely<unknown>): Promise<void> {
    if (kind === 'postgres') {
      await sql`drop trigger if exists fields_metrics_change on fields`.execute(db);
      await sql`drop function if exists fieldlens_field_changed()`.execute(db);
    } else {
      for (const t of ['fields_metrics_insert', 'fields_metrics_delete', 'fields_metrics_update'])
        await sql`drop trigger if exists ${sql.raw(t)}`.execute(db);
    }
    await db.schema.dropTable('metrics_changes').execute();
    await db.schema.dropTable('metrics_queue').execute();
    await db.schema.dropTable('field_metrics').execute();
  },
});
