import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * How each field got its classification (`import` given by the caller, `classifier` chosen automatically, `reviewer`
 * confirmed or changed by a person), the classifier's calibrated confidence and evidence (JSON; never a sample
 * value), a privacy-safe summary of the sample values' formats (kinds and shares, never a value) so that
 * re-evaluation can weigh them without the samples, and which classifier and taxonomy produced the classification.
 * A queue of fields to classify again when the classifier or the taxonomy changes (a WorkQueue table).
 * Fields classified before this release keep `import` as their source: what chose them is not known.
 */
export const classification: MigrationFactory = (kind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    const float = kind === 'postgres' ? 'double precision' : 'real';
    await db.schema
      .alterTable('fields')
      .addColumn('classification_source', 'text', (c) => c.notNull().defaultTo('import'))
      .execute();
    await db.schema.alterTable('fields').addColumn('classification_confidence', sql.raw(float)).execute();
    await db.schema.alterTable('fields').addColumn('classification_evidence', 'text').execute();
    await db.schema.alterTable('fields').addColumn('value_summary', 'text').execute();
    await db.schema.alterTable('fields').addColumn('classified_with', 'text').execute();

    await db.schema
      .createTable('reclassify_queue')
      .addColumn('field_id', 'text', (c) => c.primaryKey().references('fields.id').onDelete('cascade'))
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('enqueued_at', 'text', (c) => c.notNull())
      .addColumn('claimed_by', 'text')
      .addColumn('claimed_at', 'text')
      .execute();
    await db.schema
      .createIndex('reclassify_queue_unclaimed_idx')
      .on('reclassify_queue')
      .columns(['enqueued_at', 'field_id'])
      .where(sql.ref('claimed_at'), 'is', null)
      .execute();
    await db.schema
      .createIndex('reclassify_queue_claimed_idx')
      .on('reclassify_queue')
      .column('claimed_at')
      .where(sql.ref('claimed_at'), 'is not', null)
      .execute();
  },
});
