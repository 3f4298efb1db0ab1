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
 * Existing metrics are recomputed (queued) so that every field gets the new columns.
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
    await db.schema.createIndex('fields_risk_idx').on('fields').columns(['risk', 'id']).execute();
    await sql`insert into metrics_queue (field_id, token, enqueued_at)
      select field_id, 'upgrade-0013', ${new Date().toISOString()} from field_metrics where true
      on conflict (field_id) do nothing`.execute(db);
  },
});
