/**
 * The environment the service reads, declared once: every variable, its type, range and default (a TypeBox schema,
 * validated by env-schema). The README's configuration table lists exactly these (test/docs/readme-config-schema.test.ts).
 *
 * Values are parsed strictly before validation, as environment strings need and no further: a whole number is digits,
 * a switch is on/off (true/false, 1/0, yes/no), a fraction a decimal number; surrounding spaces are dropped except
 * from secrets and key files (`verbatim`), and an empty value counts as unset. A bad value is one ConfigError naming
 * the variable.
 */
import type { Ajv, ErrorObject } from 'ajv';
import envSchema from 'env-schema';
import { Type, type Static, type TSchema } from 'typebox';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** The level scheme when FIELDLENS_LEVELS is unset (README: Configuration). */
export const DEFAULT_LEVELS_TEXT = 'L1:Public,L2:Internal,L3:Confidential,L4:Sensitive,L5:Restricted';

/** Requests per 60 s window by default, per client address and per authenticated user (docs/operations.md). */
export const RATE_LIMIT_DEFAULTS = { perAddress: 3000, perUser: 1200 } as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// Annotations of this file's own (registered with Ajv below): `message` says what a value failing `pattern` or a
// length must be (`{value}` stands for the value given: never in the message of a secret); `defaultText` is the
// README's default of a variable whose default is computed at start; `verbatim` keeps a value's surrounding spaces
// (secrets, key files).
const int = (minimum: number, maximum: number, options: { default?: number; defaultText?: string } = {}) =>
  Type.Integer({ minimum, maximum, ...options });
const onOff = (value: boolean) => Type.Boolean({ default: value });
const text = (options: Record<string, unknown> = {}) => Type.String({ minLength: 1, ...options });

export const ConfigEnv = Type.Object({
  PORT: int(0, 65535, { default: 8080 }),
  HOST: text({ default: '127.0.0.1' }),
  DATABASE_URL: text({ default: 'sqlite:./data/fieldlens.db' }),
  LOG_LEVEL: Type.Union(
    LOG_LEVELS.map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  FIELDLENS_ADMIN_PASSWORD: Type.Optional(
    text({ minLength: 12, verbatim: true, message: 'must be at least 12 characters' }),
  ),
  FIELDLENS_ACCESS_TOKEN_TTL: int(1, 86_400, { default: 900 }),
  FIELDLENS_REFRESH_TOKEN_TTL: int(60, 31_536_000, { default: 604_800 }),
  FIELDLENS_JWT_SECRET: Type.Optional(text({ verbatim: true })),
  FIELDLENS_PASSWORD_LOGIN: onOff(true),
  FIELDLENS_OIDC_ISSUER: Type.Optional(text()),
  FIELDLENS_OIDC_CLIENT_ID: Type.Optional(text()),
  FIELDLENS_OIDC_CLIENT_SECRET: Type.Optional(text()),
  FIELDLENS_PUBLIC_URL: Type.Optional(text()),
  FIELDLENS_OIDC_ROLE_MAP: Type.Optional(text()),
  FIELDLENS_OIDC_ROLES_CLAIM: text({
    default: 'groups',
    pattern: '^[A-Za-z0-9_:./-]{1,128}$',
    message: 'must be a claim name, got "{value}"',
  }),
  FIELDLENS_OIDC_NAME: text({ default: 'SSO', maxLength: 64, message: 'must be at most 64 characters' }),
  FIELDLENS_LICENSE_PUBLIC_KEY: Type.Optional(text({ defaultText: 'built-in vendor key' })),
  FIELDLENS_SAMPLE_DATA: onOff(true),
  FIELDLENS_LEVELS: text({ default: DEFAULT_LEVELS_TEXT }),
  FIELDLENS_SEVERITY_HIGH: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.7 }),
  FIELDLENS_SEVERITY_MEDIUM: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.4 }),
  FIELDLENS_INDEX_THREADS: Type.Optional(int(1, 64, { defaultText: "up to `2` (the machine's cores)" })),
  FIELDLENS_SECRET_KEY: Type.Optional(text({ verbatim: true })),
  FIELDLENS_SECRET_KEY_FILE: Type.Optional(text({ verbatim: true })),
  FIELDLENS_SCAN_SQLITE_DIR: Type.Optional(text()),
  FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS: int(100, 3_600_000, { default: 30_000 }),
  FIELDLENS_SCAN_ALLOW_SOCKETS: onOff(false),
  FIELDLENS_WEBHOOK_ALLOW_HTTP: onOff(false),
  FIELDLENS_WEBHOOK_ALLOW_PRIVATE: onOff(false),
  FIELDLENS_EMBEDDINGS_URL: Type.Optional(text()),
  FIELDLENS_EMBEDDINGS_MODEL: Type.Optional(text()),
  FIELDLENS_EMBEDDINGS_API_KEY: Type.Optional(text()),
  FIELDLENS_BODY_LIMIT: int(1024, 256 * 1024 * 1024, { default: 8 * 1024 * 1024 }),
  FIELDLENS_TRUST_PROXY: onOff(false),
  FIELDLENS_SHUTDOWN_GRACE_MS: int(0, 600_000, { default: 1_000 }),
  FIELDLENS_SHUTDOWN_TIMEOUT_MS: int(0, 600_000, { default: 10_000 }),
  // 50 and 20 requests a second on average over the window: far above a person using the console, below a runaway
  // script or a scraper. Raise them (or 0) for heavy API clients; tests and benches set theirs.
  FIELDLENS_RATE_LIMIT_PER_ADDRESS: int(0, 1_000_000_000, { default: RATE_LIMIT_DEFAULTS.perAddress }),
  FIELDLENS_RATE_LIMIT_PER_USER: int(0, 1_000_000_000, { default: RATE_LIMIT_DEFAULTS.perUser }),
  FIELDLENS_RATE_LIMIT_WINDOW: int(1, 86_400, { default: 60 }),
  FIELDLENS_METRICS: onOff(false),
  FIELDLENS_METRICS_TOKEN: Type.Optional(
    text({ minLength: 16, message: 'must be at least 16 characters of random data' }),
  ),
  FIELDLENS_METRICS_PORT: Type.Optional(int(0, 65535)),
});

/** The environment as read: every variable typed, defaults filled in, unset optional ones absent. */
export type ConfigEnv = Static<typeof ConfigEnv>;
export type ConfigVariable = keyof ConfigEnv & string;

type Env = Readonly<Record<string, string | undefined>>;

interface VariableSchema {
  type?: string;
  anyOf?: Array<{ const?: unknown }>;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  message?: string;
  defaultText?: string;
  verbatim?: boolean;
}

/** Each variable's schema, in the declared order. */
export function configVariables(): Array<[ConfigVariable, VariableSchema]> {
  return Object.entries(ConfigEnv.properties as Record<string, TSchema>).map(([name, schema]) => [
    name as ConfigVariable,
    schema as VariableSchema,
  ]);
}

const ON = ['on', 'true', '1', 'yes'];
const OFF = ['off', 'false', '0', 'no'];
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function fractionMessage(schema: VariableSchema, raw: string): string {
  return `must be a number between ${schema.exclusiveMinimum} and ${schema.exclusiveMaximum} (exclusive), got "${raw}"`;
}

/** The string of the environment as the schema's type: parsed strictly, `undefined` for unset or empty. */
function parseValue(name: string, schema: VariableSchema, raw: string): unknown {
  // A secret is taken as given: only an empty one is unset (one of spaces is a bad secret, not none).
  if (schema.verbatim) return raw === '' ? undefined : raw;
  const trimmed = raw.trim();
  if (trimmed === '') return undefined;
  switch (schema.type) {
    case 'integer':
      if (!/^\d+$/.test(trimmed)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
      return Number(trimmed);
    case 'number':
      if (!DECIMAL.test(trimmed)) throw new ConfigError(name, fractionMessage(schema, raw));
      return Number(trimmed);
    case 'boolean':
      if (ON.includes(trimmed.toLowerCase())) return true;
      if (OFF.includes(trimmed.toLowerCase())) return false;
      throw new ConfigError(name, `must be on or off, got "${raw}"`);
    default:
      return trimmed;
  }
}

/** What a value failing the schema must be, in the words of the variable's kind. */
function messageOf(error: ErrorObject, schema: VariableSchema, raw: string): string {
  switch (error.keyword) {
    case 'minimum':
    case 'maximum':
      return `must be between ${schema.minimum} and ${schema.maximum}, got ${Number(raw.trim())}`;
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return fractionMessage(schema, raw);
    case 'anyOf':
    case 'const':
      return `must be one of ${(schema.anyOf ?? []).map((s) => s.const).join(', ')}, got "${raw.trim()}"`;
    default:
      return schema.message?.replace('{value}', raw.trim()) ?? error.message ?? 'is not valid';
  }
}

// env-schema's Ajv, made once and kept (its `customOptions` hands over a new instance on every call).
let validator: Ajv | undefined;
const ajvOption = () =>
  validator ?? {
    customOptions: (ajv: Ajv) =>
      (validator = ajv
        .addKeyword({ keyword: 'message', schemaType: 'string' })
        .addKeyword({ keyword: 'defaultText', schemaType: 'string' })
        .addKeyword({ keyword: 'verbatim', schemaType: 'boolean' })),
  };

/** Reads the declared variables from `env` (nothing else); throws ConfigError naming the first bad one. */
export function readConfigEnv(env: Env): ConfigEnv {
  const data: Record<string, unknown> = {};
  for (const [name, schema] of configVariables()) {
    const raw = env[name];
    if (raw === undefined) continue;
    const value = parseValue(name, schema, raw);
    if (value !== undefined) data[name] = value;
  }
  try {
    return envSchema<ConfigEnv>({ schema: ConfigEnv, data, env: false, ajv: ajvOption() });
  } catch (error) {
    const first = (error as { errors?: ErrorObject[] }).errors?.[0];
    const name = first?.instancePath.split('/')[1];
    const schema = name === undefined ? undefined : (ConfigEnv.properties as Record<string, VariableSchema>)[name];
    if (!first || !name || !schema) throw error;
    throw new ConfigError(name, messageOf(first, schema, env[name] ?? ''));
  }
}
