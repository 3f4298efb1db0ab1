import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * 0014 gave both queue orders, risk and outlier score, an index per equality filter (none, data source, review status,
 * both, tag, level): twelve indexes holding a score, each rewritten whenever the metrics worker stores a field's score.
 * The console's queue sorts by risk; `sort=outlier_score` is an API order. Its five filtered indexes go: a filtered
 * outlier-score page walks the bare (outlier_score, id) index and skips what it does not match, and every score the
 * worker stores rewrites five index entries fewer (PostgreSQL, which cannot update a row in place when an indexed column
 * changes, writes an entry in every index of the table: five fewer there too). Measured in docs/benchmarks.md.
 */
const DROPPED = ['ds_', 'review_', 'review_ds_', 'tag_', 'level_'] as const;
const PREFIX_COLUMNS: Record<(typeof DROPPED)[number], string> = {
  ds_: 'datasource_id',
  review_: 'review_status',
  review_ds_: 'review_status, datasource_id',
  tag_: 'tag_id',
  level_: 'level',
};

export const outlierOrderIndexes: MigrationFactory = (kind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    for (const prefix of DROPPED) await db.schema.dropIndex(`fields_${prefix}outlier_order_idx`).execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    const order = kind === 'postgres' ? 'outlier_score desc nulls last, id desc' : 'outlier_score desc, id desc';
    for (const prefix of DROPPED)
      await sql
        .raw(`create index fields_${prefix}outlier_order_idx on fields (${PREFIX_COLUMNS[prefix]}, ${order})`)
        .execute(db);
  },
});
