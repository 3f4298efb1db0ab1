/**
 * Builds the real app on a fresh database for a test, with logs captured in memory,
 * and offers small factories (users with a role, tokens) instead of a shared fixture.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { Role } from '../../src/http/access.js';
import { createTestDatabase, type DialectKind, type TestDatabase } from './databases.js';

export const ADMIN_PASSWORD = 'test-passphrase-of-the-boss-0001';

export interface TestApp {
  readonly app: FastifyInstance;
  readonly database: Database;
  readonly testDatabase: TestDatabase;
  readonly config: Config;
  readonly clock: ManualClock;
  /** Every log line written so far. */
  readonly logs: string[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  /** Reuse an existing database instead of a fresh one (a second instance, a restart). */
  testDatabase?: TestDatabase;
  databaseUrl?: string;
  /** Start the background workers (metrics worker, session pruning) as the server does; off by default. */
  workers?: boolean;
}

export async function buildTestApp(kind: DialectKind, options: TestAppOptions = {}): Promise<TestApp> {
  const ownsDatabase = options.testDatabase === undefined;
  const testDatabase = options.testDatabase ?? (await createTestDatabase(kind));
  const config = loadConfig({
    FIELDLENS_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FIELDLENS_SAMPLE_DATA: 'off',
    LOG_LEVEL: 'info',
    // Tests send many requests from one address: the production defaults are set explicitly where a test checks them.
    FIELDLENS_RATE_LIMIT_PER_ADDRESS: '1000000000',
    FIELDLENS_RATE_LIMIT_PER_USER: '1000000000',
    ...options.env,
  });
  const database = testDatabase.open(options.databaseUrl ? { url: options.databaseUrl } : {});
  const clock = options.clock ?? new ManualClock(new Date());
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString('utf8'));
      callback();
    },
  });
  let app: FastifyInstance;
  try {
    app = await buildApp({ config: { ...config, database: testDatabase.config }, database, clock, logStream });
    await app.ready();
    await app.services.bootstrap();
    if (options.workers) app.services.startWorkers();
  } catch (error) {
    await database.close();
    if (ownsDatabase) await testDatabase.dispose();
    throw error;
  }
  return {
    app,
    database,
    testDatabase,
    config,
    clock,
    logs,
    async close() {
      await app.close();
      await database.close();
      if (ownsDatabase) await testDatabase.dispose();
    },
  };
}

export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

export async function login(
  app: FastifyInstance,
  username: string,
  password: string,
): Promise<{ access_token: string; refresh_token: string }> {
  const response = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
  if (response.statusCode !== 200)
    throw new Error(`login as ${username} failed: ${response.statusCode} ${response.body}`);
  return json(response);
}

export async function adminToken(app: FastifyInstance): Promise<string> {
  return (await login(app, 'admin', ADMIN_PASSWORD)).access_token;
}

let userCounter = 0;

/** Creates a user with the given roles through the API and returns its id, credentials and a token. */
export async function createUser(
  app: FastifyInstance,
  roles: Role[],
  options: { token?: string; username?: string; password?: string } = {},
): Promise<{ id: string; username: string; password: string; token: string }> {
  userCounter += 1;
  const username = options.username ?? `${roles.join('-')}-${process.pid}-${userCounter}`.replace(/_/g, '-');
  const password = options.password ?? `long-enough-passphrase-${userCounter}-x`;
  const token = options.token ?? (await adminToken(app));
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: { authorization: `Bearer ${token}` },
    payload: { username, password, email: `${username}@example.com`, roles },
  });
  if (response.statusCode !== 201) throw new Error(`create user failed: ${response.statusCode} ${response.body}`);
  const { id } = json<{ id: string }>(response);
  const session = await login(app, username, password);
  return { id, username, password, token: session.access_token };
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}

/** Asserts the RFC 9457 problem shape (docs/api.md) and returns the body. */
export function problem(response: LightMyRequestResponse): {
  code: string;
  status: number;
  title: string;
  detail: string;
  type: string;
  errors?: Array<{ path: string; message: string; row?: number }>;
} {
  const body = json<{ code: string; status: number; title: string; detail: string; type: string }>(response);
  if (!String(response.headers['content-type']).startsWith('application/problem+json')) {
    throw new Error(`expected problem+json, got ${String(response.headers['content-type'])}: ${response.body}`);
  }
  if (body.status !== response.statusCode)
    throw new Error(`problem status ${body.status} != HTTP ${response.statusCode}`);
  if (body.type !== `https://fieldlens.dev/problems/${body.code}`)
    throw new Error(`problem type ${body.type} does not match code ${body.code}`);
  if (/\bat .*\.(ts|js):\d+/.test(response.body)) throw new Error(`stack trace leaked: ${response.body}`);
  return body;
}
