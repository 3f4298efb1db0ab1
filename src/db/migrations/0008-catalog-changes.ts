import { sql, type Kysely } from 'kysely';
import type { DialectKind, MigrationFactory } from './index.js';

/**
 * One change log for the whole catalog, written by triggers, from which staleness is derived after commit.
 *
 * Before, each writer had to call the metrics module in its own transaction to mark what it changed as stale, and
 * writers that forgot (data-source deletion, sample-data removal) left metrics naming deleted fields. Now every
 * committed insert, delete and classification/embedding/review change of a field, and every new or changed tag,
 * leaves a row here, with the field's tag and level before and after. A row stays `expanded = 0` until a metrics
 * worker has enqueued what it affects (the field, the fields that named it as nearest, its neighbours, a sample of
 * its tag's and level's peers); `pending` counts those rows too, so it is never 0 while a change is unaccounted for.
 * The same rows, in sequence order, keep each instance's in-memory replica of the catalog in step.
 */
export const catalogChanges: MigrationFactory = (kind: DialectKind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    if (kind === 'postgres') {
      await sql`drop trigger if exists fields_metrics_change on fields`.execute(db);
      await sql`drop function if exists fieldlens_field_changed()`.execute(db);
      await sql`create table catalog_changes (seq bigserial primary key, field_id text, tag_id integer, level text,
        old_tag_id integer, old_level text, expanded integer not null default 0)`.execute(db);
      await sql`create function fieldlens_field_changed() returns trigger language plpgsql as $$
        begin
          if (tg_op = 'DELETE') then
            insert into catalog_changes(field_id, old_tag_id, old_level) values (old.id, old.tag_id, old.level);
          elsif (tg_op = 'INSERT') then
            insert into catalog_changes(field_id, tag_id, level) values (new.id, new.tag_id, new.level);
          else
            insert into catalog_changes(field_id, tag_id, level, old_tag_id, old_level) values (new.id, new.tag_id, new.level, old.tag_id, old.level);
          end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger fields_catalog_change after insert or delete or update of tag_id, level, embedding, review_status, table_name, field_name
        on fields for each row execute function fieldlens_field_changed()`.execute(db);
      await sql`create function fieldlens_tag_changed() returns trigger language plpgsql as $$
        begin insert into catalog_changes(tag_id) values (new.id); return null; end $$`.execute(db);
      await sql`create trigger tags_catalog_change after insert or update on tags for each row execute function fieldlens_tag_changed()`.execute(
        db,
      );
    } else {
      for (const t of ['fields_metrics_insert', 'fields_metrics_delete', 'fields_metrics_update'])
        await sql`drop trigger if exists ${sql.raw(t)}`.execute(db);
      await sql`create table catalog_changes (seq integer primary key autoincrement, field_id text, tag_id integer, level text,
        old_tag_id integer, old_level text, expanded integer not null default 0)`.execute(db);
      await sql`create trigger fields_catalog_insert after insert on fields
        begin insert into catalog_changes(field_id, tag_id, level) values (new.id, new.tag_id, new.level); end`.execute(
        db,
      );
      await sql`create trigger fields_catalog_delete after delete on fields
        begin insert into catalog_changes(field_id, old_tag_id, old_level) values (old.id, old.tag_id, old.level); end`.execute(
        db,
      );
      await sql`create trigger fields_catalog_update after update of tag_id, level, embedding, review_status, table_name, field_name on fields
        begin insert into catalog_changes(field_id, tag_id, level, old_tag_id, old_level) values (new.id, new.tag_id, new.level, old.tag_id, old.level); end`.execute(
        db,
      );
      await sql`create trigger tags_catalog_insert after insert on tags begin insert into catalog_changes(tag_id) values (new.id); end`.execute(
        db,
      );
      await sql`create trigger tags_catalog_update after update on tags begin insert into catalog_changes(tag_id) values (new.id); end`.execute(
        db,
      );
    }
    await db.schema.dropTable('metrics_changes').execute();
    // Changes not yet expanded, in order: read by every worker round and counted by `pending`.
    await db.schema
      .createIndex('catalog_changes_unexpanded_idx')
      .on('catalog_changes')
      .column('seq')
      .where(sql.ref('expanded'), '=', 0)
      .execute();
    // The fields that name a changed or deleted field as their nearest neighbour.
    await db.schema.createIndex('field_metrics_nearest_idx').on('field_metrics').column('nearest_field_id').execute();
    // Metrics left naming a deleted field by writers that forgot to mark them stale: recomputed after the upgrade.
    // eslint-disable-next-line no-restricted-syntax -- a migration stamps what it queues with the time it runs
    const now = new Date().toISOString();
    await sql`insert into metrics_queue (field_id, token, enqueued_at)
      select m.field_id, 'upgrade', ${now} from field_metrics m
      where m.nearest_field_id is not null and not exists (select 1 from fields f where f.id = m.nearest_field_id)
      on conflict (field_id) do nothing`.execute(db);
  },
});
