/**
 * The signed offline license file (`*.service-license`).
 *
 * Format (version 1), ASCII text:
 *
 *   -----BEGIN FIELDLENS LICENSE-----
 *   base64( {"enc":"<base64 payload JSON>","sig":"<base64 Ed25519 signature>","alg":"base64+ed25519"} )
 *   … wrapped at 64 characters per line …
 *   -----END FIELDLENS LICENSE-----
 *
 * The signature covers the ASCII bytes of `"fieldlens-license/v1:" + enc`, i.e. the payload exactly as
 * it is stored, so nothing is re-serialised before checking. Everything that matters (tier, status,
 * dates, quotas, features) is inside `enc`; the envelope carries no other information. Parsing is
 * strict: canonical base64 only, the envelope JSON must be byte-identical to what `signLicense`
 * writes, so any changed byte anywhere in the file is rejected (not only the signed ones).
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export type SkuTier = 'trial_mock' | 'lite' | 'pro' | 'enterprise';
export type LicenseStatus = 'active' | 'suspended' | 'revoked';
export type FeatureKey = 'embedding_metrics' | 'batch_confirm' | 'audit_export' | 'sample_data';

export const SKU_TIERS: readonly SkuTier[] = ['trial_mock', 'lite', 'pro', 'enterprise'];
export const LICENSE_STATUSES: readonly LicenseStatus[] = ['active', 'suspended', 'revoked'];
export const FEATURE_KEYS: readonly FeatureKey[] = [
  'embedding_metrics',
  'batch_confirm',
  'audit_export',
  'sample_data',
];

export interface LicenseQuotas {
  max_datasources: number | null;
  max_users: number | null;
}

export interface LicensePayload {
  format: 1;
  license_id: string;
  customer_name: string;
  sku_tier: SkuTier;
  status: LicenseStatus;
  issued_at: string;
  not_before: string;
  expires_at: string | null;
  quotas: LicenseQuotas;
  features: Partial<Record<FeatureKey, boolean>>;
}

export const LICENSE_FILE_EXTENSION = '.service-license';
export const MAX_LICENSE_FILE_BYTES = 64 * 1024;
export const LICENSE_ALG = 'base64+ed25519';
export const LICENSE_ARMOR_BEGIN = '-----BEGIN FIELDLENS LICENSE-----';
export const LICENSE_ARMOR_END = '-----END FIELDLENS LICENSE-----';
/** Domain separation: a signature made for anything else with the same key never verifies here. */
export const LICENSE_SIGNING_PREFIX = 'fieldlens-license/v1:';

const LINE_WIDTH = 64;
const ED25519_SIGNATURE_BYTES = 64;
const MAX_LICENSE_ID_LENGTH = 128;
const MAX_CUSTOMER_NAME_LENGTH = 200;

export type LicenseFileErrorReason = 'format' | 'signature' | 'payload';

/**
 * A license file that cannot be trusted. `format`: not a well-formed envelope (armour, base64, JSON,
 * unknown alg, size); `signature`: no trusted key verifies it; `payload`: signed, but its content is invalid.
 */
export class LicenseFileError extends Error {
  override readonly name = 'LicenseFileError';
  readonly reason: LicenseFileErrorReason;

  constructor(reason: LicenseFileErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Signs a validated payload and returns the `.service-license` file text. Throws LicenseFileError('payload') on an invalid payload. */
export function signLicense(payload: LicensePayload, privateKeyPem: string): string {
  const normalized = parseLicensePayload(payload);
  return signRawLicensePayload(new TextEncoder().encode(JSON.stringify(normalized)), privateKeyPem);
}

/**
 * Low-level: wraps arbitrary payload bytes in a signed envelope WITHOUT validating them. Meant for
 * tooling and tests (e.g. proving that a validly signed but invalid payload is still refused);
 * use `signLicense` to issue licenses.
 */
export function signRawLicensePayload(
  payloadBytes: Uint8Array,
  privateKeyPem: string,
  alg: string = LICENSE_ALG,
): string {
  const key = toEd25519PrivateKey(privateKeyPem);
  const enc = Buffer.from(payloadBytes).toString('base64');
  const sig = sign(null, signedBytes(enc), key).toString('base64');
  return armor(envelopeJson(enc, sig, alg));
}

/**
 * Verifies a license file against the trusted public keys (any one may match, which allows key rotation)
 * and returns its validated payload. Throws LicenseFileError; throws a plain Error when a key is unusable.
 */
export function verifyLicenseFile(text: string | Uint8Array, publicKeyPems: readonly string[]): LicensePayload {
  const keys = toEd25519PublicKeys(publicKeyPems);
  const envelope = decodeEnvelope(text);
  if (envelope.alg !== LICENSE_ALG) {
    throw new LicenseFileError('format', `unsupported license algorithm "${envelope.alg}"`);
  }
  if (!keys.some((key) => verify(null, signedBytes(envelope.enc), key, envelope.sig))) {
    throw new LicenseFileError('signature', 'the license signature does not verify with the trusted public key');
  }
  return parseLicensePayload(decodePayloadJson(envelope.payloadBytes));
}

export type SignatureCheck = 'valid' | 'invalid' | 'not_checked';

export interface LicenseInspection {
  /** The decoded payload JSON (not necessarily valid); null when the envelope could not be decoded. */
  payload: unknown;
  /** `not_checked` when no key was given, or the envelope is too broken to check. */
  signature: SignatureCheck;
  /** The validated payload, only when the signature is valid and the payload passes validation. */
  verified: LicensePayload | null;
  /** The first problem found, null when the file verifies (or decodes, when no key was given). */
  error: LicenseFileError | null;
}

/**
 * Decodes a license file for display, reporting every finding instead of throwing on the first one.
 * Never use `payload` for decisions: only `verified` is trustworthy.
 */
export function inspectLicenseFile(
  text: string | Uint8Array,
  publicKeyPems: readonly string[] | null,
): LicenseInspection {
  const keys = publicKeyPems === null ? null : toEd25519PublicKeys(publicKeyPems);
  let envelope: DecodedEnvelope;
  try {
    envelope = decodeEnvelope(text);
  } catch (error) {
    return { payload: null, signature: 'not_checked', verified: null, error: asLicenseFileError(error) };
  }
  let payload: unknown;
  let payloadError: LicenseFileError | null = null;
  try {
    payload = decodePayloadJson(envelope.payloadBytes);
  } catch (error) {
    payload = Buffer.from(envelope.payloadBytes).toString('utf8');
    payloadError = asLicenseFileError(error);
  }
  if (envelope.alg !== LICENSE_ALG) {
    const error = new LicenseFileError('format', `unsupported license algorithm "${envelope.alg}"`);
    return { payload, signature: 'not_checked', verified: null, error };
  }
  if (keys === null) {
    return { payload, signature: 'not_checked', verified: null, error: payloadError };
  }
  if (!keys.some((key) => verify(null, signedBytes(envelope.enc), key, envelope.sig))) {
    const error = new LicenseFileError(
      'signature',
      'the license signature does not verify with the trusted public key',
    );
    return { payload, signature: 'invalid', verified: null, error };
  }
  if (payloadError !== null) return { payload, signature: 'valid', verified: null, error: payloadError };
  try {
    return { payload, signature: 'valid', verified: parseLicensePayload(payload), error: null };
  } catch (error) {
    return { payload, signature: 'valid', verified: null, error: asLicenseFileError(error) };
  }
}

/** Decodes the payload without any signature check (display only). Throws LicenseFileError('format') on a broken envelope. */
export function readLicenseFileUnverified(text: string | Uint8Array): { payload: unknown; signatureValid: false } {
  const envelope = decodeEnvelope(text);
  let payload: unknown;
  try {
    payload = decodePayloadJson(envelope.payloadBytes);
  } catch {
    payload = Buffer.from(envelope.payloadBytes).toString('utf8');
  }
  return { payload, signatureValid: false };
}

/**
 * Validates an untrusted value as a version-1 license payload and returns a copy with only the known
 * keys, in a fixed order. Throws LicenseFileError('payload') naming the first bad field.
 */
export function parseLicensePayload(value: unknown): LicensePayload {
  const fail = (message: string): never => {
    throw new LicenseFileError('payload', `invalid license payload: ${message}`);
  };
  if (!isPlainObject(value)) return fail('not a JSON object');
  const known = [
    'format',
    'license_id',
    'customer_name',
    'sku_tier',
    'status',
    'issued_at',
    'not_before',
    'expires_at',
    'quotas',
    'features',
  ];
  for (const key of Object.keys(value)) if (!known.includes(key)) fail(`unknown field "${key}"`);

  if (value.format !== 1) fail('format must be 1');
  const licenseId = value.license_id;
  if (
    typeof licenseId !== 'string' ||
    !/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(licenseId) ||
    licenseId.length > MAX_LICENSE_ID_LENGTH
  ) {
    fail(`license_id must be 1–${MAX_LICENSE_ID_LENGTH} characters of A–Z a–z 0–9 . _ : -`);
  }
  const customerName = value.customer_name;
  if (typeof customerName !== 'string' || !isDisplayText(customerName, MAX_CUSTOMER_NAME_LENGTH)) {
    fail(`customer_name must be 1–${MAX_CUSTOMER_NAME_LENGTH} characters without control characters`);
  }
  if (!SKU_TIERS.includes(value.sku_tier as SkuTier)) fail(`sku_tier must be one of ${SKU_TIERS.join(', ')}`);
  if (!LICENSE_STATUSES.includes(value.status as LicenseStatus))
    fail(`status must be one of ${LICENSE_STATUSES.join(', ')}`);
  for (const key of ['issued_at', 'not_before'] as const) {
    if (!isIsoTimestamp(value[key])) fail(`${key} must be an ISO 8601 timestamp with a time zone`);
  }
  if (value.expires_at !== null && !isIsoTimestamp(value.expires_at))
    fail('expires_at must be an ISO 8601 timestamp with a time zone, or null');
  if (typeof value.expires_at === 'string' && Date.parse(value.expires_at) <= Date.parse(value.not_before as string)) {
    fail('expires_at must be later than not_before');
  }

  const quotas = value.quotas;
  if (!isPlainObject(quotas)) return fail('quotas must be an object');
  for (const key of Object.keys(quotas))
    if (key !== 'max_datasources' && key !== 'max_users') fail(`unknown quota "${key}"`);
  for (const key of ['max_datasources', 'max_users'] as const) {
    const quota = quotas[key];
    if (quota !== null && !(Number.isSafeInteger(quota) && (quota as number) >= 0))
      fail(`quotas.${key} must be a non-negative integer or null`);
  }

  const features = value.features;
  if (!isPlainObject(features)) return fail('features must be an object');
  const normalizedFeatures: Partial<Record<FeatureKey, boolean>> = {};
  for (const [key, enabled] of Object.entries(features)) {
    if (!FEATURE_KEYS.includes(key as FeatureKey)) fail(`unknown feature "${key}"`);
    if (typeof enabled !== 'boolean') fail(`features.${key} must be true or false`);
    normalizedFeatures[key as FeatureKey] = enabled as boolean;
  }

  return {
    format: 1,
    license_id: licenseId as string,
    customer_name: customerName as string,
    sku_tier: value.sku_tier as SkuTier,
    status: value.status as LicenseStatus,
    issued_at: value.issued_at as string,
    not_before: value.not_before as string,
    expires_at: value.expires_at as string | null,
    quotas: { max_datasources: quotas.max_datasources as number | null, max_users: quotas.max_users as number | null },
    features: normalizedFeatures,
  };
}

/** True for an RFC 3339 / ISO 8601 date-time with seconds and a zone (`Z` or `±HH:MM`) naming a real instant. */
export function isIsoTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|([+-])(\d{2}):(\d{2}))$/.exec(
    value,
  );
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (match[8] !== undefined && (Number(match[8]) > 23 || Number(match[9]) > 59)) return false;
  // Date.parse accepts 2025-02-30 (rolls over to March); compare the calendar date to refuse it.
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    Number.isFinite(Date.parse(value))
  );
}

// ---------------------------------------------------------------------------------------------------

interface DecodedEnvelope {
  enc: string;
  sig: Buffer;
  alg: string;
  payloadBytes: Uint8Array;
}

function decodeEnvelope(input: string | Uint8Array): DecodedEnvelope {
  const fail = (message: string): never => {
    throw new LicenseFileError('format', `not a FieldLens license file: ${message}`);
  };
  const byteLength = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
  if (byteLength > MAX_LICENSE_FILE_BYTES) fail(`larger than ${MAX_LICENSE_FILE_BYTES / 1024} KiB`);
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
  if (bytes.some((byte) => byte > 0x7e || (byte < 0x20 && byte !== 0x0a && byte !== 0x0d)))
    fail('contains non-ASCII or control characters');

  // Lines end in LF or CRLF (a file that went through a Windows editor still verifies); blank lines
  // may follow the end marker, nothing else may surround the armour.
  const lines = bytes.toString('ascii').split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== LICENSE_ARMOR_BEGIN) fail(`the first line must be ${LICENSE_ARMOR_BEGIN}`);
  const endIndex = lines.indexOf(LICENSE_ARMOR_END);
  if (endIndex === -1) fail(`the end marker ${LICENSE_ARMOR_END} is missing (truncated file?)`);
  if (endIndex !== lines.length - 1) fail('unexpected content after the end marker');
  const body = lines.slice(1, endIndex);
  if (body.length === 0 || body.some((line) => line.length === 0 || line.length > LINE_WIDTH))
    fail('malformed body lines');

  const envelopeBytes = decodeCanonicalBase64(body.join(''));
  if (envelopeBytes === null) fail('the body is not valid base64');
  let envelope: unknown;
  try {
    envelope = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(envelopeBytes as Buffer));
  } catch {
    return fail('the body is not a JSON envelope');
  }
  if (!isPlainObject(envelope)) return fail('the envelope is not a JSON object');
  const { enc, sig, alg } = envelope;
  if (typeof enc !== 'string' || typeof sig !== 'string' || typeof alg !== 'string')
    return fail('the envelope needs string fields enc, sig and alg');
  // Byte-identical to what signLicense writes: no extra fields, no re-ordering, no whitespace.
  if (!(envelopeBytes as Buffer).equals(Buffer.from(envelopeJson(enc, sig, alg), 'utf8')))
    fail('the envelope is not in canonical form');
  const payloadBytes = decodeCanonicalBase64(enc);
  if (payloadBytes === null || payloadBytes.length === 0) return fail('enc is not valid base64');
  const sigBytes = decodeCanonicalBase64(sig);
  if (sigBytes === null) return fail('sig is not valid base64');
  if (sigBytes.length !== ED25519_SIGNATURE_BYTES) {
    throw new LicenseFileError('signature', `the signature must be ${ED25519_SIGNATURE_BYTES} bytes`);
  }
  return { enc, sig: sigBytes, alg, payloadBytes };
}

function decodePayloadJson(payloadBytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes));
  } catch {
    throw new LicenseFileError('payload', 'invalid license payload: not UTF-8 JSON');
  }
}

/** Strict base64: standard alphabet, padding required, no whitespace, unused bits zero (one text per byte string). */
function decodeCanonicalBase64(text: string): Buffer | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

function envelopeJson(enc: string, sig: string, alg: string): string {
  return JSON.stringify({ enc, sig, alg });
}

function armor(envelope: string): string {
  const body = Buffer.from(envelope, 'utf8').toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < body.length; i += LINE_WIDTH) lines.push(body.slice(i, i + LINE_WIDTH));
  return `${LICENSE_ARMOR_BEGIN}\n${lines.join('\n')}\n${LICENSE_ARMOR_END}\n`;
}

function signedBytes(enc: string): Buffer {
  return Buffer.from(LICENSE_SIGNING_PREFIX + enc, 'ascii');
}

function toEd25519PrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new Error('the license private key is not a readable, unencrypted PEM private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the license private key must be an Ed25519 key');
  return key;
}

function toEd25519PublicKeys(pems: readonly string[]): KeyObject[] {
  if (pems.length === 0) throw new Error('no trusted license public key was given');
  return pems.map((pem) => {
    if (pem.includes('PRIVATE KEY')) throw new Error('a license public key was expected, but a private key was given');
    let key: KeyObject;
    try {
      key = createPublicKey({ key: pem, format: 'pem' });
    } catch {
      throw new Error('the license public key is not a readable PEM public key');
    }
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('the license public key must be an Ed25519 key');
    return key;
  });
}

function asLicenseFileError(error: unknown): LicenseFileError {
  if (error instanceof LicenseFileError) return error;
  throw error;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDisplayText(text: string, maxLength: number): boolean {
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
  return text.trim().length > 0 && [...text].length <= maxLength && !control.test(text);
}
