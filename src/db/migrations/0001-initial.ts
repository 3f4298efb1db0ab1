import { sql, type Kysely } from 'kysely';
import type { DialectKind, MigrationFactory } from './index.js';

/** Every table of the first release; one definition, both dialects. */
export const initial: MigrationFactory = (kind: DialectKind) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    const blob = kind === 'postgres' ? 'bytea' : 'blob';

    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('username_key', 'text', (c) => c.notNull().unique())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('roles', 'text', (c) => c.notNull())
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('login_attempts')
      .addColumn('username_key', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('locked_until', 'text')
      .addColumn('last_failed_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('auth_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .addColumn('revoked_reason', 'text')
      .execute();
    await db.schema.createIndex('auth_sessions_user_idx').on('auth_sessions').column('user_id').execute();

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull().references('auth_sessions.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema.createIndex('refresh_tokens_session_idx').on('refresh_tokens').column('session_id').execute();

    await db.schema
      .createTable('datasources')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('is_sample', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('tags')
      .addColumn('id', kind === 'postgres' ? 'serial' : 'integer', (c) =>
        kind === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('parent_id', 'integer', (c) => c.references('tags.id'))
      .addColumn('chain_path', 'text', (c) => c.notNull().unique())
      .addColumn('default_level', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('keywords', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('is_builtin', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('fields')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('datasource_id', 'text', (c) => c.notNull().references('datasources.id').onDelete('cascade'))
      .addColumn('table_name', 'text', (c) => c.notNull())
      .addColumn('field_name', 'text', (c) => c.notNull())
      .addColumn('data_type', 'text')
      .addColumn('comment', 'text')
      .addColumn('format_signature', 'text')
      .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id'))
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('review_status', 'text', (c) => c.notNull().defaultTo('unreviewed'))
      .addColumn('review_reason', 'text')
      .addColumn('reviewed_at', 'text')
      .addColumn('reviewed_by', 'text')
      .addColumn('embedding', sql.raw(blob))
      .addColumn('embedder_version', 'text')
      .addColumn('outlier_score', 'real')
      .addColumn('severity', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('fields_natural_key', ['datasource_id', 'table_name', 'field_name'])
      .execute();
    await db.schema.createIndex('fields_tag_idx').on('fields').column('tag_id').execute();
    await db.schema.createIndex('fields_level_idx').on('fields').column('level').execute();
    await db.schema.createIndex('fields_review_idx').on('fields').columns(['review_status', 'id']).execute();
    await db.schema.createIndex('fields_name_idx').on('fields').columns(['field_name', 'id']).execute();
    await db.schema.createIndex('fields_updated_idx').on('fields').columns(['updated_at', 'id']).execute();
    await db.schema.createIndex('fields_outlier_idx').on('fields').columns(['outlier_score', 'id']).execute();

    await db.schema
      .createTable('audit_log')
      .addColumn('seq', kind === 'postgres' ? 'bigint' : 'integer', (c) => c.primaryKey())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text')
      .addColumn('actor_username', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_type', 'text')
      .addColumn('target_id', 'text')
      .addColumn('details', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text')
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_action_idx').on('audit_log').columns(['action', 'seq']).execute();
    await db.schema.createIndex('audit_log_actor_idx').on('audit_log').columns(['actor_id', 'seq']).execute();
    await db.schema.createIndex('audit_log_target_idx').on('audit_log').columns(['target_id', 'seq']).execute();
    await db.schema.createIndex('audit_log_at_idx').on('audit_log').columns(['at', 'seq']).execute();

    await db.schema
      .createTable('audit_head')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('seq', kind === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();
    await sql`insert into audit_head (id, seq, hash) values (1, 0, ${'0'.repeat(64)})`.execute(db);

    await db.schema
      .createTable('licenses')
      .addColumn('license_id', 'text', (c) => c.primaryKey())
      .addColumn('file_text', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('imported_at', 'text', (c) => c.notNull())
      .addColumn('imported_by', 'text')
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
});
