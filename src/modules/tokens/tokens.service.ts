/**
 * API tokens: long-lived bearer tokens a user creates for scripts and scanners (`Authorization: Bearer flk_…`). The
 * secret is shown once; only its HMAC-SHA256 under a subkey of the signing key is stored (a fast keyed hash is right
 * for 190 random bits: nothing to guess, and a stolen table without the key cannot even confirm a token). A token acts
 * as its user with the permissions it was given ∩ the user's permissions now, checked on every request: a disabled or
 * deleted user, a revoked or an expired token is refused at once. A token cannot create tokens (a leaked one could
 * otherwise outlive its expiry by minting successors); it may list and revoke them like its user.
 */
import { createHmac, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { ApiTokenRow } from '../../db/schema.js';
import {
  callerGrants,
  callerPermissions,
  isPermission,
  permissionsOf,
  type Caller,
  type Permission,
  type Principal,
} from '../../http/access.js';
import type { Authenticator } from '../../http/authentication.js';
import { AppError, conflict, forbidden, notFound } from '../../http/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import { findUserById, parseRoles } from '../users/users.service.js';
import * as repo from './tokens.repository.js';
import {
  MAX_TOKENS_PER_USER,
  type CreateTokenBody,
  type CreatedTokenResponse,
  type TokenResponse,
} from './tokens.schemas.js';

export const TOKEN_PREFIX = 'flk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 base62 characters: 32 × log2(62) ≈ 190 random bits. */
const SECRET_LENGTH = 32;
const TOKEN_FORMAT = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`);
/** Characters of the secret kept in `prefix` (about 36 bits: enough to tell tokens apart, far too few to guess the rest). */
const SHOWN_CHARACTERS = 6;
/** last_used_at is written at most this often per token. */
const TOUCH_EVERY_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Tokens whose last recorded use this instance remembers (forgotten all at once beyond). */
const TOUCHED_MEMORY = 10_000;
/** HKDF `info` of the token-hash subkey: the signing key itself never keys anything but JWTs. */
const HASH_KEY_INFO = 'fieldlens api-token hash v1';

/** Whether a bearer credential is meant as an API token (then only the API-token check decides). */
export function isApiToken(token: string): boolean {
  return token.startsWith(TOKEN_PREFIX);
}

/** A new API token: `flk_` + 32 base62 characters from the CSPRNG (bytes ≥ 248 are dropped, so every character is uniform). */
export function newApiToken(): string {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(SECRET_LENGTH * 2)) {
      if (byte >= 248) continue;
      secret += BASE62[byte % 62];
      if (secret.length === SECRET_LENGTH) break;
    }
  }
  return TOKEN_PREFIX + secret;
}

/** The subkey that keys the stored token hashes, derived from the token signing key with HKDF-SHA256. */
export function tokenHashKey(signingKey: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, new Uint8Array(0), HASH_KEY_INFO, 32));
}

function invalidApiToken(): AppError {
  return new AppError('unauthorized', 'The API token is not valid', {
    headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
  });
}

function parsePermissions(json: string | null): Permission[] | null {
  if (json === null) return null;
  try {
    const value: unknown = JSON.parse(json);
    // Anything unreadable grants nothing (never everything).
    return Array.isArray(value) ? value.filter((p): p is Permission => typeof p === 'string' && isPermission(p)) : [];
  } catch {
    return [];
  }
}

function toResponse(row: ApiTokenRow): TokenResponse {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    permissions: parsePermissions(row.permissions),
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
  };
}

/** What the audit log keeps of a token: never the secret nor its hash. */
function auditView(
  row: Pick<ApiTokenRow, 'name' | 'prefix' | 'permissions' | 'expires_at' | 'user_id'>,
): Record<string, unknown> {
  return {
    name: row.name,
    prefix: row.prefix,
    permissions: parsePermissions(row.permissions),
    expires_at: row.expires_at,
    user_id: row.user_id,
  };
}

export interface ApiTokensServiceDeps {
  database: Database;
  clock: Clock;
  audit: AuditService;
  /** From tokenHashKey(signing key). */
  hashKey: Uint8Array;
}

export class ApiTokensService {
  private readonly tokenByHash: ReturnType<typeof repo.tokenByHashReader>;
  /** When this instance last recorded each token's use (ms of the clock). */
  private readonly touchedAt = new Map<string, number>();

  constructor(private readonly deps: ApiTokensServiceDeps) {
    if (deps.hashKey.byteLength < 32) throw new Error('The API token hash key must be at least 256 bits');
    this.tokenByHash = repo.tokenByHashReader(deps.database.db);
  }

  private get db() {
    return this.deps.database.db;
  }

  /**
   * Whether this request records the token's use: requests in flight together all read the old last_used_at, so
   * without this each would send the (conditional, harmless) update; this instance sends one a minute per token.
   */
  private claimTouch(id: string, nowMs: number): boolean {
    const last = this.touchedAt.get(id);
    if (last !== undefined && nowMs - last < TOUCH_EVERY_MS && nowMs >= last) return false;
    if (this.touchedAt.size >= TOUCHED_MEMORY) this.touchedAt.clear();
    this.touchedAt.set(id, nowMs);
    return true;
  }

  private hash(token: string): string {
    return createHmac('sha256', this.deps.hashKey).update(token).digest('hex');
  }

  /**
   * Creates a token for the caller. 403 when asked for a permission the caller does not hold or when the caller is
   * itself an API token; 409 at MAX_TOKENS_PER_USER. Audited `token.created` (never the secret).
   */
  async createToken(caller: Caller, body: CreateTokenBody): Promise<CreatedTokenResponse> {
    if (caller.apiToken !== undefined) throw forbidden('An API token cannot create API tokens: sign in to create one');
    const held = callerPermissions(caller);
    const missing = (body.permissions ?? []).filter((p) => !held.includes(p));
    if (missing.length > 0) {
      throw forbidden(`A token can only be given permissions you hold; you do not hold ${missing.join(', ')}`);
    }
    const token = newApiToken();
    const now = this.deps.clock.now();
    const row: ApiTokenRow = {
      id: randomUUID(),
      user_id: caller.id,
      name: body.name,
      prefix: token.slice(0, TOKEN_PREFIX.length + SHOWN_CHARACTERS),
      token_hash: this.hash(token),
      // Kept in the table's order, so lists read the same whoever created them.
      permissions:
        body.permissions === undefined ? null : JSON.stringify(held.filter((p) => body.permissions?.includes(p))),
      expires_at: new Date(now.getTime() + body.expires_in_days * DAY_MS).toISOString(),
      last_used_at: null,
      created_at: now.toISOString(),
    };
    await this.db.transaction().execute(async (trx) => {
      // Serialises one user's creations, so two at once cannot both pass the limit.
      await this.deps.database.lock(trx, `fieldlens.api_tokens.${caller.id}`);
      if ((await repo.countTokensOfUser(trx, caller.id)) >= MAX_TOKENS_PER_USER) {
        throw conflict(
          `A user holds at most ${MAX_TOKENS_PER_USER} API tokens (expired ones count until revoked): revoke some first`,
        );
      }
      await repo.insertToken(trx, row);
      await this.deps.audit.record(trx, caller, {
        action: 'token.created',
        targetType: 'api_token',
        targetId: row.id,
        details: auditView(row),
      });
    });
    const { last_used_at: _unused, ...shown } = toResponse(row);
    return { ...shown, token };
  }

  /** The caller's tokens, newest first; another user's with user:read (404 for an unknown user). Never the secret. */
  async listTokens(caller: Caller, userId?: string): Promise<TokenResponse[]> {
    const owner = userId ?? caller.id;
    if (owner !== caller.id) {
      if (!callerGrants(caller, 'user:read'))
        throw forbidden("Listing another user's API tokens needs the permission user:read");
      if (!(await findUserById(this.db, owner))) throw notFound('User');
    }
    return (await repo.listTokensOfUser(this.db, owner)).map(toResponse);
  }

  /**
   * Revokes (deletes) a token: the caller's own, or anyone's with user:write (a superadmin's only by a superadmin, as
   * for changing the user). 404 for a token the caller may not revoke, as for one that does not exist. Audited.
   */
  async revokeToken(caller: Caller, id: string): Promise<void> {
    const row = await repo.findToken(this.db, id);
    if (!row) throw notFound('API token');
    if (row.user_id !== caller.id) {
      if (!callerGrants(caller, 'user:write')) throw notFound('API token');
      const owner = await findUserById(this.db, row.user_id);
      if (owner && parseRoles(owner.roles).includes('superadmin') && !caller.roles.includes('superadmin')) {
        throw forbidden("Only a superadmin can revoke a superadmin's API tokens");
      }
    }
    await this.db.transaction().execute(async (trx) => {
      if (!(await repo.deleteToken(trx, id))) throw notFound('API token');
      await this.deps.audit.record(trx, caller, {
        action: 'token.revoked',
        targetType: 'api_token',
        targetId: id,
        details: auditView(row),
      });
    });
  }

  /**
   * The caller of an API token: 401 unauthorized for a malformed, unknown or revoked token or a disabled or deleted
   * user, 401 token_expired for an expired one. Records the use (at most once a minute per token).
   */
  async authenticate(token: string): Promise<Principal> {
    if (!TOKEN_FORMAT.test(token)) throw invalidApiToken();
    const hash = this.hash(token);
    const row = await this.tokenByHash(hash);
    // The lookup is by an HMAC the caller cannot steer; the comparison confirms it without a timing difference.
    if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) throw invalidApiToken();
    const now = this.deps.clock.now();
    if (row.expires_at <= now.toISOString()) {
      throw new AppError('token_expired', 'The API token has expired; create a new one', {
        headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="expired"' },
      });
    }
    // A deleted user's tokens are deleted with it (the lookup finds nothing); a disabled one's are refused.
    if (row.disabled === 1) throw invalidApiToken();
    const roles = Object.freeze(parseRoles(row.roles));
    const given = parsePermissions(row.permissions);
    const held = permissionsOf(roles);
    const permissions = Object.freeze(given === null ? held : held.filter((p) => given.includes(p)));
    if (
      (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= TOUCH_EVERY_MS) &&
      this.claimTouch(row.id, now.getTime())
    ) {
      // When it was last used is for the owner's information: a failed write does not refuse the request.
      await repo
        .touchToken(this.db, row.id, now.toISOString(), new Date(now.getTime() - TOUCH_EVERY_MS).toISOString())
        .catch(() => undefined);
    }
    return Object.freeze({
      id: row.user_id,
      username: row.username,
      email: row.email,
      roles,
      apiToken: Object.freeze({ id: row.id, permissions }),
    });
  }
}

/**
 * The bearer check of every protected route: a `flk_` credential is an API token, anything else a login's access
 * token (a JWT never starts with `flk_`: its first segment is base64url of `{"`, "ey…").
 */
export function bearerAuthenticator(
  apiTokens: Pick<ApiTokensService, 'authenticate'>,
  accessTokens: Authenticator,
): Authenticator {
  return {
    authenticate: (token) => (isApiToken(token) ? apiTokens.authenticate(token) : accessTokens.authenticate(token)),
    rememberedPrincipal: (token) => (isApiToken(token) ? undefined : accessTokens.rememberedPrincipal(token)),
  };
}
