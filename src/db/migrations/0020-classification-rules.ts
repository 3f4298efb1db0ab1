import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * An organisation's own classification rules (the rules module): a rule that matches a field the classifier would
 * classify decides it (`classification_source = 'rule'`). `match` and `datasource_ids` are JSON text.
 */
export const classificationRules: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('classification_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id'))
      .addColumn('level', 'text')
      .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('match', 'text', (c) => c.notNull())
      .addColumn('datasource_ids', 'text')
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await sql`create index classification_rules_tag_idx on classification_rules (tag_id)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('classification_rules').execute();
  },
});
