/** All SQL of login sessions, refresh tokens and failed-login throttling. */
import type { Queryable } from '../../db/database.js';

export interface RefreshTokenLookup {
  token_hash: string;
  used_at: string | null;
  session_id: string;
  user_id: string;
  session_expires_at: string;
  session_revoked_at: string | null;
}

export async function insertSession(
  db: Queryable,
  session: { id: string; user_id: string; created_at: string; expires_at: string },
): Promise<void> {
  await db
    .insertInto('auth_sessions')
    .values({ ...session, revoked_at: null, revoked_reason: null })
    .execute();
}

export async function insertRefreshToken(
  db: Queryable,
  token: { token_hash: string; session_id: string; created_at: string },
): Promise<void> {
  await db
    .insertInto('refresh_tokens')
    .values({ ...token, used_at: null })
    .execute();
}

export async function findRefreshToken(db: Queryable, tokenHash: string): Promise<RefreshTokenLookup | undefined> {
  return db
    .selectFrom('refresh_tokens')
    .innerJoin('auth_sessions', 'auth_sessions.id', 'refresh_tokens.session_id')
    .select([
      'refresh_tokens.token_hash',
      'refresh_tokens.used_at',
      'refresh_tokens.session_id',
      'auth_sessions.user_id',
      'auth_sessions.expires_at as session_expires_at',
      'auth_sessions.revoked_at as session_revoked_at',
    ])
    .where('refresh_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks a token used; false when another request used it first (a concurrent replay). */
export async function markRefreshTokenUsed(db: Queryable, tokenHash: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function revokeSession(db: Queryable, sessionId: string, at: string, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('auth_sessions')
    .set({ revoked_at: at, revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function revokeUserSessions(db: Queryable, userId: string, at: string, reason: string): Promise<number> {
  const result = await db
    .updateTable('auth_sessions')
    .set({ revoked_at: at, revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Removes sessions that ended long ago, so the tables do not grow without bound. */
export async function deleteSessionsEndedBefore(db: Queryable, before: string): Promise<void> {
  await db.deleteFrom('auth_sessions').where('expires_at', '<', before).execute();
}

export async function findLoginAttempts(db: Queryable, usernameKey: string) {
  return db.selectFrom('login_attempts').selectAll().where('username_key', '=', usernameKey).executeTakeFirst();
}

/** Writes a username's failure streak and claimed attempts (the caller holds the username's lock, so read-then-write is safe). */
export async function putLoginAttempts(
  db: Queryable,
  row: { username_key: string; failures: number; pending: number; locked_until: string | null; last_failed_at: string },
): Promise<void> {
  await db
    .insertInto('login_attempts')
    .values(row)
    .onConflict((oc) =>
      oc.column('username_key').doUpdateSet({
        failures: row.failures,
        pending: row.pending,
        locked_until: row.locked_until,
        last_failed_at: row.last_failed_at,
      }),
    )
    .execute();
}

export async function clearLoginFailures(db: Queryable, usernameKey: string): Promise<void> {
  await db.deleteFrom('login_attempts').where('username_key', '=', usernameKey).execute();
}

export async function deleteStaleLoginAttempts(db: Queryable, before: string): Promise<void> {
  await db
    .deleteFrom('login_attempts')
    .where('last_failed_at', '<', before)
    .where('locked_until', 'is', null)
    .execute();
}
