import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * PostgreSQL: the list's name search (`q`, a substring of the table or field name) reads one stored, lower-cased
 * column, `name_search` = lower(table_name) ‖ U+0001 ‖ lower(field_name), instead of lower-casing both names of every
 * row it looks at. A substring without U+0001 (the API refuses control characters in `q`) matches it exactly when it
 * matches one of the two names. Where pg_trgm is installed (migration 0016), one trigram index on it replaces the two
 * on the names.
 *
 * The five name-order indexes carry it, and the data source where it is not a key (the console hides the sample
 * source from the queue once a real one exists: `datasource_id not in (…)`). In name order a substring's matches
 * cluster (every `email…` field sits after all the `a…`–`e…` ones), so a page walks the index past tens of thousands
 * of entries; with the columns in the index PostgreSQL tests each entry there (an index-only scan of the page's ids)
 * instead of reading its table row: `sort=name&q=email` at 100,000 fields 40 → 16 ms (docs/benchmarks.md). A page of
 * the table not yet marked all-visible by (auto)vacuum is still read, so just after a bulk change it costs about what
 * it did before.
 * SQLite keeps its FTS5 trigram table (migration 0016), with LIKE on both names for substrings under three characters.
 */
const NAME_ORDER: ReadonlyArray<readonly [index: string, columns: string, include: string]> = [
  ['fields_name_idx', 'field_name, id', 'name_search, datasource_id'],
  ['fields_ds_name_order_idx', 'datasource_id, field_name, id', 'name_search'],
  ['fields_review_name_order_idx', 'review_status, field_name, id', 'name_search, datasource_id'],
  ['fields_review_ds_name_order_idx', 'review_status, datasource_id, field_name, id', 'name_search'],
  ['fields_level_name_order_idx', 'level, field_name, id', 'name_search, datasource_id'],
];

export const nameSearch: MigrationFactory = (kind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    if (kind !== 'postgres') return;
    await sql`alter table fields add column name_search text generated always as (lower(table_name) || chr(1) || lower(field_name)) stored`.execute(
      db,
    );
    for (const [index, columns, include] of NAME_ORDER) {
      await sql.raw(`drop index ${index}`).execute(db);
      await sql.raw(`create index ${index} on fields (${columns}) include (${include})`).execute(db);
    }
    if (await hasTrigrams(db)) {
      await sql`create index fields_name_search_trgm_idx on fields using gin (name_search public.gin_trgm_ops)`.execute(
        db,
      );
      await sql`drop index if exists fields_table_name_trgm_idx`.execute(db);
      await sql`drop index if exists fields_field_name_trgm_idx`.execute(db);
    }
    // Fresh statistics. The visibility map the index-only scans read is (auto)vacuum's: a migration runs in a transaction.
    await sql`analyze fields`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    if (kind !== 'postgres') return;
    if (await hasTrigrams(db)) {
      for (const column of ['table_name', 'field_name']) {
        await sql
          .raw(`create index fields_${column}_trgm_idx on fields using gin (lower(${column}) public.gin_trgm_ops)`)
          .execute(db);
      }
    }
    for (const [index, columns] of NAME_ORDER) {
      await sql.raw(`drop index ${index}`).execute(db);
      await sql.raw(`create index ${index} on fields (${columns})`).execute(db);
    }
    await sql`alter table fields drop column name_search`.execute(db);
  },
});

async function hasTrigrams(db: Kysely<unknown>): Promise<boolean> {
  const found = await sql<{ n: number }>`select count(*)::int as n from pg_extension where extname = 'pg_trgm'`.execute(
    db,
  );
  return Number(found.rows[0]?.n ?? 0) > 0;
}
