/** All SQL of users. */
import type { Kdb, Queryable } from '../../db/database.js';
import { isUniqueViolation } from '../../db/database.js';
import type { NewUserRow, UserRow, UserUpdate } from '../../db/schema.js';
import { conflict } from '../../http/errors.js';

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What authenticating a request needs of its user (no password hash). */
export type TokenUserRow = Pick<UserRow, 'id' | 'username' | 'email' | 'roles' | 'disabled' | 'token_version'>;

/**
 * Bumped before every write to `users` in this process. A cached user row is used only while the generation it
 * was read in is still current, so any user change (disable, roles, password, delete) is seen by the next request.
 */
let usersGeneration = 0;
const TOKEN_USER_CACHE_SIZE = 10_000;

/** The user lookup of every authenticated request. */
export interface TokenUserReader {
  /** The user's row: from the cache when it holds a current one, else from the database. */
  read(id: string): Promise<TokenUserRow | undefined>;
  /**
   * The user's row when the cache holds a current one, at once; undefined otherwise (not remembered, remembered before
   * the last write to `users`, no such user, or no cache at all): then `read`. A remembered row is the same object on
   * every call until it is read again, so callers may key derived values on it (a WeakMap).
   */
  remembered(id: string): TokenUserRow | undefined;
}

/**
 * The query is built and compiled once (building it anew cost more than running it). With `cache` (only for a database
 * whose reads cannot overlap another process's or connection's writes: Database.singleConnection) rows are remembered
 * until the next write to `users` in this process. Without it (PostgreSQL: another instance may have disabled the user)
 * every read goes to the database and nothing is remembered.
 */
export function userForTokenReader(db: Kdb, options: { cache: boolean }): TokenUserReader {
  const compiled = db.selectFrom('users').select(['id', 'username', 'email', 'roles', 'disabled', 'token_version']).where('id', '=', '').compile();
  const readRow = async (id: string): Promise<TokenUserRow | undefined> => {
    const query: typeof compiled = { ...compiled, parameters: [id] };
    return (await db.executeQuery(query)).rows[0];
  };
  if (!options.cache) return { read: readRow, remembered: () => undefined };
  const cache = new Map<string, { generation: number; row: TokenUserRow | undefined }>();
  return {
    async read(id) {
      const hit = cache.get(id);
      if (hit?.generation === usersGeneration) return hit.row;
      // Taken before the read: a write that starts meanwhile makes this entry stale at once.
      const generation = usersGeneration;
      const row = await readRow(id);
      if (cache.size >= TOKEN_USER_CACHE_SIZE) cache.clear();
      cache.set(id, { generation, row });
      return row;
    },
    remembered(id) {
      const hit = cache.get(id);
      return hit?.generation === usersGeneration ? hit.row : undefined;
    },
  };
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
  usersGeneration++;
  try {
    await db.insertInto('users').values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A user named "${row.username}" already exists`);
    throw error;
  }
}

export async function updateUser(db: Queryable, id: string, update: UserUpdate): Promise<void> {
  usersGeneration++;
  await db.updateTable('users').set(update).where('id', '=', id).execute();
}

export async function deleteUser(db: Queryable, id: string): Promise<boolean> {
  usersGeneration++;
  const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
