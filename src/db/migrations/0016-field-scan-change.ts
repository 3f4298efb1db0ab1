import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * What the last scan did to each field, and the review queue's filters in every order it offers.
 *
 * For the "changed since the last scan" view (`GET /fields?changed=last_scan`):
 * - `fields.last_scan_id`: the scan that last created or rewrote the field (null: never written by a scan);
 * - `fields.scan_change`: what that scan did — `new` (created it), `changed` (its column's type, comment or value
 *   format changed), `reclassified` (changed, and its classification with it).
 * A field is in the view when its `last_scan_id` is the last finished scan of its data source. Neither column is in the
 * change-log triggers: they do not affect the metrics.
 *
 * Indexes: 0014 gave the risk and outlier orders an index per equality filter of the queue (data source, review
 * status, both, tag, level); the name and newest-change orders had only their bare index, so a filtered page in those
 * orders read the filter's index and sorted every match (issue 31: `review_status=unreviewed` 1.2 s at 100k). Each
 * now gets the same prefixes, except tag (a tag holds a few thousand fields at most: sorting them is cheap). A filter
 * without an index of its own (severity, changed, include_sample, q) walks the order's index and skips the rows it
 * does not match. `q` (a substring of table or field name), which walked the whole catalog for a rare substring
 * (~1 s on SQLite at 100k): on PostgreSQL trigram indexes (pg_trgm) when the extension can be installed (without them
 * `q` works as before); on SQLite an FTS5 trigram index of the two names (`fields_search`, external content keyed by
 * the fields' rowid, kept by triggers) that the list asks for substrings of 3 characters or more.
 */
const ORDERS = [
  ['name', 'field_name, id'],
  ['updated', 'updated_at, id'],
] as const;
const PREFIXES = [
  ['ds_', 'datasource_id'],
  ['review_', 'review_status'],
  ['review_ds_', 'review_status, datasource_id'],
  ['level_', 'level'],
] as const;

export const fieldScanChange: MigrationFactory = (kind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('fields').addColumn('last_scan_id', 'text').execute();
    await db.schema.alterTable('fields').addColumn('scan_change', 'text').execute();
    await sql`create index fields_last_scan_idx on fields (last_scan_id)`.execute(db);
    for (const [order, columns] of ORDERS) {
      for (const [prefix, leading] of PREFIXES)
        await sql.raw(`create index fields_${prefix}${order}_order_idx on fields (${leading}, ${columns})`).execute(db);
    }
    if (kind === 'sqlite') {
      await sql`create virtual table fields_search using fts5(table_name, field_name, content = 'fields', content_rowid = 'rowid', tokenize = 'trigram')`.execute(
        db,
      );
      await sql`insert into fields_search (fields_search) values ('rebuild')`.execute(db);
      await sql`create trigger fields_search_insert after insert on fields begin
        insert into fields_search (rowid, table_name, field_name) values (new.rowid, new.table_name, new.field_name); end`.execute(
        db,
      );
      await sql`create trigger fields_search_delete after delete on fields begin
        insert into fields_search (fields_search, rowid, table_name, field_name) values ('delete', old.rowid, old.table_name, old.field_name); end`.execute(
        db,
      );
      await sql`create trigger fields_search_update after update of table_name, field_name on fields begin
        insert into fields_search (fields_search, rowid, table_name, field_name) values ('delete', old.rowid, old.table_name, old.field_name);
        insert into fields_search (rowid, table_name, field_name) values (new.rowid, new.table_name, new.field_name); end`.execute(
        db,
      );
    }
    if (kind === 'postgres') {
      // pg_trgm is a trusted extension: a database owner may install it. Installed in `public` so every schema of the
      // database finds its operator classes; where it cannot be installed, `q` works without the indexes.
      await sql`savepoint trgm`.execute(db);
      try {
        await sql`create extension if not exists pg_trgm schema public`.execute(db);
        for (const column of ['table_name', 'field_name']) {
          await sql
            .raw(`create index fields_${column}_trgm_idx on fields using gin (lower(${column}) public.gin_trgm_ops)`)
            .execute(db);
        }
        await sql`release savepoint trgm`.execute(db);
      } catch {
        await sql`rollback to savepoint trgm`.execute(db);
      }
      await sql`analyze fields`.execute(db);
    }
  },
});
