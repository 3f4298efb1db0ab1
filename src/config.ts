/**
 * Configuration: read from the environment once (the variables declared in config-env.ts), validated, frozen.
 * A bad value stops the start with one line naming the variable (ConfigError).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, DEFAULT_LEVELS_TEXT, readConfigEnv, type ConfigEnv } from './config-env.js';
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
  readonly metrics: {
    readonly enabled: boolean;
    readonly token: string | undefined;
    readonly port: number | undefined;
  };
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

export { ConfigError, RATE_LIMIT_DEFAULTS } from './config-env.js';

export const DEFAULT_LEVELS: readonly LevelDefinition[] = [
  { code: 'L1', name: 'Public', rank: 1 },
  { code: 'L2', name: 'Internal', rank: 2 },
  { code: 'L3', name: 'Confidential', rank: 3 },
  { code: 'L4', name: 'Sensitive', rank: 4 },
  { code: 'L5', name: 'Restricted', rank: 5 },
];

type Env = Readonly<Record<string, string | undefined>>;

function readDatabase(env: ConfigEnv): DatabaseConfig {
  const raw = env.DATABASE_URL;
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '')
      throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/fieldlens.db');
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

function readLevels(env: ConfigEnv): readonly LevelDefinition[] {
  const raw = env.FIELDLENS_LEVELS;
  if (raw === DEFAULT_LEVELS_TEXT) return DEFAULT_LEVELS;
  // Format: "CODE:Name,CODE:Name,…" from least to most sensitive.
  const levels = raw.split(',').map((part, index) => {
    const [code, name] = part.split(':').map((s) => s.trim());
    if (!code || !name || !/^[A-Za-z0-9_-]{1,16}$/.test(code)) {
      throw new ConfigError(
        'FIELDLENS_LEVELS',
        'must look like "L1:Public,L2:Internal,…" (codes of 1–16 letters, digits, _ or -)',
      );
    }
    return { code, name, rank: index + 1 };
  });
  if (new Set(levels.map((l) => l.code)).size !== levels.length)
    throw new ConfigError('FIELDLENS_LEVELS', 'level codes must be unique');
  if (levels.length < 2) throw new ConfigError('FIELDLENS_LEVELS', 'needs at least two levels');
  return levels;
}

function readEmbeddings(env: ConfigEnv): Config['embeddings'] {
  const url = env.FIELDLENS_EMBEDDINGS_URL;
  if (!url) return { provider: 'builtin' };
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new ConfigError('FIELDLENS_EMBEDDINGS_URL', 'must be an http(s) URL of an OpenAI-compatible server');
  }
  const model = env.FIELDLENS_EMBEDDINGS_MODEL;
  if (!model) throw new ConfigError('FIELDLENS_EMBEDDINGS_MODEL', 'is required when FIELDLENS_EMBEDDINGS_URL is set');
  const apiKey = env.FIELDLENS_EMBEDDINGS_API_KEY;
  return apiKey ? { provider: 'openai', url, model, apiKey } : { provider: 'openai', url, model };
}

function readSecretKey(env: ConfigEnv): Buffer | undefined {
  try {
    return loadSecretKey({
      FIELDLENS_SECRET_KEY: env.FIELDLENS_SECRET_KEY,
      FIELDLENS_SECRET_KEY_FILE: env.FIELDLENS_SECRET_KEY_FILE,
    });
  } catch (error) {
    if (!(error instanceof SecretKeyError)) throw error;
    const variable = error.message.startsWith('FIELDLENS_SECRET_KEY_FILE')
      ? 'FIELDLENS_SECRET_KEY_FILE'
      : 'FIELDLENS_SECRET_KEY';
    throw new ConfigError(variable, error.message.replace(/^FIELDLENS_SECRET_KEY(_FILE)? /, ''));
  }
}

function readScanSqliteDir(env: ConfigEnv): string | undefined {
  const raw = env.FIELDLENS_SCAN_SQLITE_DIR;
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

function readMetrics(env: ConfigEnv): Config['metrics'] {
  const enabled = env.FIELDLENS_METRICS;
  const token = env.FIELDLENS_METRICS_TOKEN;
  const port = env.FIELDLENS_METRICS_PORT;
  if (enabled && token === undefined && port === undefined) {
    throw new ConfigError(
      'FIELDLENS_METRICS',
      'needs FIELDLENS_METRICS_TOKEN (serve /metrics on the main port behind it) or FIELDLENS_METRICS_PORT (a port of its own)',
    );
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
    if (group === '' || role === '')
      throw new ConfigError('FIELDLENS_OIDC_ROLE_MAP', `must look like "group=role,group=role", got "${part.trim()}"`);
    if (!isRole(role))
      throw new ConfigError(
        'FIELDLENS_OIDC_ROLE_MAP',
        `"${role}" is not a role (superadmin, admin, dba, operator, classifier_owner, observer)`,
      );
    const roles = map.get(group) ?? [];
    if (!roles.includes(role)) roles.push(role);
    map.set(group, roles);
  }
  return map;
}

function readHttpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new ConfigError(name, 'must have no query, fragment or credentials');
  return url;
}

/** A loopback host: the only place a plain-http issuer is accepted (a provider on the same machine, tests). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

const OIDC_VARIABLES = [
  'FIELDLENS_OIDC_ISSUER',
  'FIELDLENS_OIDC_CLIENT_ID',
  'FIELDLENS_OIDC_CLIENT_SECRET',
  'FIELDLENS_PUBLIC_URL',
  'FIELDLENS_OIDC_ROLES_CLAIM',
  'FIELDLENS_OIDC_ROLE_MAP',
  'FIELDLENS_OIDC_NAME',
] as const;

/** The single sign-on settings: all of issuer, client id, public URL and role map, or none of the OIDC variables. */
function readOidc(env: ConfigEnv, given: Env): OidcConfig | undefined {
  // Set by the operator, defaults aside (the claim and the button's name have defaults of their own).
  const set = OIDC_VARIABLES.filter((name) => (given[name]?.trim() ?? '') !== '');
  if (set.length === 0) return undefined;
  for (const name of [
    'FIELDLENS_OIDC_ISSUER',
    'FIELDLENS_OIDC_CLIENT_ID',
    'FIELDLENS_PUBLIC_URL',
    'FIELDLENS_OIDC_ROLE_MAP',
  ] as const) {
    if (env[name] === undefined) {
      throw new ConfigError(
        name,
        `is required for single sign-on (set: ${set.join(', ')}); set it, or unset the other FIELDLENS_OIDC_ variables`,
      );
    }
  }
  const issuerText = env.FIELDLENS_OIDC_ISSUER ?? '';
  const issuer = readHttpUrl('FIELDLENS_OIDC_ISSUER', issuerText);
  if (issuer.protocol === 'http:' && !isLoopbackHost(issuer.hostname)) {
    throw new ConfigError(
      'FIELDLENS_OIDC_ISSUER',
      'must be https (plain http only for a provider on this machine: localhost, 127.x)',
    );
  }
  const publicUrl = readHttpUrl('FIELDLENS_PUBLIC_URL', env.FIELDLENS_PUBLIC_URL ?? '').href.replace(/\/+$/, '');
  const roleMap = parseRoleMap(env.FIELDLENS_OIDC_ROLE_MAP ?? '');
  if (roleMap.size === 0) throw new ConfigError('FIELDLENS_OIDC_ROLE_MAP', 'needs at least one group=role');
  return {
    // The issuer as configured (an identifier compared exactly by the library), without a trailing slash added or removed.
    issuer: issuerText,
    clientId: env.FIELDLENS_OIDC_CLIENT_ID ?? '',
    clientSecret: env.FIELDLENS_OIDC_CLIENT_SECRET,
    publicUrl,
    redirectUri: `${publicUrl}/api/v1/auth/oidc/callback`,
    rolesClaim: env.FIELDLENS_OIDC_ROLES_CLAIM,
    roleMap,
    name: env.FIELDLENS_OIDC_NAME,
  };
}

/** Reads and validates the configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(given: Env = process.env): Config {
  const env = readConfigEnv(given);
  const jwtSecret = env.FIELDLENS_JWT_SECRET;
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('FIELDLENS_JWT_SECRET', 'must be at least 32 bytes of random data (not a password)');
  }
  const severity = { high: env.FIELDLENS_SEVERITY_HIGH, medium: env.FIELDLENS_SEVERITY_MEDIUM };
  if (severity.medium >= severity.high)
    throw new ConfigError('FIELDLENS_SEVERITY_MEDIUM', 'must be below FIELDLENS_SEVERITY_HIGH');

  const oidc = readOidc(env, given);
  const passwordLogin = env.FIELDLENS_PASSWORD_LOGIN;
  if (!passwordLogin && oidc === undefined) {
    throw new ConfigError(
      'FIELDLENS_PASSWORD_LOGIN',
      'off needs single sign-on configured (FIELDLENS_OIDC_ISSUER …), or nobody could sign in',
    );
  }

  const config: Config = {
    port: env.PORT,
    host: env.HOST,
    logLevel: env.LOG_LEVEL,
    database: readDatabase(env),
    bodyLimitBytes: env.FIELDLENS_BODY_LIMIT,
    trustProxy: env.FIELDLENS_TRUST_PROXY,
    shutdownTimeoutMs: env.FIELDLENS_SHUTDOWN_TIMEOUT_MS,
    shutdownGraceMs: env.FIELDLENS_SHUTDOWN_GRACE_MS,
    rateLimit: {
      windowMs: env.FIELDLENS_RATE_LIMIT_WINDOW * 1000,
      perAddress: env.FIELDLENS_RATE_LIMIT_PER_ADDRESS,
      perUser: env.FIELDLENS_RATE_LIMIT_PER_USER,
    },
    metrics: readMetrics(env),
    auth: {
      adminPassword: env.FIELDLENS_ADMIN_PASSWORD,
      accessTokenTtlSeconds: env.FIELDLENS_ACCESS_TOKEN_TTL,
      refreshTokenTtlSeconds: env.FIELDLENS_REFRESH_TOKEN_TTL,
      jwtSecret,
      issuer: 'fieldlens',
      audience: 'fieldlens-api',
      passwordLogin,
    },
    oidc,
    licensePublicKeyPem: readLicensePublicKey(env),
    sampleData: env.FIELDLENS_SAMPLE_DATA,
    levels: readLevels(env),
    severity,
    indexThreads: env.FIELDLENS_INDEX_THREADS ?? Math.min(2, os.availableParallelism()),
    secretKey: readSecretKey(env),
    scanSqliteDir: readScanSqliteDir(env),
    scanStatementTimeoutMs: env.FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS,
    scanAllowSockets: env.FIELDLENS_SCAN_ALLOW_SOCKETS,
    webhooks: {
      allowHttp: env.FIELDLENS_WEBHOOK_ALLOW_HTTP,
      allowPrivate: env.FIELDLENS_WEBHOOK_ALLOW_PRIVATE,
    },
    embeddings: readEmbeddings(env),
  };
  return deepFreeze(config);
}

function readLicensePublicKey(env: ConfigEnv): string {
  const value = env.FIELDLENS_LICENSE_PUBLIC_KEY;
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
