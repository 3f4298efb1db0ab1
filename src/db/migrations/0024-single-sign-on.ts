import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * Single sign-on (the sso module, CONTRACT §12). A user created by an OpenID Connect sign-in keeps the provider's
 * issuer and subject, so a renamed account maps back to the same user. Pending sign-ins (state, nonce, PKCE verifier)
 * and the one-use codes the console exchanges for tokens live in the database, so any instance can finish a sign-in
 * another one started; their secrets are stored hashed (state, code, browser binding) or sealed under a key derived
 * from the state (the PKCE verifier).
 */
export const singleSignOn: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('users').addColumn('oidc_issuer', 'text').execute();
    await db.schema.alterTable('users').addColumn('oidc_subject', 'text').execute();
    await sql`create unique index users_oidc_identity_idx on users (oidc_issuer, oidc_subject)`.execute(db);
    await db.schema
      .createTable('sso_logins')
      .addColumn('state_hash', 'text', (c) => c.primaryKey())
      .addColumn('binding_hash', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('sealed_verifier', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('sso_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('binding_hash', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('sso_codes').execute();
    await db.schema.dropTable('sso_logins').execute();
    await sql`drop index users_oidc_identity_idx`.execute(db);
    await db.schema.alterTable('users').dropColumn('oidc_subject').execute();
    await db.schema.alterTable('users').dropColumn('oidc_issuer').execute();
  },
});
