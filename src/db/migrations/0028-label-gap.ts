import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * `fields.predicted_label_gap`: how many points the field's label trails the classifier's own answer by, in the
 * classifier's points (0 when the classifier names the label; docs/metrics.md, "label gap"), written with the rest of
 * the classifier's view (`predicted_*`). Null = unknown: every field until its view is made again. The
 * re-classification worker queues the fields whose view is outdated once per classifier and taxonomy version, and a
 * view without a gap counts as outdated; forgetting that it queued makes its next round queue them all (one
 * classification per field, ~20,000 fields/s, and one row update). The change-log triggers also fire when the gap
 * changes: the outlier model weighs it.
 */
export const labelGap: MigrationFactory = (kind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    const float = kind === 'postgres' ? 'double precision' : 'real';
    await db.schema.alterTable('fields').addColumn('predicted_label_gap', sql.raw(float)).execute();
    const columns = sql.raw(
      'tag_id, level, embedding, review_status, table_name, field_name, predicted_tag_id, predicted_level, predicted_label_gap',
    );
    if (kind === 'postgres') {
      await sql`drop trigger fields_catalog_change on fields`.execute(db);
      await sql`create trigger fields_catalog_change after insert or delete or update of ${columns}
        on fields for each row execute function fieldlens_field_changed()`.execute(db);
    } else {
      await sql`drop trigger fields_catalog_update`.execute(db);
      await sql`create trigger fields_catalog_update after update of ${columns} on fields
        begin insert into catalog_changes(field_id, tag_id, level, old_tag_id, old_level) values (new.id, new.tag_id, new.level, old.tag_id, old.level); end`.execute(
        db,
      );
    }
    await sql`delete from settings where key = 'classifier.reclassify_enqueued_for'`.execute(db);
  },
});
