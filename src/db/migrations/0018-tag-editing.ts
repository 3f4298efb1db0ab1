import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * Tags become editable (renamed, moved, re-levelled, deleted). A built-in tag keeps what it was shipped as in
 * `builtin_path` (its chain path in the default taxonomy), so that after an organisation renames or moves it:
 * - the classifier still knows it (its rules name the default leaves), and
 * - a later start does not add it again as "missing" (built-in tags are added by that path, not by the current one).
 * Deleted built-in tags are remembered in the `taxonomy.deleted_builtins` setting for the same reason.
 */
export const tagEditing: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('tags').addColumn('builtin_path', 'text').execute();
    await sql`update tags set builtin_path = chain_path where is_builtin = 1`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('tags').dropColumn('builtin_path').execute();
  },
});
