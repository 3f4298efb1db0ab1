import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * PostgreSQL: the list's name search (`q`, a substring of the table or field name) reads one stored, lower-cased
 * column, `name_search` = lower(table_name) ‖ U+0001 ‖ lower(field_name), instead of lower-casing both names of every
 * row it looks at. A substring without U+0001 (the API refuses control characters in `q`) matches it exactly when it
 * matches one of the two names. Where pg_trgm is installed (migration 0016), one trigram index on it replaces the two
 * on the names. In name order the planner walks the name index and tests each row, and a name substring clusters in
 * name order (every `email…` field sits after all the `a…`–`e…` ones), so the walk is long: `sort=name&q=email` at
 * 100,000 fields read 31,000 rows and took 47 ms; on the stored column 28 ms (docs/benchmarks.md). SQLite keeps its
 * FTS5 trigram table (migration 0016), with LIKE on both names for substrings under three characters.
 */
export const nameSearch: MigrationFactory = (kind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    if (kind !== 'postgres') return;
    await sql`alter table fields add column name_search text generated always as (lower(table_name) || chr(1) || lower(field_name)) stored`.execute(
      db,
    );
    if (await hasTrigrams(db)) {
      await sql`create index fields_name_search_trgm_idx on fields using gin (name_search public.gin_trgm_ops)`.execute(
        db,
      );
      await sql`drop index if exists fields_table_name_trgm_idx`.execute(db);
      await sql`drop index if exists fields_field_name_trgm_idx`.execute(db);
    }
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
    await sql`alter table fields drop column name_search`.execute(db);
  },
});

async function hasTrigrams(db: Kysely<unknown>): Promise<boolean> {
  const found = await sql<{ n: number }>`select count(*)::int as n from pg_extension where extname = 'pg_trgm'`.execute(
    db,
  );
  return Number(found.rows[0]?.n ?? 0) > 0;
}
