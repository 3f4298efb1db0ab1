import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * The nearest field's display name (`table.field`) is stored with the metrics that name it. Reading it through a join
 * on `fields` took two more B-tree descents per item, in a table of wide rows: at a million fields half of an
 * embedding-minibars read (9.7 → 5.1 ms for 500 ids on SQLite, measured). A field's names never change (they are its
 * natural key within its data source); a nearest field deleted meanwhile is told by the in-memory catalog, and its
 * deletion has re-queued every field that named it. Existing rows are filled in from `fields`.
 */
export const metricsNearestName: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('field_metrics').addColumn('nearest_field_name', 'text').execute();
    await sql`update field_metrics set nearest_field_name = (
        select f.table_name || '.' || f.field_name from fields f where f.id = field_metrics.nearest_field_id)
      where nearest_field_id is not null`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('field_metrics').dropColumn('nearest_field_name').execute();
  },
});
