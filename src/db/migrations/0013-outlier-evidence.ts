import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * What the outlier model needs beyond the embeddings, and what it answers beyond the spec's fields:
 * - `fields.predicted_*`: the classifier's own view of the field (tag, level, confidence), computed from the field's
 *   name, table, comment, type and value formats — never from its current label — whenever those inputs are written
 *   (import, scan, re-classification). Independent evidence: a group sharing one wrong label cannot vouch for itself.
 * - `suggested_*` on `field_metrics` and mirrored on `fields`: the classification that fits the field better than its
 *   current one, or null; `fields.risk`: the review-order key of `GET /fields?sort=risk` (indexed like outlier_score).
 * - `field_metrics.confirmed_basis`: for a confirmed field, its neighbourhood when it was first measured after the
 *   confirmation; a confirmed field leaves the top of the queue until that neighbourhood changes.
 * - `fields.predicted_with`: the classifier and taxonomy version of the view; the re-classification worker refreshes
 *   views made with another (and fills those of fields imported before this release).
 * The change-log triggers also fire when the view changes (the metrics weigh it). Existing metrics are recomputed
 * (queued) so that every field gets the new columns.
 */
export const outlierEvidence: MigrationFactory = (kind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    const float = kind === 'postgres' ? 'double precision' : 'real';
    for (const [name, type] of [
      ['predicted_tag_id', 'integer'],
      ['predicted_level', 'text'],
      ['predicted_confidence', float],
      ['suggested_tag_id', 'integer'],
      ['suggested_level', 'text'],
      ['suggested_confidence', float],
      ['predicted_with', 'text'],
      ['risk', 'real'],
    ] as const) {
      await db.schema.alterTable('fields').addColumn(name, sql.raw(type)).execute();
    }
    for (const [name, type] of [
      ['suggested_tag_id', 'integer'],
      ['suggested_level', 'text'],
      ['suggested_confidence', float],
      ['confirmed_basis', 'text'],
    ] as const) {
      await db.schema.alterTable('field_metrics').addColumn(name, sql.raw(type)).execute();
    }
    const columns = sql.raw(
      'tag_id, level, embedding, review_status, table_name, field_name, predicted_tag_id, predicted_level',
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
    await db.schema.createIndex('fields_risk_idx').on('fields').columns(['risk', 'id']).execute();
    // The re-classification worker queues once per classifier and taxonomy version: forget that it did, so that its next
    // round queues the fields that have no view yet.
    await sql`delete from settings where key = 'classifier.reclassify_enqueued_for'`.execute(db);
    // eslint-disable-next-line no-restricted-syntax -- a migration stamps what it queues with the time it runs
    const now = new Date().toISOString();
    await sql`insert into metrics_queue (field_id, token, enqueued_at)
      select field_id, 'upgrade-0013', ${now} from field_metrics where true
      on conflict (field_id) do nothing`.execute(db);
  },
});
