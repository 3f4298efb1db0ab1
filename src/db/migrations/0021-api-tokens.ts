import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * API tokens (the tokens module): a user's long-lived bearer tokens for scripts. Only a keyed hash of the secret is
 * stored (`token_hash`, unique: the lookup of every request that presents one). `permissions` is a JSON array, null
 * for "all the user's permissions at use time". A revoked token is deleted (the audit log keeps `token.revoked`);
 * deleting the user deletes its tokens.
 */
export const apiTokens: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('api_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('permissions', 'text')
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await sql`create index api_tokens_user_idx on api_tokens (user_id, created_at)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('api_tokens').execute();
  },
});
