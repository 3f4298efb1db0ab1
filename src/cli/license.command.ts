/**
 * `fieldlens license keygen | issue | inspect` — the vendor's tools for the signed license file
 * (docs/license.md) — and `reset-clock`, the operator's recovery from a far-future clock. Exit codes: 0 success; 1 the operation failed or the license is not
 * valid; 2 usage error (unknown command, missing or malformed option).
 */
import { randomUUID, generateKeyPairSync } from 'node:crypto';
import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { loadPublicKeyPem } from '../modules/license/public-key.js';
import { parseArgs } from 'node:util';
import {
  FEATURE_KEYS,
  LICENSE_FILE_EXTENSION,
  LicenseFileError,
  MAX_LICENSE_FILE_BYTES,
  SKU_TIERS,
  inspectLicenseFile,
  isIsoTimestamp,
  signLicense,
  type FeatureKey,
  type LicensePayload,
  type LicenseStatus,
  type SkuTier,
} from '../modules/license/license-file.js';
import { DAY_MS, TRIAL_DURATION_DAYS, TRIAL_QUOTAS, computeLicenseState } from '../modules/license/tiers.js';
import { VENDOR_LICENSE_PUBLIC_KEY_PEM } from '../modules/license/vendor-public-key.js';
import { resetLicenseClock } from './license-clock.command.js';

/** Where the command writes; each string already ends in a newline. */
export interface LicenseCommandOutput {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export interface LicenseCommandOptions {
  /** Environment to read FIELDLENS_LICENSE_PUBLIC_KEY from (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Clock for issued_at and the status shown by inspect (default: the system clock). */
  now?: () => Date;
}

export const LICENSE_PUBLIC_KEY_ENV = 'FIELDLENS_LICENSE_PUBLIC_KEY';
const MAX_KEY_FILE_BYTES = 16 * 1024;

const USAGE = `Usage:
  fieldlens license keygen --out DIR
  fieldlens license issue --private-key FILE --tier TIER --customer NAME [--expires ISO8601]
        [--not-before ISO8601] [--max-datasources N] [--max-users N] [--feature KEY=true|false]...
        [--status active|suspended] [--license-id ID] --out FILE${LICENSE_FILE_EXTENSION}
  fieldlens license inspect FILE [--public-key FILE]
  fieldlens license reset-clock      (operator: lower the stored latest-seen time to now, audited)

TIER: ${SKU_TIERS.join(', ')}.  KEY: ${FEATURE_KEYS.join(', ')}.
Timestamps need a time zone, e.g. 2027-01-31T23:59:59Z.
`;

class UsageError extends Error {}
class CommandError extends Error {}

/** Runs `fieldlens license <args>` and resolves to the process exit code. */
export async function runLicenseCommand(
  args: string[],
  out: LicenseCommandOutput,
  options: LicenseCommandOptions = {},
): Promise<number> {
  const [command, ...rest] = args;
  // eslint-disable-next-line no-restricted-syntax -- the CLI runs on the real clock
  const now = options.now ?? (() => new Date());
  try {
    switch (command) {
      case 'keygen':
        return await keygen(rest, out);
      case 'issue':
        return await issue(rest, out, now);
      case 'inspect':
        return await inspect(rest, out, options.env ?? process.env, now);
      case 'reset-clock':
        if (rest.length > 0) throw new UsageError('reset-clock takes no arguments');
        return await resetLicenseClock(out, {
          env: options.env ?? process.env,
          // eslint-disable-next-line no-restricted-properties -- the CLI runs on the real clock
          clock: { now, monotonicMs: () => performance.now() },
        });
      case 'help':
      case '--help':
      case '-h':
        out.stdout(USAGE);
        return 0;
      case undefined:
        throw new UsageError('a command is required: keygen, issue, inspect or reset-clock');
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      // parseArgs messages run on with advice about "--"; the first sentence is the point.
      const message = isParseArgsError(error)
        ? ((error as Error).message.split('\n')[0]?.split('. ')[0] ?? '')
        : (error as Error).message;
      out.stderr(
        command === undefined
          ? `fieldlens license: ${message}\n${USAGE}`
          : `fieldlens license: ${message} (see "fieldlens license help")\n`,
      );
      return 2;
    }
    if (error instanceof CommandError) {
      out.stderr(`fieldlens license: ${error.message}\n`);
      return 1;
    }
    const fsError = error as NodeJS.ErrnoException;
    if (typeof fsError?.code === 'string' && typeof fsError.syscall === 'string') {
      out.stderr(`fieldlens license: ${fsError.syscall} ${fsError.path ?? ''} failed: ${fsError.code}\n`);
      return 1;
    }
    throw error;
  }
}

/** The key the service trusts: FIELDLENS_LICENSE_PUBLIC_KEY when set (and non-empty), else the built-in vendor key. */
export function resolveLicensePublicKey(env: Readonly<Record<string, string | undefined>>): {
  pem: string;
  source: string;
} {
  const configured = env[LICENSE_PUBLIC_KEY_ENV];
  if (configured !== undefined && configured.trim() !== '')
    return { pem: loadPublicKeyPem(configured), source: LICENSE_PUBLIC_KEY_ENV };
  return { pem: VENDOR_LICENSE_PUBLIC_KEY_PEM, source: 'built-in vendor key' };
}

// ---------------------------------------------------------------------------------------------------

async function keygen(args: string[], out: LicenseCommandOutput): Promise<number> {
  const { values } = parseArgs({ args, options: { out: { type: 'string' } }, strict: true, allowPositionals: false });
  const dir = requireOption(values.out, '--out DIR');
  const privatePath = join(dir, 'license-private.pem');
  const publicPath = join(dir, 'license-public.pem');

  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const path of [privatePath, publicPath]) {
    if (await exists(path)) throw new CommandError(`${path} already exists; refusing to overwrite a key`);
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  await writeNewFile(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 0o600);
  try {
    await writeNewFile(publicPath, publicKey.export({ type: 'spki', format: 'pem' }) as string, 0o644);
  } catch (error) {
    await unlink(privatePath).catch(() => undefined);
    throw error;
  }
  out.stdout(`wrote ${privatePath} (private key, mode 0600: keep it offline, never in a repository)\n`);
  out.stdout(`wrote ${publicPath} (public key: set ${LICENSE_PUBLIC_KEY_ENV} to it on the service)\n`);
  return 0;
}

async function issue(args: string[], out: LicenseCommandOutput, now: () => Date): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'private-key': { type: 'string' },
      tier: { type: 'string' },
      customer: { type: 'string' },
      expires: { type: 'string' },
      'not-before': { type: 'string' },
      'max-datasources': { type: 'string' },
      'max-users': { type: 'string' },
      feature: { type: 'string', multiple: true },
      status: { type: 'string' },
      'license-id': { type: 'string' },
      out: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const privateKeyPath = requireOption(values['private-key'], '--private-key FILE');
  const tier = requireOption(values.tier, '--tier TIER');
  if (!SKU_TIERS.includes(tier as SkuTier)) throw new UsageError(`--tier must be one of ${SKU_TIERS.join(', ')}`);
  const customer = requireOption(values.customer, '--customer NAME');
  const outPath = requireOption(values.out, `--out FILE${LICENSE_FILE_EXTENSION}`);
  if (!outPath.endsWith(LICENSE_FILE_EXTENSION) || outPath.length === LICENSE_FILE_EXTENSION.length) {
    throw new UsageError(`--out must name a file ending in ${LICENSE_FILE_EXTENSION}`);
  }
  const status = values.status ?? 'active';
  if (status !== 'active' && status !== 'suspended') throw new UsageError('--status must be active or suspended');

  const issuedAt = now();
  const notBefore =
    values['not-before'] === undefined ? issuedAt : parseTimestampOption('--not-before', values['not-before']);
  const isTrial = tier === 'trial_mock';
  // A signed trial gets the built-in trial's terms unless told otherwise; paid tiers default to perpetual and unlimited.
  const expiresAt =
    values.expires !== undefined
      ? parseTimestampOption('--expires', values.expires)
      : isTrial
        ? new Date(notBefore.getTime() + TRIAL_DURATION_DAYS * DAY_MS)
        : null;
  if (expiresAt !== null && expiresAt.getTime() <= notBefore.getTime())
    throw new UsageError('--expires must be later than --not-before (default: now)');

  const payload: LicensePayload = {
    format: 1,
    license_id: values['license-id'] ?? randomUUID(),
    customer_name: customer,
    sku_tier: tier as SkuTier,
    status: status as LicenseStatus,
    issued_at: issuedAt.toISOString(),
    not_before: notBefore.toISOString(),
    expires_at: expiresAt === null ? null : expiresAt.toISOString(),
    quotas: {
      max_datasources:
        parseQuotaOption('--max-datasources', values['max-datasources']) ??
        (isTrial ? TRIAL_QUOTAS.max_datasources : null),
      max_users: parseQuotaOption('--max-users', values['max-users']) ?? (isTrial ? TRIAL_QUOTAS.max_users : null),
    },
    features: parseFeatureOptions(values.feature ?? []),
  };

  const privateKeyPem = await readKeyFile(privateKeyPath, out);
  let text: string;
  try {
    text = signLicense(payload, privateKeyPem);
  } catch (error) {
    if (error instanceof LicenseFileError) throw new UsageError(error.message);
    throw new CommandError((error as Error).message);
  }
  await writeNewFile(outPath, text, 0o644).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new CommandError(`${outPath} already exists; refusing to overwrite it`);
    throw new CommandError(`cannot write ${outPath}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  });

  if (expiresAt !== null && expiresAt.getTime() <= issuedAt.getTime())
    out.stderr('warning: this license is already expired\n');
  out.stdout(`wrote ${outPath}\n`);
  out.stdout(
    `license_id ${payload.license_id}, tier ${payload.sku_tier}, status ${payload.status}, ` +
      `valid from ${payload.not_before} until ${payload.expires_at ?? 'forever (perpetual)'}\n`,
  );
  return 0;
}

async function inspect(
  args: string[],
  out: LicenseCommandOutput,
  env: Readonly<Record<string, string | undefined>>,
  now: () => Date,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'public-key': { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('inspect takes exactly one license FILE');
  const file = positionals[0] as string;

  let key: { pem: string; source: string };
  try {
    key =
      values['public-key'] !== undefined
        ? { pem: loadPublicKeyPem(values['public-key']), source: values['public-key'] }
        : resolveLicensePublicKey(env);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }

  const size = await stat(file).then(
    (s) => s.size,
    (error: NodeJS.ErrnoException) => {
      throw new CommandError(`cannot read ${file}: ${error.code ?? 'error'}`);
    },
  );
  if (!file.endsWith(LICENSE_FILE_EXTENSION))
    out.stderr(`note: the name does not end in ${LICENSE_FILE_EXTENSION}; the service refuses to import it\n`);
  if (size > MAX_LICENSE_FILE_BYTES) {
    out.stdout('signature: not checked\n');
    out.stderr(`error: the file is larger than ${MAX_LICENSE_FILE_BYTES / 1024} KiB, so it is not a license file\n`);
    return 1;
  }
  const text = await readFile(file);
  const result = inspectLicenseFile(text, [key.pem]);

  // JSON.stringify also escapes control characters, so an untrusted file cannot drive the terminal.
  if (result.payload !== null) out.stdout(`${JSON.stringify(result.payload, null, 2)}\n`);
  out.stdout(`trusted key: ${key.source}\n`);
  out.stdout(
    `signature: ${result.signature === 'valid' ? 'valid' : result.signature === 'invalid' ? 'INVALID' : 'not checked'}\n`,
  );
  if (result.verified !== null) {
    const state = computeLicenseState({
      payload: result.verified,
      trialStartedAt: now(),
      now: now(),
      highWaterMark: null,
    });
    const remaining = state.days_remaining === null ? 'perpetual' : `${state.days_remaining} day(s) remaining`;
    out.stdout(`status: ${state.computed_status} (${remaining})\n`);
    return 0;
  }
  out.stderr(`error: ${result.error?.message ?? 'the license does not verify'}\n`);
  return 1;
}

// ---------------------------------------------------------------------------------------------------

function requireOption(value: string | undefined, name: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${name} is required`);
  return value;
}

function parseTimestampOption(name: string, value: string): Date {
  if (!isIsoTimestamp(value))
    throw new UsageError(`${name} must be an ISO 8601 timestamp with a time zone, e.g. 2027-01-31T23:59:59Z`);
  return new Date(value);
}

function parseQuotaOption(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError(`${name} must be a non-negative integer`);
  return n;
}

function parseFeatureOptions(entries: string[]): Partial<Record<FeatureKey, boolean>> {
  const features: Partial<Record<FeatureKey, boolean>> = {};
  for (const entry of entries) {
    const match = /^([a-z_]+)=(true|false)$/.exec(entry);
    if (match === null || !FEATURE_KEYS.includes(match[1] as FeatureKey)) {
      throw new UsageError(`--feature must be KEY=true|false with KEY one of ${FEATURE_KEYS.join(', ')}`);
    }
    const key = match[1] as FeatureKey;
    const enabled = match[2] === 'true';
    if (features[key] !== undefined && features[key] !== enabled)
      throw new UsageError(`--feature ${key} is given twice with different values`);
    features[key] = enabled;
  }
  return features;
}

async function readKeyFile(path: string, out: LicenseCommandOutput): Promise<string> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw new CommandError(`cannot read the private key ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (info.size > MAX_KEY_FILE_BYTES) throw new CommandError(`${path} is too large to be a PEM key`);
  if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
    out.stderr(`warning: the private key ${path} is readable by other users; chmod 600 it\n`);
  }
  return readFile(path, 'utf8');
}

async function writeNewFile(path: string, content: string, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
