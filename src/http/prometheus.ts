/**
 * GET /metrics in the Prometheus text format (prom-client), when FIELDLENS_METRICS=on:
 * - on the main port, behind the bearer token FIELDLENS_METRICS_TOKEN (compared in constant time), or
 * - on FIELDLENS_METRICS_PORT, a listener of its own (opened when the app is ready, closed with it), for a port that
 *   only the monitoring network reaches.
 * What it counts: HTTP requests by route pattern (never the raw URL: ids would explode the series) and status with
 * latency histograms, failed logins, the metrics queue depth, the PostgreSQL pool, and Node's process metrics.
 * Other modules add theirs to `app.prometheus.registry` (see registerGauge below).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type * as promClient from 'prom-client';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { problemOf } from './errors.js';
import { sendProblem } from './error-handler.js';

export interface Prometheus {
  readonly registry: Registry;
  /**
   * Adds a gauge read at each scrape, e.g. scans by status once scans exist:
   * `registerGauge('fieldlens_scans', 'Scans by status', ['status'], async (set) => { for (…) set({ status }, n) })`.
   */
  registerGauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    read: (set: (labels: Record<string, string>, value: number) => void) => Promise<void> | void,
  ): void;
  /** Where the separate metrics listener is bound (FIELDLENS_METRICS_PORT), once the app is ready. */
  address(): AddressInfo | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    prometheus: Prometheus | undefined;
  }
}

export interface PrometheusDeps {
  config: Config['metrics'];
  host: string;
  database: Pick<Database, 'poolStats'>;
  /** The metrics service's queue: `pending` is the number of fields waiting for recomputation. */
  metricsStatus: () => Promise<{ pending: number }>;
}

type PromClient = typeof promClient;

const LOGIN_ROUTE = '/api/v1/auth/login';
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export async function registerPrometheus(app: FastifyInstance, deps: PrometheusDeps): Promise<void> {
  if (!deps.config.enabled) {
    app.decorate('prometheus', undefined);
    return;
  }
  // Loaded only when on: it is a fifth of a second of start-up on a busy machine that most deployments do not need.
  const client = await import('prom-client');
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  observeRequests(app, requestMetrics(client, registry));
  registerQueueGauge(client, registry, deps.metricsStatus);
  registerPoolGauge(client, registry, deps.database);

  let server: http.Server | undefined;
  const prometheus: Prometheus = {
    registry,
    registerGauge: (name, help, labelNames, read) => registerReadGauge(client, registry, name, help, labelNames, read),
    address: () => (server?.address() as AddressInfo | null) ?? undefined,
  };
  app.decorate('prometheus', prometheus);

  if (deps.config.port !== undefined) server = serveOnOwnPort(app, registry, deps.config.port, deps.host, prometheus);
  else serveOnMainPort(app, registry, deps.config.token);
}

/** The request latency histogram and the failed-login counter, which the onResponse hook feeds. */
function requestMetrics(client: PromClient, registry: Registry) {
  const requestDuration = new client.Histogram({
    name: 'fieldlens_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const failedLogins = new client.Counter({
    name: 'fieldlens_login_failures_total',
    help: 'Failed logins: wrong username or password (invalid_credentials), or refused while throttled (throttled)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  return { requestDuration, failedLogins };
}

/** The metrics queue's depth, read at each scrape. */
function registerQueueGauge(
  client: PromClient,
  registry: Registry,
  metricsStatus: PrometheusDeps['metricsStatus'],
): void {
  new client.Gauge({
    name: 'fieldlens_metrics_queue_pending',
    help: 'Fields whose stored metrics are older than a change that affects them (0: every metric is current)',
    registers: [registry],
    async collect() {
      try {
        this.set((await metricsStatus()).pending);
      } catch {
        // The database is away: leave the last value; /readyz tells that story.
      }
    },
  });
}

/** The PostgreSQL pool of this instance (SQLite has none). */
function registerPoolGauge(client: PromClient, registry: Registry, database: PrometheusDeps['database']): void {
  if (!database.poolStats) return;
  const poolStats = database.poolStats.bind(database);
  new client.Gauge({
    name: 'fieldlens_db_pool_connections',
    help: 'PostgreSQL pool of this instance: total and idle connections, and queries waiting for one',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = poolStats();
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
}

/** Every answered request by route pattern and status, and the failed logins among them. */
function observeRequests(
  app: FastifyInstance,
  { requestDuration, failedLogins }: ReturnType<typeof requestMetrics>,
): void {
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, or one label for everything no route matched (scanners must not create series).
    const route = request.routeOptions.url ?? 'unmatched';
    requestDuration.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    if (route === LOGIN_ROUTE && request.method === 'POST') {
      if (reply.statusCode === 401) failedLogins.inc({ reason: 'invalid_credentials' });
      else if (reply.statusCode === 429) failedLogins.inc({ reason: 'throttled' });
    }
    done();
  });
}

/** Another module's gauge (Prometheus.registerGauge): reset and read again at each scrape. */
function registerReadGauge(
  client: PromClient,
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: Parameters<Prometheus['registerGauge']>[3],
): void {
  new client.Gauge({
    name,
    help,
    labelNames: [...labelNames],
    registers: [registry],
    async collect() {
      this.reset();
      await read((labels, value) => this.set(labels, value));
    },
  });
}

/** GET /metrics on a listener of its own (FIELDLENS_METRICS_PORT), opened when the app is ready and closed with it. */
function serveOnOwnPort(
  app: FastifyInstance,
  registry: Registry,
  port: number,
  host: string,
  prometheus: Prometheus,
): http.Server {
  // Its own small listener: nothing of the API is reachable on it, and nothing of it on the API's port.
  const server = http.createServer((req, res) => {
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', 'no-store');
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      const body = JSON.stringify(
        problemOf('not_found', 'Only GET /metrics is served on this port', { instance: path ?? '/' }),
      );
      res.writeHead(404, { 'content-type': 'application/problem+json; charset=utf-8' }).end(body);
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': CONTENT_TYPE }).end(req.method === 'HEAD' ? undefined : text),
      () =>
        res
          .writeHead(500, { 'content-type': 'application/problem+json; charset=utf-8' })
          .end(JSON.stringify(problemOf('internal_error', 'Collecting the metrics failed'))),
    );
  });
  app.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    app.log.info({ address: prometheus.address() }, 'metrics listener started');
  });
  app.addHook('onClose', async () => {
    if (!server.listening) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return server;
}

/** GET /metrics on the main port, behind the bearer token FIELDLENS_METRICS_TOKEN. */
function serveOnMainPort(app: FastifyInstance, registry: Registry, token: string | undefined): void {
  const expected = sha256(token ?? '');
  app.get(
    '/metrics',
    { schema: { hide: true }, config: { access: 'public' }, logLevel: 'warn' },
    async (request, reply) => {
      const header = request.headers.authorization ?? '';
      const match = /^Bearer (.+)$/i.exec(header);
      // Hashes of equal length, so the comparison takes the same time whatever was sent.
      if (!match?.[1] || !timingSafeEqual(sha256(match[1]), expected)) {
        return sendProblem(
          reply,
          problemOf('unauthorized', 'GET /metrics needs the bearer token FIELDLENS_METRICS_TOKEN', {
            instance: '/metrics',
          }),
          {
            'www-authenticate': match ? 'Bearer error="invalid_token"' : 'Bearer',
          },
        );
      }
      return reply.type(CONTENT_TYPE).send(await registry.metrics());
    },
  );
}
