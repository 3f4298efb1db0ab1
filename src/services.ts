/**
 * The composition root of the domain: builds every service once and wires their dependencies. Building starts
 * nothing: `bootstrap()` seeds what a first start needs (the license's trial clock, the default taxonomy, the first
 * admin, the sample data) and `startWorkers()` starts the background work (the metrics, re-classification and scan workers, session pruning).
 * server.ts calls both; tests call bootstrap() (test/helpers/app.ts) and start workers only where they test them.
 * Fastify-free; app.ts hands the services to the route plugins.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock.js';
import { ownDatabaseFiles, type Config } from './config.js';
import type { Database } from './db/database.js';
import { createSecretBox } from './crypto/secret-box.js';
import { WorkQueue } from './db/work-queue.js';
import { createEmbedder, type Embedder } from './embeddings/embedder.js';
import { AuditLogService } from './modules/audit/audit-log.service.js';
import { AuditService } from './modules/audit/audit.service.js';
import { AuthService } from './modules/auth/auth.service.js';
import { AccessTokens, newSigningKey } from './modules/auth/tokens.js';
import { ClassifierService } from './modules/classifier/classifier.service.js';
import type { ConfirmedNeighbour } from './modules/classifier/index.js';
import { DatasourcesService } from './modules/datasources/datasources.service.js';
import { FieldCascades } from './modules/fields/field-cascades.service.js';
import { FieldCatalogReader } from './modules/fields/field-catalog-reader.service.js';
import { FieldMetricsMirror } from './modules/fields/field-metrics-mirror.service.js';
import { FieldReviewState } from './modules/fields/field-review-state.service.js';
import { FieldScanWriter } from './modules/fields/field-scan-writer.service.js';
import { FieldsService } from './modules/fields/fields.service.js';
import { ReclassifyWorker } from './modules/fields/reclassify-worker.js';
import { LicenseService } from './modules/license/license.service.js';
import { CatalogReplica } from './modules/metrics/catalog-replica.js';
import { MetricsWorker } from './modules/metrics/metrics-worker.js';
import { MetricsService } from './modules/metrics/metrics.service.js';
import { Staleness } from './modules/metrics/staleness.js';
import { ReportsService } from './modules/reports/reports.service.js';
import { ReviewService } from './modules/review/review.service.js';
import { ScanWorker } from './modules/scans/scan-worker.js';
import { ScansService } from './modules/scans/scans.service.js';
import { putSettingIfAbsent } from './db/settings.js';
import { SampleDataService } from './modules/sample-data/sample-data.service.js';
import { SsoService } from './modules/sso/sso.service.js';
import { TaxonomyService } from './modules/taxonomy/taxonomy.service.js';
import { RulesService } from './modules/rules/rules.service.js';
import { UsersService } from './modules/users/users.service.js';
import { ApiTokensService, bearerAuthenticator, tokenHashKey } from './modules/tokens/tokens.service.js';
import type { Authenticator } from './http/authentication.js';
import { WebhookWorker } from './modules/webhooks/webhook-worker.js';
import { WebhooksService } from './modules/webhooks/webhooks.service.js';

export interface Services {
  readonly license: LicenseService;
  readonly audit: AuditService;
  readonly auditLog: AuditLogService;
  readonly auth: AuthService;
  readonly users: UsersService;
  readonly tokens: ApiTokensService;
  /** The bearer check of every protected route: API tokens (`flk_…`) and login access tokens. */
  readonly bearer: Authenticator;
  readonly sso: SsoService;
  readonly embedder: Embedder;
  readonly taxonomy: TaxonomyService;
  readonly rules: RulesService;
  readonly datasources: DatasourcesService;
  /** The field catalog of the API (import, list, export, one field). */
  readonly fields: FieldsService;
  /** The catalog as other modules read it (metrics, review progress, reports, rule previews). */
  readonly fieldCatalog: FieldCatalogReader;
  /** The review columns the review module reads and writes in its transactions. */
  readonly fieldReviewState: FieldReviewState;
  /** A scan's comparison with the catalog and its writes. */
  readonly fieldScanWriter: FieldScanWriter;
  readonly review: ReviewService;
  readonly reports: ReportsService;
  readonly sampleData: SampleDataService;
  readonly metrics: MetricsService;
  readonly metricsWorker: MetricsWorker;
  readonly reclassifyWorker: ReclassifyWorker;
  readonly scans: ScansService;
  readonly scanWorker: ScanWorker;
  readonly webhooks: WebhooksService;
  readonly webhookWorker: WebhookWorker;
  /** First-start seeding: the trial clock, the default taxonomy, the first admin, the sample data. Idempotent. */
  bootstrap(): Promise<void>;
  /** Starts the background work: the metrics, re-classification, scan and webhook delivery workers and the pruning of expired sessions. */
  startWorkers(): void;
  /** Stops background work (workers, timers) and releases the metrics replica. */
  stop(): Promise<void>;
}

export interface ServiceDeps {
  config: Config;
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
}

/** A claim (of a stale field, of a field to classify again) older than this is taken to be abandoned by a crashed instance. */
const CLAIM_ABANDONED_MS = 60_000;
const PRUNE_SESSIONS_EVERY_MS = 60 * 60 * 1000;

/** The token signing key: FIELDLENS_JWT_SECRET, else one generated once and shared by all instances through the database. */
async function signingKey(deps: ServiceDeps): Promise<Uint8Array> {
  if (deps.config.auth.jwtSecret) return new TextEncoder().encode(deps.config.auth.jwtSecret);
  const stored = await putSettingIfAbsent(deps.database.db, 'auth.jwt_signing_key', newSigningKey(), deps.clock.now());
  return new Uint8Array(Buffer.from(stored, 'base64url'));
}

export async function createServices(deps: ServiceDeps): Promise<Services> {
  const { config, database, clock, log } = deps;
  const audit = new AuditService(database, clock);
  const secretBox = config.secretKey ? createSecretBox(config.secretKey) : undefined;
  // Events of the review, scans, metrics and license modules reach webhooks through this one service (WebhookEvents).
  const webhooks = new WebhooksService({ database, clock, audit, secretBox, policy: config.webhooks });
  const webhookWorker = new WebhookWorker({ database, clock, log, secretBox, policy: config.webhooks });
  const key = await signingKey(deps);
  const tokens = new AccessTokens(key, {
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    ttlSeconds: config.auth.accessTokenTtlSeconds,
  });
  // The fields module's services other modules depend on; they need only the database and the clock, so they come
  // first and need no late-bound adapter.
  const fieldCatalog = new FieldCatalogReader({ database });
  const fieldReviewState = new FieldReviewState();
  const fieldMetricsMirror = new FieldMetricsMirror();
  const fieldCascades = new FieldCascades({ clock });
  // Services that need each other both ways (the license counts what users and data sources own) get their
  // counterpart through a small late-bound adapter.
  const license: LicenseService = new LicenseService({
    database,
    clock,
    audit,
    log,
    publicKeyPem: config.licensePublicKeyPem,
    webhooks,
    usage: {
      countActiveUsers: (trx): Promise<number> => users.countActiveUsers(trx),
      countBillableDatasources: (trx): Promise<number> => datasources.countBillableDatasources(trx),
      removeSampleData: (trx, actor): Promise<unknown> => sampleData.removeSampleData(trx, actor),
    },
  });
  const auth = new AuthService({
    database,
    clock,
    config: config.auth,
    audit,
    tokens,
    currentTier: () => license.currentTier(),
  });
  const users = new UsersService({ database, clock, audit, auth, gate: license, config: config.auth });
  const apiTokens = new ApiTokensService({ database, clock, audit, hashKey: tokenHashKey(key) });
  const auditLog = new AuditLogService({ database, license });
  const sso = new SsoService({
    database,
    clock,
    log,
    audit,
    auth,
    users,
    oidc: config.oidc,
    passwordLogin: config.auth.passwordLogin,
  });

  const embedder = createEmbedder(config.embeddings);
  const taxonomy: TaxonomyService = new TaxonomyService({
    database,
    clock,
    audit,
    embedder,
    levels: config.levels,
    usage: {
      countFields: (trx, tagIds): Promise<{ classified: number; suggested: number }> =>
        fieldCascades.countFieldsOfTags(trx, tagIds),
      countRules: (trx, tagIds): Promise<number> => rules.countRulesOfTags(trx, tagIds),
      moveRules: (trx, fromTagIds, toTagId): Promise<number> => rules.moveRulesToTag(trx, fromTagIds, toTagId),
      moveFields: async (trx, fromTagIds, toTagId): Promise<number> => {
        await metrics.retargetSuggestions(trx, fromTagIds, toTagId);
        return fieldCascades.moveFieldsToTag(trx, fromTagIds, toTagId);
      },
    },
  });
  const datasources = new DatasourcesService({
    database,
    clock,
    audit,
    gate: license,
    fields: fieldCascades,
    secretBox,
    scanSqliteDir: config.scanSqliteDir,
    connector: {
      statementTimeoutMs: config.scanStatementTimeoutMs,
      ownDatabaseFiles: ownDatabaseFiles(config.database),
    },
    allowSockets: config.scanAllowSockets,
  });
  const rules: RulesService = new RulesService({
    database,
    clock,
    audit,
    taxonomy,
    datasources,
    fields: fieldCatalog,
  });
  const classifier: ClassifierService = new ClassifierService({
    taxonomy,
    rules,
    confirmedNeighbours: (embeddings, selves): Promise<ConfirmedNeighbour[][]> =>
      metrics.confirmedNeighbours(embeddings, selves),
  });
  const fields = new FieldsService({ database, clock, audit, embedder, taxonomy, datasources, classifier });
  const fieldScanWriter = new FieldScanWriter({ database, clock, embedder, taxonomy, classifier });
  const review = new ReviewService({
    database,
    clock,
    audit,
    auditLog,
    fields: fieldReviewState,
    catalog: fieldCatalog,
    taxonomy,
    license,
    webhooks,
  });
  const reports = new ReportsService({ clock, fields: fieldCatalog, datasources, taxonomy });
  const sampleData = new SampleDataService({ database, clock, audit, taxonomy, datasources, fields });

  const metricsQueue = new WorkQueue(database, {
    table: 'metrics_queue',
    key: 'field_id',
    abandonedAfterMs: CLAIM_ABANDONED_MS,
  });
  const replica = new CatalogReplica({
    database,
    log,
    fields: fieldCatalog,
    dimensions: embedder.dimensions,
    indexThreads: config.indexThreads,
  });
  const staleness = new Staleness({ database, clock, queue: metricsQueue, replica, fields: fieldCatalog, taxonomy });
  const metricsWorker = new MetricsWorker({
    database,
    clock,
    log,
    queue: metricsQueue,
    replica,
    staleness,
    fields: fieldCatalog,
    mirror: fieldMetricsMirror,
    taxonomy,
    severity: config.severity,
    webhooks,
  });
  const reclassifyQueue = new WorkQueue(database, {
    table: 'reclassify_queue',
    key: 'field_id',
    abandonedAfterMs: CLAIM_ABANDONED_MS,
  });
  const reclassifyWorker = new ReclassifyWorker({
    database,
    clock,
    log,
    audit,
    queue: reclassifyQueue,
    classifier,
    embedder,
  });
  const scans = new ScansService({ database, clock, audit, datasources, license });
  const scanWorker = new ScanWorker({
    database,
    clock,
    log,
    audit,
    fields: fieldScanWriter,
    datasources,
    scans,
    webhooks,
    options: { connector: datasources.connectorOptions() },
  });
  const metrics = new MetricsService({
    database,
    replica,
    worker: metricsWorker,
    staleness,
    fields: fieldCatalog,
    license,
    taxonomy,
    dimensions: embedder.dimensions,
  });

  let pruneTimer: NodeJS.Timeout | undefined;
  return {
    license,
    audit,
    auditLog,
    auth,
    users,
    tokens: apiTokens,
    bearer: bearerAuthenticator(apiTokens, auth),
    sso,
    embedder,
    taxonomy,
    rules,
    datasources,
    fields,
    fieldCatalog,
    fieldReviewState,
    fieldScanWriter,
    review,
    reports,
    sampleData,
    metrics,
    metricsWorker,
    reclassifyWorker,
    scans,
    scanWorker,
    webhooks,
    webhookWorker,
    async bootstrap() {
      await license.start();
      await users.ensureFirstAdmin(log);
      await taxonomy.ensureDefaultTaxonomy();
      if (
        config.sampleData &&
        (await license.currentTier()) === 'trial_mock' &&
        (await sampleData.ensureSampleData())
      ) {
        log.info('First start on the trial: loaded the built-in sample catalog (FIELDLENS_SAMPLE_DATA=off to skip)');
      }
    },
    startWorkers() {
      if (pruneTimer) return;
      pruneTimer = setInterval(() => {
        auth.pruneExpired().catch((error: unknown) => log.warn({ err: error }, 'pruning expired sessions failed'));
      }, PRUNE_SESSIONS_EVERY_MS);
      pruneTimer.unref();
      metricsWorker.start();
      reclassifyWorker.start();
      scanWorker.start();
      webhookWorker.start();
    },
    async stop() {
      clearInterval(pruneTimer);
      await scanWorker.stop();
      await webhookWorker.stop();
      await reclassifyWorker.stop();
      await metricsWorker.stop();
      await replica.close();
      license.stop();
    },
  };
}
