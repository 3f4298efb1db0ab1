/**
 * The composition root of the domain: builds every service once, wires their dependencies,
 * and runs the first-start bootstrap. Fastify-free; app.ts hands these to the route plugins.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { createEmbedder, type Embedder } from './embeddings/embedder.js';
import { AuditLogService } from './modules/audit/audit-log.service.js';
import { AuditService } from './modules/audit/audit.service.js';
import { AuthService } from './modules/auth/auth.service.js';
import { DatasourcesService } from './modules/datasources/datasources.service.js';
import { FieldsService } from './modules/fields/fields.service.js';
import { AccessTokens, newSigningKey } from './modules/auth/tokens.js';
import { putSettingIfAbsent } from './modules/settings/settings.repository.js';
import { loadPublicKeyPem } from './cli/license.command.js';
import { LicenseService } from './modules/license/license.service.js';
import { MetricsService } from './modules/metrics/metrics.service.js';
import { ReviewService } from './modules/review/review.service.js';
import { SampleDataService } from './modules/sample-data/sample-data.service.js';
import { VENDOR_LICENSE_PUBLIC_KEY_PEM } from './modules/license/vendor-public-key.js';
import { TaxonomyService } from './modules/taxonomy/taxonomy.service.js';
import { UsersService } from './modules/users/users.service.js';

export interface Services {
  readonly license: LicenseService;
  readonly audit: AuditService;
  readonly auditLog: AuditLogService;
  readonly auth: AuthService;
  readonly users: UsersService;
  readonly embedder: Embedder;
  readonly taxonomy: TaxonomyService;
  readonly datasources: DatasourcesService;
  readonly fields: FieldsService;
  readonly review: ReviewService;
  readonly sampleData: SampleDataService;
  readonly metrics: MetricsService;
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
  // The license counts usage through the services that own users and data sources (built below; they call it back as their gate).
  const license: LicenseService = new LicenseService({
    database,
    clock,
    audit,
    log: deps.log,
    publicKeyPem: config.licensePublicKey === undefined ? VENDOR_LICENSE_PUBLIC_KEY_PEM : loadPublicKeyPem(config.licensePublicKey),
    usage: {
      countActiveUsers: (trx): Promise<number> => users.countActiveUsers(trx),
      countBillableDatasources: (trx): Promise<number> => datasources.countBillableDatasources(trx),
      removeSampleData: (trx, actor): Promise<unknown> => sampleData.removeSampleData(trx, actor),
    },
  });
  await license.start();
  const auth = new AuthService({ database, clock, config: config.auth, audit, tokens, currentTier: () => license.currentTier() });
  const users = new UsersService({ database, clock, audit, auth, gate: license, config: config.auth });
  const auditLog = new AuditLogService({ database, license });

  const embedder = createEmbedder(config.embeddings);
  const taxonomy = new TaxonomyService({ database, clock, audit, embedder, levels: config.levels });
  const datasources = new DatasourcesService({ database, clock, audit, gate: license });
  const metrics = new MetricsService({ database, clock, log: deps.log, taxonomy, license, dimensions: embedder.dimensions, severity: config.severity, indexThreads: config.indexThreads });
  // Imports and reviews mark the changed fields (and the fields their metrics depend on) stale in their own transaction.
  const fields = new FieldsService({ database, clock, audit, embedder, taxonomy, datasources, onFieldsImported: (trx, ids) => metrics.markStale(trx, ids) });
  const review = new ReviewService({ database, clock, audit, fields, taxonomy, license, onFieldsChanged: (trx, ids) => metrics.markStale(trx, ids) });
  const sampleData = new SampleDataService({ database, clock, audit, taxonomy, datasources, fields });

  await users.ensureFirstAdmin(deps.log);
  await taxonomy.ensureDefaultTaxonomy();
  if (config.sampleData && (await license.currentTier()) === 'trial_mock' && (await sampleData.ensureSampleData())) {
    deps.log.info('First start on the trial: loaded the built-in sample catalog (FIELDLENS_SAMPLE_DATA=off to skip)');
  }

  const pruneTimer = setInterval(() => {
    auth.pruneExpired().catch((error: unknown) => deps.log.warn({ err: error }, 'pruning expired sessions failed'));
  }, 60 * 60 * 1000);
  pruneTimer.unref();
  metrics.start();

  return {
    license,
    audit,
    auditLog,
    auth,
    users,
    embedder,
    taxonomy,
    datasources,
    fields,
    review,
    sampleData,
    metrics,
    async stop() {
      clearInterval(pruneTimer);
      await metrics.stop();
      license.stop();
    },
  };
}
