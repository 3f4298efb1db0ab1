/**
 * User management and the first-start superadmin. Disabling, deleting, or changing a
 * user's roles or password bumps its token version (its access tokens stop working on the next
 * request) and revokes its refresh sessions.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Database, Kdb, Queryable, Tx } from '../../db/database.js';
import type { UserRow, UserUpdate } from '../../db/schema.js';
import { isRole, type Caller, type Role } from '../../http/access.js';
import { AppError, conflict, forbidden, notFound } from '../../http/errors.js';
import { SYSTEM_ACTOR, type Actor, type AuditService } from '../audit/audit.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { LicenseGate } from '../license/license.gate.js';
import { hashPassword, passwordErrors, verifyPassword } from '../../crypto/password.js';
import * as repo from './users.repository.js';
import type { CreateUserBody, UpdateUserBody, UserResponse } from './users.schemas.js';

export function toUserResponse(user: UserRow): UserResponse {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    roles: parseRoles(user.roles).map((role) => ({ role, scope: 'global' })),
    disabled: user.disabled === 1,
    created_at: user.created_at,
  };
}

function assertPassword(password: string, username: string): void {
  const errors = passwordErrors(password, username);
  if (errors.length > 0) throw new AppError('validation_failed', errors[0]?.message ?? 'password refused', { errors });
}

/** The user lookups of login and refresh (the auth module reaches `users` through these). */
export function findUserByUsername(db: Queryable, username: string): Promise<UserRow | undefined> {
  return repo.findUserByUsername(db, username);
}

export function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  return repo.findUserById(db, id);
}

/** The per-request user-and-session lookup of bearer tokens (see the repository for its cache). */
/** The roles stored with a user (a JSON array); unknown or malformed entries are dropped, never trusted. */
export function parseRoles(json: string): Role[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((r): r is Role => typeof r === 'string' && isRole(r)) : [];
  } catch {
    return [];
  }
}

export function userForTokenReader(db: Kdb, options: repo.TokenUserReaderOptions): repo.TokenUserReader {
  return repo.userForTokenReader(db, options);
}

export type { TokenUserReader, TokenUserRow } from './users.repository.js';

/** What an operator's password reset needs: no HTTP, no tokens, no license. */
export interface PasswordResetDeps {
  database: Database;
  clock: Clock;
  audit: AuditService;
  auth: Pick<AuthService, 'revokeAllSessions' | 'clearLoginFailures'>;
}

/**
 * Sets a user's password outside the service (`fieldlens users reset-password`, the recovery path for a lost first
 * password): ends every session of the user and its failed-login lock, and writes `user.password_reset` to the audit
 * log in the same transaction. Throws AppError not_found or validation_failed (a refused password).
 */
export async function resetUserPassword(
  deps: PasswordResetDeps,
  actor: Actor,
  username: string,
  password: string,
): Promise<{ id: string; username: string }> {
  const existing = await repo.findUserByUsername(deps.database.db, username);
  if (!existing) throw notFound('User');
  assertPassword(password, existing.username);
  const passwordHash = await hashPassword(password);
  await deps.database.db.transaction().execute(async (trx) => {
    await deps.database.lock(trx, 'fieldlens.users');
    const current = await repo.findUserById(trx, existing.id);
    if (!current) throw notFound('User');
    await repo.updateUser(trx, existing.id, {
      password_hash: passwordHash,
      token_version: current.token_version + 1,
      updated_at: deps.clock.now().toISOString(),
    });
    const sessions = await deps.auth.revokeAllSessions(trx, existing.id, 'password_reset');
    await deps.auth.clearLoginFailures(trx, existing.username);
    await deps.audit.record(trx, actor, {
      action: 'user.password_reset',
      targetType: 'user',
      targetId: existing.id,
      details: { username: existing.username, revoked_sessions: sessions, source: 'cli' },
    });
  });
  return { id: existing.id, username: existing.username };
}

/** Who an OpenID provider says signed in: its stable identity and what the user is called there. */
export interface SsoIdentity {
  issuer: string;
  subject: string;
  /** Usernames to try in order (preferred_username, email); the first free one, made valid, is taken. */
  usernameHints: string[];
  email: string;
}

/**
 * The outcome of a single sign-on for the users module: `ok` (the user, with its roles set from the claim), `no_role`
 * (no group of the claim maps to a role: no user is created, an existing one loses its roles), `disabled`.
 */
export type SsoUserOutcome =
  | { outcome: 'ok'; user: UserRow; created: boolean }
  | { outcome: 'no_role'; userId: string | null }
  | { outcome: 'disabled'; userId: string };

/** A valid username (users.schemas Username) from a provider's hint, or undefined when nothing usable is left. */
export function usernameFromHint(hint: string): string | undefined {
  const cleaned = hint
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._@-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 56);
  return cleaned.length >= 3 ? cleaned : undefined;
}

export class UsersService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      auth: AuthService;
      gate: Pick<LicenseGate, 'assertCanCreate'>;
      config: Config['auth'];
    },
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** All users, oldest first. */
  async listUsers(): Promise<UserResponse[]> {
    return (await repo.listUsers(this.db)).map(toUserResponse);
  }

  /** Creates a user; 409 on a duplicate username, 403 at the license's user quota. */
  async createUser(caller: Caller, body: CreateUserBody): Promise<UserResponse> {
    if (body.roles.includes('superadmin') && !caller.roles.includes('superadmin')) {
      throw forbidden('Only a superadmin can grant the superadmin role');
    }
    assertPassword(body.password, body.username);
    const passwordHash = await hashPassword(body.password);
    const now = this.deps.clock.now().toISOString();
    const row: UserRow = {
      id: randomUUID(),
      username: body.username,
      username_key: body.username.toLowerCase(),
      email: body.email,
      password_hash: passwordHash,
      roles: JSON.stringify(body.roles),
      disabled: 0,
      token_version: 0,
      created_at: now,
      updated_at: now,
      oidc_issuer: null,
      oidc_subject: null,
    };
    await this.db.transaction().execute(async (trx) => {
      await this.deps.gate.assertCanCreate(trx, 'users');
      this.deps.auth.userChanged();
      await repo.insertUser(trx, row);
      await this.deps.audit.record(trx, caller, {
        action: 'user.created',
        targetType: 'user',
        targetId: row.id,
        details: { username: row.username, email: row.email, roles: body.roles },
      });
    });
    return toUserResponse(row);
  }

  /** Changes email, roles, disabled or password. */
  async updateUser(caller: Caller, id: string, body: UpdateUserBody): Promise<UserResponse> {
    const existing = await repo.findUserById(this.db, id);
    if (!existing) throw notFound('User');
    const beforeRoles = parseRoles(existing.roles);
    this.assertMayManage(caller, beforeRoles);
    if (body.roles?.includes('superadmin') && !caller.roles.includes('superadmin')) {
      throw forbidden('Only a superadmin can grant the superadmin role');
    }

    let passwordHash: string | undefined;
    if (body.password !== undefined) {
      if (caller.id === id) {
        // Changing your own password needs the current one (a stolen access token alone is not enough).
        if (
          body.current_password === undefined ||
          !(await verifyPassword(existing.password_hash, body.current_password))
        ) {
          throw new AppError('validation_failed', 'Changing your own password needs the correct current_password', {
            errors: [{ path: '/current_password', message: 'is missing or wrong' }],
          });
        }
      }
      assertPassword(body.password, existing.username);
      passwordHash = await hashPassword(body.password);
    }

    const update: UserUpdate = { updated_at: this.deps.clock.now().toISOString() };
    const changes: Record<string, unknown> = {};
    if (body.email !== undefined && body.email !== existing.email) {
      update.email = body.email;
      changes.email = { before: existing.email, after: body.email };
    }
    if (body.roles !== undefined && !sameRoles(body.roles, beforeRoles)) {
      update.roles = JSON.stringify(body.roles);
      changes.roles = { before: beforeRoles, after: body.roles };
    }
    if (body.disabled !== undefined && body.disabled !== (existing.disabled === 1)) {
      if (body.disabled && caller.id === id) throw conflict('You cannot disable your own account');
      update.disabled = body.disabled ? 1 : 0;
      changes.disabled = { before: existing.disabled === 1, after: body.disabled };
    }
    if (passwordHash !== undefined) {
      update.password_hash = passwordHash;
      changes.password = 'changed';
    }
    const securityRelevant = update.roles !== undefined || update.disabled !== undefined || passwordHash !== undefined;
    if (securityRelevant) update.token_version = existing.token_version + 1;

    await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.users');
      const losesSuperadmin =
        beforeRoles.includes('superadmin') &&
        existing.disabled === 0 &&
        (update.disabled === 1 || (update.roles !== undefined && !body.roles?.includes('superadmin')));
      if (losesSuperadmin) await this.assertNotLastSuperadmin(trx);
      if (update.disabled === 0) await this.deps.gate.assertCanCreate(trx, 'users');
      this.deps.auth.userChanged();
      await repo.updateUser(trx, id, update);
      if (securityRelevant) await this.deps.auth.revokeAllSessions(trx, id, 'user_changed');
      if (Object.keys(changes).length > 0) {
        await this.deps.audit.record(trx, caller, {
          action: 'user.updated',
          targetType: 'user',
          targetId: id,
          details: { username: existing.username, changes },
        });
      }
    });
    const updated = await repo.findUserById(this.db, id);
    if (!updated) throw notFound('User');
    return toUserResponse(updated);
  }

  /** Deletes a user and its sessions. */
  async deleteUser(caller: Caller, id: string): Promise<void> {
    const existing = await repo.findUserById(this.db, id);
    if (!existing) throw notFound('User');
    const roles = parseRoles(existing.roles);
    this.assertMayManage(caller, roles);
    if (caller.id === id) throw conflict('You cannot delete your own account');
    await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.users');
      if (roles.includes('superadmin') && existing.disabled === 0) await this.assertNotLastSuperadmin(trx);
      this.deps.auth.userChanged();
      if (!(await repo.deleteUser(trx, id))) throw notFound('User');
      await this.deps.audit.record(trx, caller, {
        action: 'user.deleted',
        targetType: 'user',
        targetId: id,
        details: { username: existing.username, roles },
      });
    });
  }

  /**
   * On first start with no users, creates `admin` (superadmin). Its password is
   * FIELDLENS_ADMIN_PASSWORD, else a random one printed once to the log. Safe when several
   * instances start at once: only the one whose insert wins prints a password.
   */
  async ensureFirstAdmin(log: FastifyBaseLogger): Promise<void> {
    if ((await repo.countUsers(this.db, { activeOnly: false })) > 0) return;
    const configured = this.deps.config.adminPassword;
    const password = configured ?? randomBytes(18).toString('base64url');
    if (configured !== undefined) assertPassword(configured, 'admin');
    const now = this.deps.clock.now().toISOString();
    const row: UserRow = {
      id: randomUUID(),
      username: 'admin',
      username_key: 'admin',
      email: 'admin@localhost',
      password_hash: await hashPassword(password),
      roles: JSON.stringify(['superadmin']),
      disabled: 0,
      token_version: 0,
      created_at: now,
      updated_at: now,
      oidc_issuer: null,
      oidc_subject: null,
    };
    try {
      await this.db.transaction().execute(async (trx) => {
        this.deps.auth.userChanged();
        await repo.insertUser(trx, row);
        await this.deps.audit.record(trx, SYSTEM_ACTOR, {
          action: 'user.created',
          targetType: 'user',
          targetId: row.id,
          details: { username: 'admin', roles: ['superadmin'], bootstrap: true },
        });
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return; // another instance created it first
      throw error;
    }
    if (configured === undefined) {
      // The one deliberate exception to "no secrets in logs": printed once, never stored in clear.
      log.warn(
        `First start: created user "admin" (superadmin) with the generated password: ${password} — change it after logging in.`,
      );
    } else {
      log.info('First start: created user "admin" (superadmin) with the password from FIELDLENS_ADMIN_PASSWORD');
    }
  }

  /**
   * Finds or creates the user of a single sign-on and sets its roles to `roles` (what the provider's claim maps to now).
   * Found by issuer and subject, never by username (a local account of the same name is not taken over). A created user
   * gets the first free username from the hints and an unusable random password; a changed role set ends the user's
   * sessions like an administrator's change. Audited as `user.created` / `user.updated` with `source: oidc`.
   */
  async signInSsoUser(identity: SsoIdentity, roles: readonly Role[], requestId: string): Promise<SsoUserOutcome> {
    const existing = await repo.findUserByOidcIdentity(this.db, identity.issuer, identity.subject);
    if (existing?.disabled === 1) return { outcome: 'disabled', userId: existing.id };
    if (existing === undefined && roles.length === 0) return { outcome: 'no_role', userId: null };
    // Hashed before the transaction (SQLite: nothing else may wait inside it); never used to log in.
    const passwordHash = existing === undefined ? await hashPassword(randomBytes(32).toString('base64url')) : undefined;
    const now = this.deps.clock.now().toISOString();
    return this.db.transaction().execute(async (trx): Promise<SsoUserOutcome> => {
      await this.deps.database.lock(trx, 'fieldlens.users');
      const current = await repo.findUserByOidcIdentity(trx, identity.issuer, identity.subject);
      if (current === undefined) {
        if (roles.length === 0 || passwordHash === undefined) return { outcome: 'no_role', userId: null };
        await this.deps.gate.assertCanCreate(trx, 'users');
        const username = await this.freeUsername(trx, identity.usernameHints);
        const row: UserRow = {
          id: randomUUID(),
          username,
          username_key: username.toLowerCase(),
          email: identity.email,
          password_hash: passwordHash,
          roles: JSON.stringify(roles),
          disabled: 0,
          token_version: 0,
          created_at: now,
          updated_at: now,
          oidc_issuer: identity.issuer,
          oidc_subject: identity.subject,
        };
        this.deps.auth.userChanged();
        await repo.insertUser(trx, row);
        await this.deps.audit.record(
          trx,
          { id: row.id, username, requestId },
          {
            action: 'user.created',
            targetType: 'user',
            targetId: row.id,
            details: { username, email: row.email, roles, source: 'oidc' },
          },
        );
        return { outcome: 'ok', user: row, created: true };
      }
      if (current.disabled === 1) return { outcome: 'disabled', userId: current.id };
      const before = parseRoles(current.roles);
      if (sameRoles(before, roles)) {
        return roles.length === 0
          ? { outcome: 'no_role', userId: current.id }
          : { outcome: 'ok', user: current, created: false };
      }
      const update: UserUpdate = {
        roles: JSON.stringify(roles),
        token_version: current.token_version + 1,
        updated_at: now,
      };
      this.deps.auth.userChanged();
      await repo.updateUser(trx, current.id, update);
      await this.deps.auth.revokeAllSessions(trx, current.id, 'user_changed');
      await this.deps.audit.record(
        trx,
        { id: current.id, username: current.username, requestId },
        {
          action: 'user.updated',
          targetType: 'user',
          targetId: current.id,
          details: { username: current.username, changes: { roles: { before, after: roles } }, source: 'oidc' },
        },
      );
      if (roles.length === 0) return { outcome: 'no_role', userId: current.id };
      return {
        outcome: 'ok',
        user: { ...current, ...update, roles: JSON.stringify(roles), token_version: current.token_version + 1 },
        created: false,
      };
    });
  }

  /** The first of the hints (made valid) no user has, else the first with -2, -3 …, else with a random suffix. */
  private async freeUsername(trx: Tx, hints: readonly string[]): Promise<string> {
    const bases = hints.map(usernameFromHint).filter((b): b is string => b !== undefined);
    if (bases.length === 0) bases.push('sso-user');
    for (const base of bases) if (!(await repo.findUserByUsername(trx, base))) return base;
    const base = bases[0] as string;
    for (let n = 2; n <= 20; n++) if (!(await repo.findUserByUsername(trx, `${base}-${n}`))) return `${base}-${n}`;
    return `${base}-${randomBytes(4).toString('hex')}`;
  }

  /** Active, non-disabled users (what the user quota counts). */
  async countActiveUsers(trx?: Tx): Promise<number> {
    return repo.countUsers(trx ?? this.db, { activeOnly: true });
  }

  private assertMayManage(caller: Caller, targetRoles: readonly Role[]): void {
    if (targetRoles.includes('superadmin') && !caller.roles.includes('superadmin')) {
      throw forbidden('Only a superadmin can change or delete a superadmin');
    }
  }

  private async assertNotLastSuperadmin(trx: Tx): Promise<void> {
    if ((await repo.countActiveUsersWithRole(trx, 'superadmin')) <= 1) {
      throw conflict('This is the last active superadmin; make another user superadmin first');
    }
  }
}

function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((r) => b.includes(r));
}
