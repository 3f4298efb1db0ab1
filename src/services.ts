/**
 * The composition root of the domain: builds every service once, wires their dependencies,
 * and runs the first-start bootstrap. Fastify-free; app.ts hands these to the route plugins.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { AuditService } from './modules/audit/audit.service.js';
import { AuthService } from './modules/auth/auth.service.js';
import { AccessTokens, newSigningKey } from './modules/auth/tokens.js';
import { putSettingIfAbsent } from './modules/settings/settings.repository.js';
import type { LicenseGate } from './modules/license/license.gate.js';
import { UsersService } from './modules/users/users.service.js';

export interface Services {
  readonly license: LicenseGate;
  readonly audit: AuditService;
  readonly auth: AuthService;
  readonly users: UsersService;
  /** Stops background work (workers, timers). */
  stop(): Promise<void>;
}

export interface ServiceDeps {
  config: Config;
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
}

/** The token signing key: FIELDLENS_JWT_SECRET, else one generated once and shared by all instances through the database. */
async function signingKey(deps: ServiceDeps): Promise<Uint8Array> {
  if (deps.config.auth.jwtSecret) return new TextEncoder().encode(deps.config.auth.jwtSecret);
  const stored = await putSettingIfAbsent(deps.database.db, 'auth.jwt_signing_key', newSigningKey(), deps.clock.now());
  return new Uint8Array(Buffer.from(stored, 'base64url'));
}

export async function createServices(deps: ServiceDeps): Promise<Services> {
  const { config, database, clock } = deps;
  const audit = new AuditService(database, clock);
  const tokens = new AccessTokens(await signingKey(deps), {
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    ttlSeconds: config.auth.accessTokenTtlSeconds,
  });
  // TEMP until the license service lands in this change set: allows everything.
  const license: LicenseGate = { assertCanCreate: async () => {}, assertFeature: async () => {}, currentTier: async () => 'trial_mock' };
  const auth = new AuthService({ database, clock, config: config.auth, audit, tokens, currentTier: () => license.currentTier() });
  const users = new UsersService({ database, clock, audit, auth, gate: license, config: config.auth });

  await users.ensureFirstAdmin(deps.log);

  const pruneTimer = setInterval(() => {
    auth.pruneExpired().catch((error: unknown) => deps.log.warn({ err: error }, 'pruning expired sessions failed'));
  }, 60 * 60 * 1000);
  pruneTimer.unref();

  return {
    license,
    audit,
    auth,
    users,
    async stop() {
      clearInterval(pruneTimer);
    },
  };
}
