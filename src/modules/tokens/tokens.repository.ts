/** All SQL of the `api_tokens` table. */
import type { Insertable } from 'kysely';
import type { Kdb, Queryable, Tx } from '../../db/database.js';
import type { ApiTokenRow, ApiTokensTable } from '../../db/schema.js';

export async function insertToken(trx: Tx, row: Insertable<ApiTokensTable>): Promise<void> {
  await trx.insertInto('api_tokens').values(row).execute();
}

export async function listTokensOfUser(db: Queryable, userId: string): Promise<ApiTokenRow[]> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

export async function countTokensOfUser(db: Queryable, userId: string): Promise<number> {
  const row = await db
    .selectFrom('api_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findToken(db: Queryable, id: string): Promise<ApiTokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteToken(trx: Tx, id: string): Promise<boolean> {
  const result = await trx.deleteFrom('api_tokens').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * What authenticating a request reads: the token (not its name) and its user's current row (no password hash). The
 * user is joined in, so a token costs one query per request like a login's access token (whose lookup joins the
 * session to the user); the one read of `users` outside the users module here, on the hottest path there is.
 */
export interface TokenAuthRow {
  id: string;
  user_id: string;
  token_hash: string;
  permissions: string | null;
  expires_at: string;
  last_used_at: string | null;
  username: string;
  email: string;
  roles: string;
  disabled: number;
}

/** The lookup of every request that presents an API token, by the unique index on the hash; compiled once. */
export function tokenByHashReader(db: Kdb): (tokenHash: string) => Promise<TokenAuthRow | undefined> {
  const compiled = db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .select([
      'api_tokens.id',
      'api_tokens.user_id',
      'api_tokens.token_hash',
      'api_tokens.permissions',
      'api_tokens.expires_at',
      'api_tokens.last_used_at',
      'users.username',
      'users.email',
      'users.roles',
      'users.disabled',
    ])
    .where('api_tokens.token_hash', '=', '')
    .compile();
  return async (tokenHash) => {
    const query: typeof compiled = { ...compiled, parameters: [tokenHash] };
    return (await db.executeQuery(query)).rows[0];
  };
}

/**
 * Records a use, unless one was recorded since `staleBefore` (by this or another instance): at most one write a minute
 * per token whatever the request rate.
 */
export async function touchToken(db: Queryable, id: string, at: string, staleBefore: string): Promise<void> {
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute();
}
