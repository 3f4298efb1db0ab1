/**
 * Configuration: read from the environment once, validated, frozen.
 * A bad value stops the start with one line naming the variable (ConfigError).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSecretKey, SecretKeyError } from './crypto/secret-box.js';
import { isRole, type Role } from './http/access.js';
import { loadPublicKeyPem } from './modules/license/public-key.js';
import { VENDOR_LICENSE_PUBLIC_KEY_PEM } from './modules/license/vendor-public-key.js';

export type DatabaseConfig = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export interface LevelDefinition {
  readonly code: string;
  readonly name: string;
  readonly rank: number;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly logLevel: string;
  readonly database: DatabaseConfig;
  readonly bodyLimitBytes: number;
  readonly trustProxy: boolean;
  readonly shutdownTimeoutMs: number;
  /** How long /readyz answers 503 before the server stops accepting connections, so a load balancer can notice. */
  readonly shutdownGraceMs: number;
  /** Requests per window per client address and per authenticated user (0 = no limit); memory of one instance. */
  readonly rateLimit: { readonly windowMs: number; readonly perAddress: number; readonly perUser: number };
  /** GET /metrics (Prometheus): off, or on behind a bearer token on the main port, or on a port of its own. */
  readonly metrics: { readonly enabled: boolean; readonly token: string | undefined; readonly port: number | undefined };
  readonly auth: {
    readonly adminPassword: string | undefined;
    readonly accessTokenTtlSeconds: number;
    readonly refreshTokenTtlSeconds: number;
    readonly jwtSecret: string | undefined;
    readonly issuer: string;
    readonly audience: string;
    /** FIELDLENS_PASSWORD_LOGIN: off answers password logins 403 (single sign-on only). */
    readonly passwordLogin: boolean;
  };
  /** Single sign-on with OpenID Connect (CONTRACT §12); undefined when FIELDLENS_OIDC_ISSUER is not set. */
  readonly oidc: OidcConfig | undefined;
  /** The Ed25519 public key (SPKI PEM) license files must be signed with: FIELDLENS_LICENSE_PUBLIC_KEY, else the vendor's. */
  readonly licensePublicKeyPem: string;
  readonly sampleData: boolean;
  readonly levels: readonly LevelDefinition[];
  readonly severity: { readonly high: number; readonly medium: number };
  /** Threads for the nearest-neighbour index of a large catalog (FIELDLENS_INDEX_THREADS; default: up to 2 cores). */
  readonly indexThreads: number;
  /**
   * The 32-byte key sealing stored connection passwords (FIELDLENS_SECRET_KEY or FIELDLENS_SECRET_KEY_FILE).
   * Undefined: the service runs, but a connection with a password cannot be stored.
   */
  readonly secretKey: Buffer | undefined;
  /** The folder `sqlite` data sources must lie in (FIELDLENS_SCAN_SQLITE_DIR, absolute); undefined refuses them. */
  readonly scanSqliteDir: string | undefined;
  /** Longest one statement of a scan may run on the source (FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS, default 30 s); on SQLite, one read. */
  readonly scanStatementTimeoutMs: number;
  /** FIELDLENS_SCAN_ALLOW_SOCKETS: whether a PostgreSQL connection's host may be a Unix socket folder (a path); off refuses it. */
  readonly scanAllowSockets: boolean;
  /**
   * Webhook URLs (FIELDLENS_WEBHOOK_ALLOW_HTTP, FIELDLENS_WEBHOOK_ALLOW_PRIVATE): plain `http` allowed, and addresses
   * that are loopback, private, link-local or otherwise not public allowed. Both off by default (tests, closed networks).
   */
  readonly webhooks: { readonly allowHttp: boolean; readonly allowPrivate: boolean };
  readonly embeddings:
    | { readonly provider: 'builtin' }
    | { readonly provider: 'openai'; readonly url: string; readonly model: string; readonly apiKey?: string };
}

export interface OidcConfig {
  readonly issuer: string;
  readonly clientId: string;
  /** Undefined for a public client (PKCE only). */
  readonly clientSecret: string | undefined;
  /** The service's own address as browsers reach it, without a trailing slash. */
  readonly publicUrl: string;
  /** `<publicUrl>/api/v1/auth/oidc/callback`: the redirect URI registered at the provider. */
  readonly redirectUri: string;
  /** The claim carrying the user's groups (FIELDLENS_OIDC_ROLES_CLAIM, default `groups`). */
  readonly rolesClaim: string;
  /** Group → roles (FIELDLENS_OIDC_ROLE_MAP `group=role,group=role`; a group may be named more than once). */
  readonly roleMap: ReadonlyMap<string, readonly Role[]>;
  /** What the console's button names (FIELDLENS_OIDC_NAME, default `SSO`). */
  readonly name: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_LEVELS: readonly LevelDefinition[] = [
  { code: 'L1', name: 'Public', rank: 1 },
  { code: 'L2', name: 'Internal', rank: 2 },
  { code: 'L3', name: 'Confidential', rank: 3 },
  { code: 'L4', name: 'Sensitive', rank: 4 },
  { code: 'L5', name: 'Restricted', rank: 5 },
];

type Env = Readonly<Record<string, string | undefined>>;

/** Requests per 60 s window by default, per client address and per authenticated user (docs/operations.md). */
export const RATE_LIMIT_DEFAULTS = { perAddress: 3000, perUser: 1200 } as const;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function readFraction(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value >= 1) throw new ConfigError(name, `must be a number between 0 and 1 (exclusive), got "${raw}"`);
  return value;
}

function readOnOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be on or off, got "${env[name]}"`);
}

function readDatabase(env: Env): DatabaseConfig {
  const raw = env.DATABASE_URL?.trim();
  if (raw === undefined || raw === '') return { kind: 'sqlite', file: path.resolve('data', 'fieldlens.db') };
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/fieldlens.db');
    return { kind: 'sqlite', file: file === ':memory:' ? file : path.resolve(file) };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError('DATABASE_URL', 'must start with sqlite: or postgres://');
}

function readLevels(env: Env): readonly LevelDefinition[] {
  const raw = env.FIELDLENS_LEVELS?.trim();
  if (raw === undefined || raw === '') return DEFAULT_LEVELS;
  // Format: "CODE:Name,CODE:Name,…" from least to most sensitive.
  const levels = raw.split(',').map((part, index) => {
    const [code, name] = part.split(':').map((s) => s.trim());
    if (!code || !name || !/^[A-Za-z0-9_-]{1,16}$/.test(code)) {
      throw new ConfigError('FIELDLENS_LEVELS', 'must look like "L1:Public,L2:Internal,…" (codes of 1–16 letters, digits, _ or -)');
    }
    return { code, name, rank: index + 1 };
  });
  if (new Set(levels.map((l) => l.code)).size !== levels.length) throw new ConfigError('FIELDLENS_LEVELS', 'level codes must be unique');
  if (levels.length < 2) throw new ConfigError('FIELDLENS_LEVELS', 'needs at least two levels');
  return levels;
}

function readEmbeddings(env: Env): Config['embeddings'] {
  const url = env.FIELDLENS_EMBEDDINGS_URL?.trim();
  if (!url) return { provider: 'builtin' };
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new ConfigError('FIELDLENS_EMBEDDINGS_URL', 'must be an http(s) URL of an OpenAI-compatible server');
  }
  const model = env.FIELDLENS_EMBEDDINGS_MODEL?.trim();
  if (!model) throw new ConfigError('FIELDLENS_EMBEDDINGS_MODEL', 'is required when FIELDLENS_EMBEDDINGS_URL is set');
  const apiKey = env.FIELDLENS_EMBEDDINGS_API_KEY?.trim();
  return apiKey ? { provider: 'openai', url, model, apiKey } : { provider: 'openai', url, model };
}

function readSecretKey(env: Env): Buffer | undefined {
  try {
    return loadSecretKey(env);
  } catch (error) {
    if (!(error instanceof SecretKeyError)) throw error;
    const variable = error.message.startsWith('FIELDLENS_SECRET_KEY_FILE') ? 'FIELDLENS_SECRET_KEY_FILE' : 'FIELDLENS_SECRET_KEY';
    throw new ConfigError(variable, error.message.replace(/^FIELDLENS_SECRET_KEY(_FILE)? /, ''));
  }
}

function readScanSqliteDir(env: Env): string | undefined {
  const raw = env.FIELDLENS_SCAN_SQLITE_DIR?.trim();
  if (!raw) return undefined;
  const dir = path.resolve(raw);
  let isDirectory = false;
  try {
    isDirectory = fs.statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) throw new ConfigError('FIELDLENS_SCAN_SQLITE_DIR', `must name an existing folder, got "${raw}"`);
  return dir;
}

/** The files of the service's own SQLite database (none for PostgreSQL or in memory): never scannable as a source. */
export function ownDatabaseFiles(db: DatabaseConfig): string[] {
  return db.kind === 'sqlite' && db.file !== ':memory:' ? [db.file] : [];
}

function readMetrics(env: Env): Config['metrics'] {
  const enabled = readOnOff(env, 'FIELDLENS_METRICS', false);
  const token = env.FIELDLENS_METRICS_TOKEN?.trim() || undefined;
  if (token !== undefined && token.length < 16) throw new ConfigError('FIELDLENS_METRICS_TOKEN', 'must be at least 16 characters of random data');
  const rawPort = env.FIELDLENS_METRICS_PORT?.trim();
  const port = rawPort ? readInt(env, 'FIELDLENS_METRICS_PORT', 0, 0, 65535) : undefined;
  if (enabled && token === undefined && port === undefined) {
    throw new ConfigError('FIELDLENS_METRICS', 'needs FIELDLENS_METRICS_TOKEN (serve /metrics on the main port behind it) or FIELDLENS_METRICS_PORT (a port of its own)');
  }
  return { enabled, token, port };
}

/** Parses `group=role,group=role` (the last `=` splits, so a group name may hold one); every role must be known. */
export function parseRoleMap(raw: string): ReadonlyMap<string, readonly Role[]> {
  const map = new Map<string, Role[]>();
  for (const part of raw.split(',')) {
    if (part.trim() === '') continue;
    const at = part.lastIndexOf('=');
    const group = at > 0 ? part.slice(0, at).trim() : '';
    const role = at > 0 ? part.slice(at + 1).trim() : '';
    if (group === '' || role === '') throw new ConfigError('FIELDLENS_OIDC_ROLE_MAP', `must look like "group=role,group=role", got "${part.trim()}"`);
    if (!isRole(role)) throw new ConfigError('FIELDLENS_OIDC_ROLE_MAP', `"${role}" is not a role (superadmin, admin, dba, operator, classifier_owner, observer)`);
    const roles = map.get(group) ?? [];
    if (!roles.includes(role)) roles.push(role);
    map.set(group, roles);
  }
  return map;
}

function readHttpUrl(env: Env, name: string): URL {
  const raw = env[name]?.trim() ?? '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') throw new ConfigError(name, 'must have no query, fragment or credentials');
  return url;
}

/** A loopback host: the only place a plain-http issuer is accepted (a provider on the same machine, tests). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

const OIDC_VARIABLES = ['FIELDLENS_OIDC_ISSUER', 'FIELDLENS_OIDC_CLIENT_ID', 'FIELDLENS_OIDC_CLIENT_SECRET', 'FIELDLENS_PUBLIC_URL', 'FIELDLENS_OIDC_ROLES_CLAIM', 'FIELDLENS_OIDC_ROLE_MAP', 'FIELDLENS_OIDC_NAME'] as const;

/** The single sign-on settings: all of issuer, client id, public URL and role map, or none of the OIDC variables. */
function readOidc(env: Env): OidcConfig | undefined {
  const set = OIDC_VARIABLES.filter((name) => (env[name]?.trim() ?? '') !== '');
  if (set.length === 0) return undefined;
  for (const name of ['FIELDLENS_OIDC_ISSUER', 'FIELDLENS_OIDC_CLIENT_ID', 'FIELDLENS_PUBLIC_URL', 'FIELDLENS_OIDC_ROLE_MAP'] as const) {
    if ((env[name]?.trim() ?? '') === '') {
      throw new ConfigError(name, `is required for single sign-on (set: ${set.join(', ')}); set it, or unset the other FIELDLENS_OIDC_ variables`);
    }
  }
  const issuer = readHttpUrl(env, 'FIELDLENS_OIDC_ISSUER');
  if (issuer.protocol === 'http:' && !isLoopbackHost(issuer.hostname)) {
    throw new ConfigError('FIELDLENS_OIDC_ISSUER', 'must be https (plain http only for a provider on this machine: localhost, 127.x)');
  }
  const publicUrl = readHttpUrl(env, 'FIELDLENS_PUBLIC_URL').href.replace(/\/+$/, '');
  const roleMap = parseRoleMap(env.FIELDLENS_OIDC_ROLE_MAP ?? '');
  if (roleMap.size === 0) throw new ConfigError('FIELDLENS_OIDC_ROLE_MAP', 'needs at least one group=role');
  const rolesClaim = env.FIELDLENS_OIDC_ROLES_CLAIM?.trim() || 'groups';
  if (!/^[A-Za-z0-9_:./-]{1,128}$/.test(rolesClaim)) throw new ConfigError('FIELDLENS_OIDC_ROLES_CLAIM', `must be a claim name, got "${rolesClaim}"`);
  const name = env.FIELDLENS_OIDC_NAME?.trim() || 'SSO';
  if (name.length > 64) throw new ConfigError('FIELDLENS_OIDC_NAME', 'must be at most 64 characters');
  const clientSecret = env.FIELDLENS_OIDC_CLIENT_SECRET?.trim() || undefined;
  return {
    // The issuer as configured (an identifier compared exactly by the library), without a trailing slash added or removed.
    issuer: env.FIELDLENS_OIDC_ISSUER?.trim() ?? '',
    clientId: env.FIELDLENS_OIDC_CLIENT_ID?.trim() ?? '',
    clientSecret,
    publicUrl,
    redirectUri: `${publicUrl}/api/v1/auth/oidc/callback`,
    rolesClaim,
    roleMap,
    name,
  };
}

/** Reads and validates the configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST?.trim() || '127.0.0.1';
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  const jwtSecret = env.FIELDLENS_JWT_SECRET;
  if (jwtSecret !== undefined && jwtSecret !== '' && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('FIELDLENS_JWT_SECRET', 'must be at least 32 bytes of random data (not a password)');
  }
  const adminPassword = env.FIELDLENS_ADMIN_PASSWORD;
  if (adminPassword !== undefined && adminPassword !== '' && [...adminPassword].length < 12) {
    throw new ConfigError('FIELDLENS_ADMIN_PASSWORD', 'must be at least 12 characters');
  }
  const severity = {
    high: readFraction(env, 'FIELDLENS_SEVERITY_HIGH', 0.7),
    medium: readFraction(env, 'FIELDLENS_SEVERITY_MEDIUM', 0.4),
  };
  if (severity.medium >= severity.high) throw new ConfigError('FIELDLENS_SEVERITY_MEDIUM', 'must be below FIELDLENS_SEVERITY_HIGH');

  const oidc = readOidc(env);
  const passwordLogin = readOnOff(env, 'FIELDLENS_PASSWORD_LOGIN', true);
  if (!passwordLogin && oidc === undefined) {
    throw new ConfigError('FIELDLENS_PASSWORD_LOGIN', 'off needs single sign-on configured (FIELDLENS_OIDC_ISSUER …), or nobody could sign in');
  }

  const config: Config = {
    port: readInt(env, 'PORT', 8080, 0, 65535),
    host,
    logLevel,
    database: readDatabase(env),
    bodyLimitBytes: readInt(env, 'FIELDLENS_BODY_LIMIT', 8 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    trustProxy: readOnOff(env, 'FIELDLENS_TRUST_PROXY', false),
    shutdownTimeoutMs: readInt(env, 'FIELDLENS_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    shutdownGraceMs: readInt(env, 'FIELDLENS_SHUTDOWN_GRACE_MS', 1_000, 0, 600_000),
    rateLimit: {
      windowMs: readInt(env, 'FIELDLENS_RATE_LIMIT_WINDOW', 60, 1, 86_400) * 1000,
      // 50 and 20 requests a second on average over the window: far above a person using the console, below a
      // runaway script or a scraper. Raise them (or 0) for heavy API clients; tests and benches set theirs.
      perAddress: readInt(env, 'FIELDLENS_RATE_LIMIT_PER_ADDRESS', RATE_LIMIT_DEFAULTS.perAddress, 0, 1_000_000_000),
      perUser: readInt(env, 'FIELDLENS_RATE_LIMIT_PER_USER', RATE_LIMIT_DEFAULTS.perUser, 0, 1_000_000_000),
    },
    metrics: readMetrics(env),
    auth: {
      adminPassword: adminPassword === '' ? undefined : adminPassword,
      accessTokenTtlSeconds: readInt(env, 'FIELDLENS_ACCESS_TOKEN_TTL', 900, 1, 86_400),
      refreshTokenTtlSeconds: readInt(env, 'FIELDLENS_REFRESH_TOKEN_TTL', 604_800, 60, 31_536_000),
      jwtSecret: jwtSecret === '' ? undefined : jwtSecret,
      issuer: 'fieldlens',
      audience: 'fieldlens-api',
      passwordLogin,
    },
    oidc,
    licensePublicKeyPem: readLicensePublicKey(env),
    sampleData: readOnOff(env, 'FIELDLENS_SAMPLE_DATA', true),
    levels: readLevels(env),
    severity,
    indexThreads: readInt(env, 'FIELDLENS_INDEX_THREADS', Math.min(2, os.availableParallelism()), 1, 64),
    secretKey: readSecretKey(env),
    scanSqliteDir: readScanSqliteDir(env),
    scanStatementTimeoutMs: readInt(env, 'FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS', 30_000, 100, 3_600_000),
    scanAllowSockets: readOnOff(env, 'FIELDLENS_SCAN_ALLOW_SOCKETS', false),
    webhooks: {
      allowHttp: readOnOff(env, 'FIELDLENS_WEBHOOK_ALLOW_HTTP', false),
      allowPrivate: readOnOff(env, 'FIELDLENS_WEBHOOK_ALLOW_PRIVATE', false),
    },
    embeddings: readEmbeddings(env),
  };
  return deepFreeze(config);
}

function readLicensePublicKey(env: Env): string {
  const value = env.FIELDLENS_LICENSE_PUBLIC_KEY?.trim();
  if (!value) return VENDOR_LICENSE_PUBLIC_KEY_PEM;
  try {
    return loadPublicKeyPem(value);
  } catch (error) {
    throw new ConfigError('FIELDLENS_LICENSE_PUBLIC_KEY', (error as Error).message);
  }
}

function deepFreeze<T>(value: T): T {
  // A Buffer (the secret key) cannot be frozen; nothing hands it out for writing.
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
