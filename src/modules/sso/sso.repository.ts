/** All SQL of single sign-on: pending sign-ins at the provider and the one-use codes the console exchanges. */
import type { Queryable } from '../../db/database.js';
import type { SsoCodesTable, SsoLoginsTable } from '../../db/schema.js';

export async function insertPendingLogin(db: Queryable, row: SsoLoginsTable): Promise<void> {
  await db.insertInto('sso_logins').values(row).execute();
}

/**
 * Takes a pending sign-in by its state: reads and deletes it, so a state is answered once however many callbacks
 * arrive (on any instance); undefined when it is unknown, already taken, or expired.
 */
export async function takePendingLogin(
  db: Queryable,
  stateHash: string,
  now: string,
): Promise<SsoLoginsTable | undefined> {
  const row = await db.selectFrom('sso_logins').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
  if (row === undefined) return undefined;
  const deleted = await db.deleteFrom('sso_logins').where('state_hash', '=', stateHash).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) return undefined;
  return row.expires_at > now ? row : undefined;
}

export async function insertSsoCode(db: Queryable, row: SsoCodesTable): Promise<void> {
  await db.insertInto('sso_codes').values(row).execute();
}

/** Takes a code (read and delete: one use); undefined when unknown or already taken. Expiry is the caller's check. */
export async function takeSsoCode(db: Queryable, codeHash: string): Promise<SsoCodesTable | undefined> {
  const row = await db.selectFrom('sso_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  if (row === undefined) return undefined;
  const deleted = await db.deleteFrom('sso_codes').where('code_hash', '=', codeHash).executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1 ? row : undefined;
}

/** Removes pending sign-ins and codes that expired, so abandoned sign-ins do not pile up. */
export async function deleteExpired(db: Queryable, now: string): Promise<void> {
  await db.deleteFrom('sso_logins').where('expires_at', '<=', now).execute();
  await db.deleteFrom('sso_codes').where('expires_at', '<=', now).execute();
}
