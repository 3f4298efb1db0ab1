/**
 * buildApp: one Fastify instance with the error model, authentication, OpenAPI and every module, on a migrated
 * database. It seeds nothing and starts no background work: the caller runs `app.services.bootstrap()` and
 * `app.services.startWorkers()` (server.ts does both; tests opt in). The caller owns the database (opens it before,
 * closes it after app.close()).
 */
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { migrateToLatest, type Database } from './db/database.js';
import { AccessLog } from './http/access-log.js';
import { registerAuthentication } from './http/authentication.js';
import { consoleRoutes } from './http/console.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandler } from './http/error-handler.js';
import { batchedStdout } from './http/log-destination.js';
import { LOG_SERIALIZERS } from './http/log-serializers.js';
import { createLifecycle, type Lifecycle } from './http/lifecycle.js';
import { requestValidatorCompiler } from './http/validation.js';
import { registerOpenApi } from './http/openapi.js';
import { registerPrometheus } from './http/prometheus.js';
import { registerRateLimits } from './http/rate-limit.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { datasourcesRoutes } from './modules/datasources/datasources.routes.js';
import { fieldsRoutes } from './modules/fields/fields.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { licenseRoutes } from './modules/license/license.routes.js';
import { metricsRoutes } from './modules/metrics/metrics.routes.js';
import { reportsRoutes } from './modules/reports/reports.routes.js';
import { reviewRoutes } from './modules/review/review.routes.js';
import { scansRoutes } from './modules/scans/scans.routes.js';
import { ssoRoutes } from './modules/sso/sso.routes.js';
import { taxonomyRoutes } from './modules/taxonomy/taxonomy.routes.js';
import { rulesRoutes } from './modules/rules/rules.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { createServices, type Services } from './services.js';
import { VERSION } from './version.js';

export interface AppOptions {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Where logs go (stdout by default); tests pass a stream to read them. */
  logStream?: DestinationStream;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    lifecycle: Lifecycle;
  }
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const clock = options.clock ?? systemClock;
  // Asynchronous stdout, one write per event-loop turn (flushed on close and on exit), so logging does not cost every
  // request a write. Credentials are kept out by serializers (http/log-serializers.ts), which copy nothing otherwise.
  const stdout = options.logStream ? undefined : batchedStdout();
  const logger: FastifyBaseLogger = pino(
    { level: config.logLevel, serializers: LOG_SERIALIZERS },
    options.logStream ?? stdout,
  );

  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    logController: new AccessLog(),
    // Honour a caller's X-Request-Id when it is a sane token, so ids follow a request across services.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Errors raised before a route runs (Node's HTTP parser, the router) leave as problem+json like all others.
    clientErrorHandler,
    frameworkErrors,
    // While shutting down, a request that arrives on a connection already accepted is served (and the connection
    // closed after it) instead of Fastify's bare {error} 503: an accepted request is finished, not dropped.
    return503OnClosing: false,
  });
  app.decorate('lifecycle', createLifecycle(clock));
  app.addHook('onSend', (_request, reply, _payload, done) => {
    // While draining, a keep-alive connection is closed after its response, so the server's close is not held up.
    if (app.lifecycle.draining) void reply.header('connection', 'close');
    done();
  });
  // Bodies are validated as sent, query strings and parameters coerced from text; no NUL, bounded integers.
  app.setValidatorCompiler(requestValidatorCompiler());

  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  // Only JSON bodies (and multipart where a route registers it): anything else is 415.
  app.removeContentTypeParser('text/plain');

  registerErrorHandler(app);
  await migrateToLatest(database);
  const services = await createServices({ config, database, clock, log: app.log });
  app.decorate('services', services);
  app.addHook('onClose', async () => {
    await services.stop();
    stdout?.flushSync();
  });

  await registerSecurityHeaders(app);
  // Answers over 1 KB are compressed when the client accepts it (a 500-row page or minibars answer: ~10× smaller).
  // Brotli at quality 1 and gzip at level 1: on a 280 KB page of 500 fields, Brotli 1 takes ~0.5 ms for 29 KB, quality 4
  // ~3 ms for 28.5 KB, and the default quality 11 far longer than the wire saves; gzip 1 ~1 ms for 33 KB.
  // Answers up to 1 MiB are compressed in one synchronous call: through a stream, a 280 KB page went through the
  // thread pool in ~18 chunks, each waiting its turn on a loaded machine (+10–15 ms at load 15 on 2 cores).
  await app.register(compress, {
    threshold: 1024,
    syncThreshold: 1024 * 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } },
    zlibOptions: { level: 1 },
  });
  await registerPrometheus(app, {
    config: config.metrics,
    host: config.host,
    database,
    metricsStatus: () => services.metrics.status(),
  });
  app.prometheus?.registerGauge('fieldlens_scans', 'Scans by status', ['status'], async (set) => {
    const counts = await services.scans.countByStatus();
    for (const status of ['queued', 'running', 'succeeded', 'failed', 'cancelled'])
      set({ status }, counts.get(status) ?? 0);
  });
  app.prometheus?.registerGauge(
    'fieldlens_webhook_deliveries',
    'Webhook deliveries by status',
    ['status'],
    async (set) => {
      const counts = await services.webhooks.countDeliveriesByStatus();
      for (const status of ['pending', 'delivered', 'failed']) set({ status }, counts.get(status) ?? 0);
    },
  );
  registerAuthentication(app, services.bearer);
  await registerRateLimits(app, config.rateLimit);
  await registerOpenApi(app, VERSION);

  await app.register(healthRoutes, { database, lifecycle: app.lifecycle });
  await app.register(
    async (api) => {
      await api.register(authRoutes, { services });
      await api.register(ssoRoutes, { services, secureCookie: config.oidc?.publicUrl.startsWith('https:') ?? false });
      await api.register(usersRoutes, { services });
      await api.register(tokensRoutes, { services });
      await api.register(licenseRoutes, { services });
      await api.register(taxonomyRoutes, { services });
      await api.register(rulesRoutes, { services });
      await api.register(datasourcesRoutes, { services });
      await api.register(fieldsRoutes, { services });
      await api.register(auditRoutes, { services });
      await api.register(reviewRoutes, { services });
      await api.register(reportsRoutes, { services });
      await api.register(metricsRoutes, { services });
      await api.register(scansRoutes, { services });
      await api.register(webhooksRoutes, { services });
    },
    { prefix: '/api/v1' },
  );
  await app.register(consoleRoutes);

  return app;
}
