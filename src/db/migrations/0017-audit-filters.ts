import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * What the audit list's filters need (docs/audit.md, "Filters"):
 * - `action=field.*` is a range on `action` (`>= 'field.' and < 'field/'`), which the (action, seq) index serves. The
 *   range is only exact when text compares byte by byte: SQLite's default collation does, PostgreSQL's depends on the
 *   database's locale (en_US ignores punctuation at first), so there the column gets the "C" collation. Its values,
 *   and so the hash chain, are unchanged; PostgreSQL rebuilds the index.
 * - `actor=<username>` compares the stored actor_username, so it gets an index in the list's order.
 */
export const auditFilters: MigrationFactory = (kind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    if (kind === 'postgres') await sql`alter table audit_log alter column action type text collate "C"`.execute(db);
    await db.schema
      .createIndex('audit_log_actor_name_idx')
      .on('audit_log')
      .columns(['actor_username', 'seq'])
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('audit_log_actor_name_idx').execute();
    if (kind === 'postgres')
      await sql`alter table audit_log alter column action type text collate "default"`.execute(db);
  },
});
