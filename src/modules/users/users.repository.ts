/** All SQL of users. */
import type { Kdb, Queryable } from '../../db/database.js';
import { isUniqueViolation } from '../../db/database.js';
import type { NewUserRow, UserRow, UserUpdate } from '../../db/schema.js';
import { conflict } from '../../http/errors.js';

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * What authenticating a request needs: its user (no password hash) and the state of the login session the token
 * belongs to (`session_user_id` null when the session no longer exists).
 */
export type TokenUserRow = Pick<UserRow, 'id' | 'username' | 'email' | 'roles' | 'disabled' | 'token_version'> & {
  session_user_id: string | null;
  session_revoked_at: string | null;
};

const TOKEN_USER_CACHE_SIZE = 10_000;

/** The user-and-session lookup of every authenticated request. */
export interface TokenUserReader {
  /** The row of the user and its session: from the cache when it holds a current one, else from the database. */
  read(id: string, sessionId: string): Promise<TokenUserRow | undefined>;
  /**
   * The row when the cache holds a current one, at once; undefined otherwise (not remembered, remembered before the
   * last write, no such user, or no cache at all): then `read`. A remembered row is the same object on every call until
   * it is read again, so callers may key derived values on it (a WeakMap).
   */
  remembered(id: string, sessionId: string): TokenUserRow | undefined;
  /** Makes every remembered row stale: call it before revoking or deleting login sessions. */
  invalidate(): void;
}

/**
 * One query reads the user and its session, so checking the session costs no extra round trip (the one read of the auth
 * module's `auth_sessions` outside it, on the hottest path there is). The query is built and
 * compiled once (building it anew cost more than running it). With `cache` (only for a database whose reads cannot
 * overlap another process's or connection's writes: Database.singleConnection) rows are remembered until the next
 * write to `users` or revocation in this process. Without it (PostgreSQL: another instance may have disabled the user
 * or ended the session) every read goes to the database and nothing is remembered, so a revocation anywhere applies to
 * the next request everywhere.
 */
export interface TokenUserReaderOptions {
  /** Remember rows between requests (only where this process sees every write: embedded SQLite). */
  cache: boolean;
  /** The database's counter of other processes' commits (SQLite `data_version`); remembered rows are dropped when it moves. */
  externalChanges?: () => number;
}

export function userForTokenReader(db: Kdb, options: TokenUserReaderOptions): TokenUserReader {
  const compiled = db
    .selectFrom('users')
    .leftJoin('auth_sessions', (join) =>
      join.onRef('auth_sessions.user_id', '=', 'users.id').on('auth_sessions.id', '=', ''),
    )
    .select([
      'users.id',
      'users.username',
      'users.email',
      'users.roles',
      'users.disabled',
      'users.token_version',
      'auth_sessions.user_id as session_user_id',
      'auth_sessions.revoked_at as session_revoked_at',
    ])
    .where('users.id', '=', '')
    .compile();
  const readRow = async (id: string, sessionId: string): Promise<TokenUserRow | undefined> => {
    const query: typeof compiled = { ...compiled, parameters: [sessionId, id] };
    return (await db.executeQuery(query)).rows[0];
  };
  // Bumped (invalidate) before every write to `users` and every session revocation by this app instance (the users
  // and auth services call it). A cached row is used only while the generation it was read in is still current, so
  // any user change (disable, roles, password, delete) and any revocation (logout, refresh-token reuse) is seen by the
  // next request. Per reader, so two app instances in one process (tests) do not share it.
  let usersGeneration = 0;
  const invalidate = (): void => {
    usersGeneration++;
  };
  if (!options.cache) return { read: readRow, remembered: () => undefined, invalidate };
  // Writes by another process (`fieldlens users reset-password` against the same SQLite file) do not call
  // invalidate: the database's change counter tells them, checked on every use of a remembered row.
  const externalChanges = options.externalChanges ?? (() => 0);
  let seenExternal = externalChanges();
  const current = (): number => {
    const external = externalChanges();
    if (external !== seenExternal) {
      seenExternal = external;
      usersGeneration++;
    }
    return usersGeneration;
  };
  const cache = new Map<string, { generation: number; row: TokenUserRow | undefined }>();
  return {
    async read(id, sessionId) {
      const key = `${id} ${sessionId}`;
      const hit = cache.get(key);
      // Taken before the read: a write that starts meanwhile makes this entry stale at once.
      const generation = current();
      if (hit?.generation === generation) return hit.row;
      const row = await readRow(id, sessionId);
      if (cache.size >= TOKEN_USER_CACHE_SIZE) cache.clear();
      cache.set(key, { generation, row });
      return row;
    },
    remembered(id, sessionId) {
      const hit = cache.get(`${id} ${sessionId}`);
      return hit?.generation === current() ? hit.row : undefined;
    },
    invalidate,
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

/** The user an OpenID provider's subject signed in as before (issuer and subject are stored exactly as the ID token had them). */
export async function findUserByOidcIdentity(
  db: Queryable,
  issuer: string,
  subject: string,
): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('oidc_issuer', '=', issuer)
    .where('oidc_subject', '=', subject)
    .executeTakeFirst();
}
