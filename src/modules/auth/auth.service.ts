/**
 * Login, refresh-token rotation with reuse detection (RFC 9700 §4.14.2), logout, the current user,
 * and verification of bearer tokens for every protected request.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Database, Queryable, Tx } from '../../db/database.js';
import { callerPermissions, type Caller, type Permission, type Principal, type Role } from '../../http/access.js';
import type { Authenticator } from '../../http/authentication.js';
import { AppError } from '../../http/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  findUserById,
  findUserByUsername,
  parseRoles,
  userForTokenReader,
  type TokenUserReader,
  type TokenUserRow,
} from '../users/users.service.js';
import * as repo from './auth.repository.js';
import { passwordHashing } from '../../crypto/password.js';
import {
  hashRefreshToken,
  invalidToken,
  newRefreshToken,
  type AccessTokenClaims,
  type AccessTokens,
} from './tokens.js';

/** After this many consecutive failures a username is throttled. */
export const MAX_CONSECUTIVE_FAILURES = 10;
const FIRST_LOCK_SECONDS = 60;
const MAX_LOCK_SECONDS = 900;
/** A failure streak older than this is forgotten (Keycloak's failure-reset default). */
const FAILURE_RESET_MS = 12 * 60 * 60 * 1000;

/**
 * A claimed attempt whose check never settled (its process died) stops holding a place once no attempt has been
 * claimed for this long; a check takes well under a second.
 */
const PENDING_STALE_MS = 60_000;
/** How long an attempt waits for a place while the username's allowed checks are all running. */
const CLAIM_WAIT_MS = 10_000;
const CLAIM_POLL_MS = 100;

/**
 * The outcome of claiming a login attempt: go on and check the password; refuse for `retryAfter` seconds (locked); or
 * `busy`: as many checks are running as failures are still allowed, so this one waits for one of them to settle.
 */
type LoginClaim = { outcome: 'granted' } | { outcome: 'locked'; retryAfter: number } | { outcome: 'busy' };

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

export interface CurrentUser {
  id: string;
  username: string;
  email: string;
  roles: Array<{ role: Role; scope: string }>;
  permissions: Permission[];
  sku_tier: string;
}

/** Lock length after `failures` consecutive failures: 60 s, doubling, at most 15 min. */
export function lockSecondsFor(failures: number): number {
  if (failures < MAX_CONSECUTIVE_FAILURES) return 0;
  return Math.min(FIRST_LOCK_SECONDS * 2 ** (failures - MAX_CONSECUTIVE_FAILURES), MAX_LOCK_SECONDS);
}

/**
 * Whether a token's user still admits it: the user exists, is enabled, has not changed since the token was issued, and
 * the token's login session still exists and was not revoked (logout, refresh-token reuse).
 */
function admits(user: TokenUserRow | undefined, claims: AccessTokenClaims): user is TokenUserRow {
  return (
    user !== undefined &&
    user.disabled !== 1 &&
    user.token_version === claims.ver &&
    user.session_user_id === user.id &&
    user.session_revoked_at === null
  );
}

export class AuthService implements Authenticator {
  private dummyHash: Promise<string> | undefined;
  private readonly userForToken: TokenUserReader;
  /** The principal built from a user row, so a remembered row (SQLite) does not rebuild it on every request. */
  private readonly principals = new WeakMap<TokenUserRow, Principal>();

  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      config: Config['auth'];
      audit: AuditService;
      tokens: AccessTokens;
      /** The current license tier, for `me`. */
      currentTier: () => Promise<string>;
    },
  ) {
    this.userForToken = userForTokenReader(deps.database.db, {
      cache: deps.database.singleConnection,
      ...(deps.database.externalChanges ? { externalChanges: deps.database.externalChanges } : {}),
    });
  }

  /** Called by the users service before it writes a user: the token lookup's remembered rows are stale from then on. */
  userChanged(): void {
    this.userForToken.invalidate();
  }

  private get db() {
    return this.deps.database.db;
  }

  /**
   * Checks a username and password; answers a token pair, 401 invalid_credentials, or 429 while throttled.
   * Each check first claims one attempt of the username's failure streak in the database (serialised per username across
   * instances), so however many guesses run in parallel, at most MAX_CONSECUTIVE_FAILURES passwords are checked before
   * the lock; a correct password releases the streak. Unknown users take the same path and cost the same Argon2 check.
   */
  async login(username: string, password: string, requestId: string): Promise<TokenPair & { token_type: 'bearer' }> {
    if (!this.deps.config.passwordLogin) {
      throw new AppError(
        'forbidden',
        'Password login is turned off on this server (FIELDLENS_PASSWORD_LOGIN=off): sign in with single sign-on',
      );
    }
    const usernameKey = username.toLowerCase();
    await this.claimLoginAttempt(usernameKey);

    const user = await findUserByUsername(this.db, username);
    // An unknown user costs one Argon2 verification too, so timing does not tell which case it was.
    const passwordOk = await passwordHashing.verify(user?.password_hash ?? (await this.dummyPasswordHash()), password);
    if (!user || !passwordOk || user.disabled === 1) {
      await this.db.transaction().execute(async (trx) => {
        const { failures, lockSeconds } = await this.settleFailedAttempt(trx, usernameKey, this.deps.clock.now());
        await this.deps.audit.record(
          trx,
          { id: user?.id ?? null, username: user?.username ?? null, requestId },
          {
            action: 'auth.login_failed',
            targetType: 'user',
            targetId: user?.id ?? null,
            details: {
              username: username.slice(0, 128),
              consecutive_failures: failures,
              ...(lockSeconds > 0 ? { locked_seconds: lockSeconds } : {}),
            },
          },
        );
      });
      throw new AppError('invalid_credentials', 'The username or password is wrong');
    }

    return this.db.transaction().execute(async (trx) => {
      await this.settleSuccessfulAttempt(trx, usernameKey);
      return this.startSession(trx, user, requestId, { method: 'password' });
    });
  }

  /**
   * Opens a login session for a user who has just proved who they are (a password, a single sign-on) and answers its
   * token pair; writes `auth.login` in the caller's transaction.
   */
  async startSession(
    trx: Tx,
    user: { id: string; username: string; token_version: number },
    requestId: string,
    details: { method: 'password' | 'oidc' },
  ): Promise<TokenPair & { token_type: 'bearer' }> {
    const now = this.deps.clock.now();
    const refreshToken = newRefreshToken();
    const sessionId = randomUUID();
    await repo.insertSession(trx, {
      id: sessionId,
      user_id: user.id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.deps.config.refreshTokenTtlSeconds * 1000).toISOString(),
    });
    await repo.insertRefreshToken(trx, {
      token_hash: hashRefreshToken(refreshToken),
      session_id: sessionId,
      created_at: now.toISOString(),
    });
    await this.deps.audit.record(
      trx,
      { id: user.id, username: user.username, requestId },
      {
        action: 'auth.login',
        targetType: 'user',
        targetId: user.id,
        details: { session_id: sessionId, ...(details.method === 'password' ? {} : { method: details.method }) },
      },
    );
    const accessToken = await this.deps.tokens.sign({ sub: user.id, ver: user.token_version, sid: sessionId }, now);
    return {
      access_token: accessToken,
      refresh_token: refreshToken,
      token_type: 'bearer',
      expires_in: this.deps.tokens.ttlSeconds,
    };
  }

  /**
   * Claims one password check for the username before it runs, or throws 429 while the username is locked. Claims are
   * serialised per username (across instances), and no more checks run at once than failures are still allowed before
   * the lock (after a lock ran out, one at a time): so however many guesses arrive in parallel, at most 10 fail before
   * the lock. An attempt that finds every allowed check running waits for one to settle (a correct password frees the
   * streak), for at most CLAIM_WAIT_MS, then is answered 429 too.
   */
  private async claimLoginAttempt(usernameKey: string): Promise<void> {
    // eslint-disable-next-line no-restricted-properties -- real time: how long this request has waited for a login slot
    const started = Date.now();
    for (;;) {
      const now = this.deps.clock.now();
      const claim = await this.db.transaction().execute((trx) => this.tryClaim(trx, usernameKey, now));
      if (claim.outcome === 'granted') return;
      // eslint-disable-next-line no-restricted-properties -- real time: how long this request has waited for a login slot
      if (claim.outcome === 'locked' || Date.now() - started >= CLAIM_WAIT_MS) {
        const retryAfter = claim.outcome === 'locked' ? claim.retryAfter : 1;
        throw new AppError('rate_limited', `Too many failed logins for this username; try again in ${retryAfter} s`, {
          headers: { 'retry-after': String(retryAfter) },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS * (0.5 + Math.random())));
    }
  }

  private async tryClaim(trx: Tx, usernameKey: string, now: Date): Promise<LoginClaim> {
    await this.deps.database.lock(trx, `fieldlens.login.${usernameKey}`);
    const current = await repo.findLoginAttempts(trx, usernameKey);
    if (current?.locked_until && current.locked_until > now.toISOString()) {
      return {
        outcome: 'locked',
        retryAfter: Math.max(1, Math.ceil((Date.parse(current.locked_until) - now.getTime()) / 1000)),
      };
    }
    const sinceLast = current === undefined ? Infinity : now.getTime() - Date.parse(current.last_failed_at);
    const failures = current !== undefined && sinceLast < FAILURE_RESET_MS ? current.failures : 0;
    const pending = current !== undefined && sinceLast < PENDING_STALE_MS ? current.pending : 0;
    const allowed = failures < MAX_CONSECUTIVE_FAILURES ? MAX_CONSECUTIVE_FAILURES - failures : 1;
    if (pending >= allowed) return { outcome: 'busy' };
    await repo.putLoginAttempts(trx, {
      username_key: usernameKey,
      failures,
      pending: pending + 1,
      locked_until: null,
      last_failed_at: now.toISOString(),
    });
    return { outcome: 'granted' };
  }

  /** Turns a claimed attempt into one more consecutive failure, locking the username when it reaches the limit. */
  private async settleFailedAttempt(
    trx: Tx,
    usernameKey: string,
    now: Date,
  ): Promise<{ failures: number; lockSeconds: number }> {
    await this.deps.database.lock(trx, `fieldlens.login.${usernameKey}`);
    const current = await repo.findLoginAttempts(trx, usernameKey);
    const failures = (current?.failures ?? 0) + 1;
    const lockSeconds = lockSecondsFor(failures);
    await repo.putLoginAttempts(trx, {
      username_key: usernameKey,
      failures,
      pending: Math.max(0, (current?.pending ?? 1) - 1),
      locked_until:
        lockSeconds > 0 ? new Date(now.getTime() + lockSeconds * 1000).toISOString() : (current?.locked_until ?? null),
      last_failed_at: current?.last_failed_at ?? now.toISOString(),
    });
    return { failures, lockSeconds };
  }

  /** A correct password: the streak is over; the attempt's claim is released. */
  private async settleSuccessfulAttempt(trx: Tx, usernameKey: string): Promise<void> {
    await this.deps.database.lock(trx, `fieldlens.login.${usernameKey}`);
    const current = await repo.findLoginAttempts(trx, usernameKey);
    const pending = Math.max(0, (current?.pending ?? 1) - 1);
    if (current === undefined || pending === 0) {
      await repo.clearLoginFailures(trx, usernameKey);
      return;
    }
    await repo.putLoginAttempts(trx, {
      username_key: usernameKey,
      failures: 0,
      pending,
      locked_until: null,
      last_failed_at: current.last_failed_at,
    });
  }

  /**
   * Rotates a refresh token. A token that was already used revokes its whole login session,
   * so a stolen token and the legitimate one cannot both keep working.
   */
  async refresh(refreshToken: string, requestId: string): Promise<TokenPair> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const tokenHash = hashRefreshToken(refreshToken);
    const outcome = await this.db.transaction().execute(async (trx) => {
      const found = await repo.findRefreshToken(trx, tokenHash);
      if (!found || found.session_revoked_at !== null || found.session_expires_at <= at) return { ok: false as const };
      const firstUse = found.used_at === null && (await repo.markRefreshTokenUsed(trx, tokenHash, at));
      if (!firstUse) {
        this.userForToken.invalidate();
        await repo.revokeSession(trx, found.session_id, at, 'refresh_token_reuse');
        await this.deps.audit.record(
          trx,
          { id: found.user_id, username: null, requestId },
          {
            action: 'auth.refresh_reuse_detected',
            targetType: 'session',
            targetId: found.session_id,
            details: { user_id: found.user_id },
          },
        );
        return { ok: false as const };
      }
      const user = await findUserById(trx, found.user_id);
      if (!user || user.disabled === 1) {
        this.userForToken.invalidate();
        await repo.revokeSession(trx, found.session_id, at, 'user_inactive');
        return { ok: false as const };
      }
      const next = newRefreshToken();
      await repo.insertRefreshToken(trx, {
        token_hash: hashRefreshToken(next),
        session_id: found.session_id,
        created_at: at,
      });
      return { ok: true as const, user, next, sessionId: found.session_id };
    });
    if (!outcome.ok)
      throw new AppError('invalid_grant', 'The refresh token is unknown, expired, revoked or already used');
    const accessToken = await this.deps.tokens.sign(
      { sub: outcome.user.id, ver: outcome.user.token_version, sid: outcome.sessionId },
      now,
    );
    return { access_token: accessToken, refresh_token: outcome.next, expires_in: this.deps.tokens.ttlSeconds };
  }

  /** Ends the login session of a refresh token. Unknown tokens are ignored (RFC 7009 §2.2). */
  async logout(refreshToken: string, requestId: string): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    await this.db.transaction().execute(async (trx) => {
      const found = await repo.findRefreshToken(trx, hashRefreshToken(refreshToken));
      if (!found) return;
      this.userForToken.invalidate();
      if (await repo.revokeSession(trx, found.session_id, at, 'logout')) {
        await this.deps.audit.record(
          trx,
          { id: found.user_id, username: null, requestId },
          {
            action: 'auth.logout',
            targetType: 'session',
            targetId: found.session_id,
          },
        );
      }
    });
  }

  /** Resolves a bearer token to its user, checking the user on every request so disabling or role changes apply at once. */
  async authenticate(token: string): Promise<Principal> {
    const claims = await this.deps.tokens.verify(token, this.deps.clock.now());
    const user = await this.userForToken.read(claims.sub, claims.sid);
    if (!admits(user, claims)) throw invalidToken();
    return this.principalOf(user);
  }

  /**
   * The principal of a token already verified whose user's current row is remembered (SQLite only: see
   * userForTokenReader), without waiting; undefined whenever `authenticate` has to decide, refusals included.
   */
  rememberedPrincipal(token: string): Principal | undefined {
    const claims = this.deps.tokens.verifiedClaims(token, this.deps.clock.now());
    if (claims === undefined) return undefined;
    const user = this.userForToken.remembered(claims.sub, claims.sid);
    return admits(user, claims) ? this.principalOf(user) : undefined;
  }

  private principalOf(user: TokenUserRow): Principal {
    let principal = this.principals.get(user);
    if (principal === undefined) {
      principal = Object.freeze({
        id: user.id,
        username: user.username,
        email: user.email,
        roles: Object.freeze(parseRoles(user.roles)),
      });
      this.principals.set(user, principal);
    }
    return principal;
  }

  /** The caller's identity, roles, permissions and the license tier. */
  async currentUser(caller: Caller): Promise<CurrentUser> {
    // The caller was read from the database by authenticate() for this very request.
    return {
      id: caller.id,
      username: caller.username,
      email: caller.email,
      roles: caller.roles.map((role) => ({ role, scope: 'global' })),
      permissions: callerPermissions(caller),
      sku_tier: await this.deps.currentTier(),
    };
  }

  /** Revokes every login session of a user (after disable, role or password change, deletion). */
  async revokeAllSessions(trx: Queryable, userId: string, reason: string): Promise<number> {
    this.userForToken.invalidate();
    return repo.revokeUserSessions(trx, userId, this.deps.clock.now().toISOString(), reason);
  }

  /** Forgets a username's failed-login streak and lock (an operator reset the password). */
  async clearLoginFailures(trx: Queryable, username: string): Promise<void> {
    await repo.clearLoginFailures(trx, username.toLowerCase());
  }

  /** Deletes long-ended sessions and stale failure streaks (called periodically). */
  async pruneExpired(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    this.userForToken.invalidate();
    await repo.deleteSessionsEndedBefore(this.db, new Date(now - 24 * 60 * 60 * 1000).toISOString());
    await repo.deleteStaleLoginAttempts(this.db, new Date(now - FAILURE_RESET_MS).toISOString());
  }

  private dummyPasswordHash(): Promise<string> {
    this.dummyHash ??= passwordHashing.hash(randomBytes(24).toString('base64url'));
    return this.dummyHash;
  }
}

/** The session side of AuthService for a process that issues no tokens (the CLI's recovery commands). */
export function sessionAdmin(clock: Clock): Pick<AuthService, 'revokeAllSessions' | 'clearLoginFailures'> {
  return {
    revokeAllSessions: (trx, userId, reason) => repo.revokeUserSessions(trx, userId, clock.now().toISOString(), reason),
    clearLoginFailures: (trx, username) => repo.clearLoginFailures(trx, username.toLowerCase()),
  };
}
