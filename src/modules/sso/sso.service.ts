/**
 * Single sign-on with OpenID Connect (CONTRACT §12): a sign-in starts here (a pending sign-in in the database, so any
 * instance can finish it), goes to the provider, comes back to the callback, which checks it through the library, maps
 * the roles claim to roles, finds or creates the user through the users module, and hands the browser a one-use code
 * (60 s) that the console exchanges for the same token pair as a password login.
 *
 * The browser that starts a sign-in gets a random binding in a cookie; the callback and the code exchange must present
 * it, so nobody can make another person's browser finish a sign-in (or redeem a code) they started (login CSRF).
 * Nothing secret is logged or audited: the state, code, binding and sso code are stored only hashed, the PKCE verifier
 * sealed under a key derived from the state.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Config, OidcConfig } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { Role } from '../../http/access.js';
import { AppError, notFound } from '../../http/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { AuthService, TokenPair } from '../auth/auth.service.js';
import { findUserById, type SsoIdentity, type UsersService } from '../users/users.service.js';
import { OidcClient, type OidcClaims } from './oidc-client.js';
import * as repo from './sso.repository.js';

/** How long a sign-in may stay at the provider (login page, second factor) before its callback is refused. */
export const PENDING_LOGIN_TTL_MS = 10 * 60 * 1000;
/** How long the console has to exchange the code the callback hands it. */
export const SSO_CODE_TTL_MS = 60 * 1000;
export const BINDING_COOKIE = 'fieldlens_sso';
export const BINDING_COOKIE_PATH = '/api/v1/auth/oidc';

/**
 * Why a sign-in ended without a session, as the console's `#sso_error=` shows it: the provider refused or the user
 * cancelled (`access_denied`), the sign-in is unknown, already finished or too old (`login_expired`), it did not verify
 * (`login_failed`), no group maps to a role (`no_role`), the user is disabled (`user_disabled`), the license's user
 * quota is full (`quota_exceeded`), the provider cannot be reached (`provider_unavailable`).
 */
export type SsoErrorCode =
  | 'access_denied'
  | 'login_expired'
  | 'login_failed'
  | 'no_role'
  | 'user_disabled'
  | 'quota_exceeded'
  | 'provider_unavailable';

export interface ProvidersResponse {
  password: boolean;
  oidc: { enabled: boolean; name: string | null };
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

function verifierKey(state: string): Buffer {
  return createHash('sha256').update('fieldlens sso verifier\0').update(state).digest();
}

/** Seals the PKCE verifier with AES-256-GCM under a key only the state (which the database keeps hashed) gives. */
export function sealVerifier(verifier: string, state: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', verifierKey(state), iv);
  const sealed = Buffer.concat([cipher.update(verifier, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

function openVerifier(sealed: string, state: string): string {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', verifierKey(state), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** The groups of a claim: an array of strings, or one string of groups separated by commas or spaces. */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((g) => g !== '');
  return [];
}

/** The roles the groups map to, in the order of the access table's roles. */
export function rolesOf(groups: readonly string[], roleMap: ReadonlyMap<string, readonly Role[]>): Role[] {
  const roles = new Set<Role>();
  for (const group of groups) for (const role of roleMap.get(group) ?? []) roles.add(role);
  return [...roles];
}

export class SsoService {
  private readonly client: OidcClient | undefined;

  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      log: FastifyBaseLogger;
      audit: AuditService;
      auth: Pick<AuthService, 'startSession'>;
      users: Pick<UsersService, 'signInSsoUser'>;
      oidc: OidcConfig | undefined;
      passwordLogin: Config['auth']['passwordLogin'];
    },
  ) {
    this.client = deps.oidc === undefined ? undefined : new OidcClient(deps.oidc);
  }

  private get db() {
    return this.deps.database.db;
  }

  /** Which ways to sign in the console offers. */
  providers(): ProvidersResponse {
    return {
      password: this.deps.passwordLogin,
      oidc: { enabled: this.deps.oidc !== undefined, name: this.deps.oidc?.name ?? null },
    };
  }

  private settings(): { settings: OidcConfig; client: OidcClient } {
    if (this.deps.oidc === undefined || this.client === undefined)
      throw notFound('Single sign-on (not configured on this server)');
    return { settings: this.deps.oidc, client: this.client };
  }

  /** Where the browser goes at the end of a sign-in: the console, with a code or an error in the fragment. */
  private consoleUrl(fragment: string): string {
    return `${this.settings().settings.publicUrl}/#${fragment}`;
  }

  /**
   * Starts a sign-in: stores a pending sign-in (state hashed, nonce, verifier sealed, the browser binding hashed) and
   * answers the provider's authorization URL and the binding for the browser's cookie. 404 when SSO is not configured;
   * a provider that cannot be reached sends the browser back with `provider_unavailable`.
   */
  async startSignIn(requestId: string): Promise<{ location: string; binding: string | undefined }> {
    const { client } = this.settings();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    let url: URL;
    try {
      url = await client.authorizationUrl({ state, nonce, codeVerifier });
    } catch (error) {
      this.deps.log.warn(
        { err: error, reqId: requestId },
        'single sign-on: the OpenID provider could not be reached (discovery failed)',
      );
      return { location: this.consoleUrl('sso_error=provider_unavailable'), binding: undefined };
    }
    const binding = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await this.db.transaction().execute(async (trx) => {
      await repo.deleteExpired(trx, now.toISOString());
      await repo.insertPendingLogin(trx, {
        state_hash: sha256(state),
        binding_hash: sha256(binding),
        nonce,
        sealed_verifier: sealVerifier(codeVerifier, state),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + PENDING_LOGIN_TTL_MS).toISOString(),
      });
    });
    return { location: url.href, binding };
  }

  /**
   * Finishes a sign-in from the provider's redirect (`query`: the raw query string) and answers where the browser goes:
   * `/#sso_code=<code>` or `/#sso_error=<reason>`. The pending sign-in is taken first (a replayed state finds nothing).
   */
  async finishSignIn(query: string, binding: string | undefined, requestId: string): Promise<string> {
    const { settings, client } = this.settings();
    const params = new URLSearchParams(query);
    const state = params.get('state');
    const now = this.deps.clock.now();
    const pending = state === null ? undefined : await repo.takePendingLogin(this.db, sha256(state), now.toISOString());
    if (state === null || pending === undefined) return this.refuse('login_expired', requestId);
    if (binding === undefined || sha256(binding) !== pending.binding_hash)
      return this.refuse('login_failed', requestId, { reason: 'browser_mismatch' });
    const providerError = params.get('error');
    if (providerError !== null)
      return this.refuse('access_denied', requestId, { provider_error: providerError.slice(0, 64) });

    let claims: OidcClaims;
    try {
      const callbackUrl = new URL(settings.redirectUri);
      callbackUrl.search = query;
      claims = await client.exchange(callbackUrl, {
        state,
        nonce: pending.nonce,
        codeVerifier: openVerifier(pending.sealed_verifier, state),
      });
    } catch (error) {
      // The library's message, the claim it was about, the provider's OAuth error code: never a value.
      const { error: oauthError, cause } = error as { error?: unknown; cause?: unknown };
      const parts = [
        error instanceof Error ? error.message : 'unknown',
        cause instanceof Error ? cause.message : undefined,
        typeof oauthError === 'string' ? oauthError : undefined,
      ];
      const reason = parts
        .filter((p) => p !== undefined)
        .join(': ')
        .slice(0, 300);
      this.deps.log.warn({ reqId: requestId, reason }, 'single sign-on: the callback did not verify');
      return this.refuse('login_failed', requestId, { reason });
    }

    const groups = groupsOf(claims[settings.rolesClaim]);
    const roles = rolesOf(groups, settings.roleMap);
    const identity: SsoIdentity = {
      issuer: claims.iss,
      subject: claims.sub,
      usernameHints: [claims.preferred_username, claims.email].filter((h): h is string => typeof h === 'string'),
      email: typeof claims.email === 'string' && claims.email.length <= 254 ? claims.email : '',
    };
    let outcome;
    try {
      outcome = await this.deps.users.signInSsoUser(identity, roles, requestId);
    } catch (error) {
      if (error instanceof AppError && error.code === 'quota_exceeded')
        return this.refuse('quota_exceeded', requestId, { subject: claims.sub });
      throw error;
    }
    if (outcome.outcome === 'no_role')
      return this.refuse('no_role', requestId, {
        subject: claims.sub,
        user_id: outcome.userId,
        groups: groups.slice(0, 20).map((g) => g.slice(0, 128)),
      });
    if (outcome.outcome === 'disabled')
      return this.refuse('user_disabled', requestId, { subject: claims.sub, user_id: outcome.userId });

    const code = randomBytes(32).toString('base64url');
    await repo.insertSsoCode(this.db, {
      code_hash: sha256(code),
      binding_hash: pending.binding_hash,
      user_id: outcome.user.id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SSO_CODE_TTL_MS).toISOString(),
    });
    return this.consoleUrl(`sso_code=${code}`);
  }

  /** Audits a refused sign-in (`auth.sso_login_failed`, with what is safe to keep) and answers the console's error URL. */
  private async refuse(code: SsoErrorCode, requestId: string, details: Record<string, unknown> = {}): Promise<string> {
    await this.db.transaction().execute(async (trx) => {
      await this.deps.audit.record(
        trx,
        { id: typeof details.user_id === 'string' ? details.user_id : null, username: null, requestId },
        {
          action: 'auth.sso_login_failed',
          targetType: 'user',
          targetId: typeof details.user_id === 'string' ? details.user_id : null,
          details: { error: code, ...details },
        },
      );
    });
    return this.consoleUrl(`sso_error=${code}`);
  }

  /**
   * Exchanges the one-use code of a finished sign-in for a token pair (the same as a password login's), in the browser
   * that started the sign-in. The code is used up by any attempt; unknown, used, expired or from another browser → 401.
   */
  async exchangeCode(
    code: string,
    binding: string | undefined,
    requestId: string,
  ): Promise<TokenPair & { token_type: 'bearer' }> {
    this.settings();
    const now = this.deps.clock.now().toISOString();
    const result = await this.db.transaction().execute(async (trx) => {
      const row = await repo.takeSsoCode(trx, sha256(code));
      if (row === undefined || row.expires_at <= now || binding === undefined || sha256(binding) !== row.binding_hash)
        return undefined;
      const user = await findUserById(trx, row.user_id);
      if (user === undefined || user.disabled === 1) return undefined;
      return this.deps.auth.startSession(trx, user, requestId, { method: 'oidc' });
    });
    if (result === undefined)
      throw new AppError(
        'unauthorized',
        'The sign-in code is unknown, expired, already used or from another browser: sign in again',
      );
    return result;
  }
}
