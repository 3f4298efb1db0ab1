import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * The stored `score_*` columns change meaning: from a percentile rank over the catalog to a fit score calibrated
 * against the fields that carry the classification and those that do not (src/modules/metrics/fit-scores.ts). Every
 * field with stored metrics is queued for the metrics worker, which recomputes them in the background; until its turn
 * a field keeps its former scores. No column changes.
 */
export const fitScores: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    // eslint-disable-next-line no-restricted-syntax -- a migration stamps what it queues with the time it runs
    const now = new Date().toISOString();
    // `where true`: SQLite needs it to read ON CONFLICT after INSERT … SELECT.
    await sql`insert into metrics_queue (field_id, token, enqueued_at, claimed_by, claimed_at)
      select field_id, ${'migration-0023-fit-scores'}, ${now}, null, null from field_metrics where true
      on conflict (field_id) do update set token = excluded.token, claimed_by = null, claimed_at = null`.execute(db);
  },
  async down(): Promise<void> {
    // Nothing to undo: the queue entries are worked off, and former scores are not kept.
  },
});
