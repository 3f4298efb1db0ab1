/** All SQL of users. */
import type { Queryable } from '../../db/database.js';
import { isUniqueViolation } from '../../db/database.js';
import type { NewUserRow, UserRow, UserUpdate } from '../../db/schema.js';
import { conflict } from '../../http/errors.js';

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What authenticating a request needs of its user (read on every request: no password hash). */
export async function findUserForToken(db: Queryable, id: string) {
  return db.selectFrom('users').select(['id', 'username', 'email', 'roles', 'disabled', 'token_version']).where('id', '=', id).executeTakeFirst();
}

export async function findUserByUsername(db: Queryable, username: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('username_key', '=', username.toLowerCase()).executeTakeFirst();
}

export async function listUsers(db: Queryable): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function countUsers(db: Queryable, options: { activeOnly: boolean }): Promise<number> {
  let query = db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n'));
  if (options.activeOnly) query = query.where('disabled', '=', 0);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Active users holding the role (roles are a JSON array; the quoted name cannot match a longer role name). */
export async function countActiveUsersWithRole(db: Queryable, role: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('disabled', '=', 0)
    .where('roles', 'like', `%"${role}"%`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertUser(db: Queryable, row: NewUserRow): Promise<void> {
  try {
    await db.insertInto('users').values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A user named "${row.username}" already exists`);
    throw error;
  }
}

export async function updateUser(db: Queryable, id: string, update: UserUpdate): Promise<void> {
  await db.updateTable('users').set(update).where('id', '=', id).execute();
}

export async function deleteUser(db: Queryable, id: string): Promise<boolean> {
  const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
