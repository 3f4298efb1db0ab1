import type { Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * Login attempts are claimed before their password is checked, so the failed-login limit holds for parallel guesses:
 * `pending` counts the claimed attempts whose check has not finished. `failures` stays the count of consecutive
 * failures, and `last_failed_at` becomes the time of the last attempt claimed.
 */
export const loginAttemptsPending: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('login_attempts')
      .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('login_attempts').dropColumn('pending').execute();
  },
});
