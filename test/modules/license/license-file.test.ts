// node:test's describe/it return promises that the runner itself tracks; awaiting them is not needed.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  LICENSE_ARMOR_BEGIN,
  LICENSE_ARMOR_END,
  LicenseFileError,
  MAX_LICENSE_FILE_BYTES,
  inspectLicenseFile,
  isIsoTimestamp,
  readLicenseFileUnverified,
  signLicense,
  signRawLicensePayload,
  verifyLicenseFile,
  type LicenseFileErrorReason,
  type LicensePayload,
} from '../../../src/modules/license/license-file.js';

function makeKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

function makePayload(overrides: Partial<LicensePayload> = {}): LicensePayload {
  return {
    format: 1,
    license_id: '6f1c2a1e-8a57-4d37-9a63-2d1f0e7b9c11',
    customer_name: 'ACME Corp',
    sku_tier: 'pro',
    status: 'active',
    issued_at: '2026-01-01T00:00:00.000Z',
    not_before: '2026-01-01T00:00:00.000Z',
    expires_at: '2027-01-01T00:00:00.000Z',
    quotas: { max_datasources: 10, max_users: null },
    features: { audit_export: false },
    ...overrides,
  };
}

const keys = makeKeyPair();
const otherKeys = makeKeyPair();

function assertLicenseError(fn: () => unknown, reason: LicenseFileErrorReason, message?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof LicenseFileError, `expected LicenseFileError, got ${String(error)}`);
    assert.equal(error.reason, reason, `reason for: ${error.message}`);
    if (message) assert.match(error.message, message);
    return true;
  });
}

/** Independent implementation of the documented envelope, to build files the library would never write. */
function decodeFile(text: string): { enc: string; sig: string; alg: string } {
  const body = text.trim().split('\n').slice(1, -1).join('');
  return JSON.parse(Buffer.from(body, 'base64').toString('utf8')) as { enc: string; sig: string; alg: string };
}
function encodeFile(envelope: Record<string, unknown> | string): string {
  const json = typeof envelope === 'string' ? envelope : JSON.stringify(envelope);
  const body = Buffer.from(json, 'utf8').toString('base64');
  return `${LICENSE_ARMOR_BEGIN}\n${(body.match(/.{1,64}/g) ?? []).join('\n')}\n${LICENSE_ARMOR_END}\n`;
}
function flipByte(bytes: Buffer, index: number, mask = 0x01): Buffer {
  const copy = Buffer.from(bytes);
  copy[index] = (copy[index] as number) ^ mask;
  return copy;
}

describe('signLicense / verifyLicenseFile', () => {
  it('round-trips a payload', () => {
    const payload = makePayload();
    const text = signLicense(payload, keys.privateKeyPem);
    assert.ok(text.startsWith(`${LICENSE_ARMOR_BEGIN}\n`));
    assert.ok(text.endsWith(`\n${LICENSE_ARMOR_END}\n`));
    assert.ok(text.split('\n').every((line) => line.length <= 64));
    assert.deepEqual(verifyLicenseFile(text, [keys.publicKeyPem]), payload);
    assert.equal(decodeFile(text).alg, 'base64+ed25519');
  });

  it('round-trips a perpetual, unlimited payload with no feature overrides', () => {
    const payload = makePayload({ expires_at: null, quotas: { max_datasources: null, max_users: 0 }, features: {} });
    assert.deepEqual(verifyLicenseFile(signLicense(payload, keys.privateKeyPem), [keys.publicKeyPem]), payload);
  });

  it('accepts Uint8Array input, CRLF line endings and extra trailing newlines', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    assert.equal(verifyLicenseFile(Buffer.from(text), [keys.publicKeyPem]).customer_name, 'ACME Corp');
    assert.equal(verifyLicenseFile(text.replace(/\n/g, '\r\n'), [keys.publicKeyPem]).sku_tier, 'pro');
    assert.equal(verifyLicenseFile(`${text}\n\n`, [keys.publicKeyPem]).sku_tier, 'pro');
    assert.equal(verifyLicenseFile(text.trimEnd(), [keys.publicKeyPem]).sku_tier, 'pro');
  });

  it('verifies when any of several trusted keys matches (key rotation)', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    assert.equal(
      verifyLicenseFile(text, [otherKeys.publicKeyPem, keys.publicKeyPem]).license_id,
      makePayload().license_id,
    );
  });

  it('rejects a license signed by another key', () => {
    const text = signLicense(makePayload(), otherKeys.privateKeyPem);
    assertLicenseError(() => verifyLicenseFile(text, [keys.publicKeyPem]), 'signature');
  });

  it('rejects every single-byte change anywhere in the file', () => {
    const bytes = Buffer.from(signLicense(makePayload(), keys.privateKeyPem), 'ascii');
    let checked = 0;
    for (let index = 0; index < bytes.length; index++) {
      for (const mask of [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80]) {
        const tampered = flipByte(bytes, index, mask);
        assert.throws(
          () => verifyLicenseFile(tampered, [keys.publicKeyPem]),
          LicenseFileError,
          `byte ${index} ^ 0x${mask.toString(16)} was accepted`,
        );
        checked++;
      }
    }
    assert.equal(checked, bytes.length * 8);
  });

  it('rejects a changed armour line', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    assertLicenseError(
      () => verifyLicenseFile(text.replace('BEGIN FIELDLENS', 'BEGIN FIELDLENZ'), [keys.publicKeyPem]),
      'format',
    );
    assertLicenseError(
      () => verifyLicenseFile(text.replace('END FIELDLENS', 'END FIELDLENZ'), [keys.publicKeyPem]),
      'format',
    );
    assertLicenseError(() => verifyLicenseFile(text.replace('-----BEGIN', '----BEGIN'), [keys.publicKeyPem]), 'format');
  });

  it('rejects every flipped byte of the signed payload (enc), re-armoured cleanly', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    const envelope = decodeFile(text);
    const payloadBytes = Buffer.from(envelope.enc, 'base64');
    for (let index = 0; index < payloadBytes.length; index++) {
      const enc = flipByte(payloadBytes, index).toString('base64');
      assertLicenseError(() => verifyLicenseFile(encodeFile({ ...envelope, enc }), [keys.publicKeyPem]), 'signature');
    }
  });

  it('rejects an edited tier even when the rest of the file is rebuilt correctly', () => {
    const text = signLicense(makePayload({ sku_tier: 'lite' }), keys.privateKeyPem);
    const envelope = decodeFile(text);
    const edited = Buffer.from(envelope.enc, 'base64').toString('utf8').replace('"lite"', '"enterprise"');
    const forged = encodeFile({ ...envelope, enc: Buffer.from(edited).toString('base64') });
    assertLicenseError(() => verifyLicenseFile(forged, [keys.publicKeyPem]), 'signature');
  });

  it('rejects every flipped byte of the signature (sig), re-armoured cleanly', () => {
    const envelope = decodeFile(signLicense(makePayload(), keys.privateKeyPem));
    const sigBytes = Buffer.from(envelope.sig, 'base64');
    assert.equal(sigBytes.length, 64);
    for (let index = 0; index < sigBytes.length; index++) {
      const sig = flipByte(sigBytes, index).toString('base64');
      assertLicenseError(() => verifyLicenseFile(encodeFile({ ...envelope, sig }), [keys.publicKeyPem]), 'signature');
    }
    const shortSig = sigBytes.subarray(0, 63).toString('base64');
    assertLicenseError(
      () => verifyLicenseFile(encodeFile({ ...envelope, sig: shortSig }), [keys.publicKeyPem]),
      'signature',
    );
  });

  it('rejects a changed or unknown alg', () => {
    const envelope = decodeFile(signLicense(makePayload(), keys.privateKeyPem));
    for (const alg of ['base64+ed25519 ', 'Base64+ed25519', 'aes-256-gcm+ed25519', 'none', '']) {
      assertLicenseError(
        () => verifyLicenseFile(encodeFile({ ...envelope, alg }), [keys.publicKeyPem]),
        'format',
        /algorithm/,
      );
    }
    // Correctly signed, but under an algorithm name this version does not know.
    const unknownAlg = signRawLicensePayload(
      Buffer.from(JSON.stringify(makePayload())),
      keys.privateKeyPem,
      'aes-256-gcm+ed25519',
    );
    assertLicenseError(() => verifyLicenseFile(unknownAlg, [keys.publicKeyPem]), 'format', /aes-256-gcm\+ed25519/);
  });

  it('rejects an envelope that is not byte-for-byte canonical', () => {
    const envelope = decodeFile(signLicense(makePayload(), keys.privateKeyPem));
    const variants = [
      JSON.stringify({ sig: envelope.sig, enc: envelope.enc, alg: envelope.alg }),
      JSON.stringify(envelope, null, 1),
      JSON.stringify({ ...envelope, tier: 'enterprise' }),
      JSON.stringify({ enc: envelope.enc, sig: envelope.sig }),
      JSON.stringify([envelope.enc, envelope.sig, envelope.alg]),
      'not json at all',
    ];
    for (const variant of variants)
      assertLicenseError(() => verifyLicenseFile(encodeFile(variant), [keys.publicKeyPem]), 'format');
  });

  it('rejects non-canonical base64 in enc (same bytes, different text)', () => {
    const envelope = decodeFile(signLicense(makePayload(), keys.privateKeyPem));
    const enc = envelope.enc;
    // Payload JSON ends in "}}" → its base64 ends in padding, so the last data character has unused bits.
    assert.ok(enc.endsWith('='));
    const lastData = enc.replace(/=+$/, '');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const position = lastData.length - 1;
    const value = alphabet.indexOf(lastData[position] as string);
    const nonCanonical = `${lastData.slice(0, position)}${alphabet[value | 1]}${enc.slice(lastData.length)}`;
    assert.notEqual(nonCanonical, enc);
    assert.deepEqual(Buffer.from(nonCanonical, 'base64'), Buffer.from(enc, 'base64'));
    assertLicenseError(
      () => verifyLicenseFile(encodeFile({ ...envelope, enc: nonCanonical }), [keys.publicKeyPem]),
      'format',
    );
  });

  it('rejects a truncated file at every line boundary and mid-line', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    for (let length = 0; length < text.trimEnd().length; length += 7) {
      assertLicenseError(() => verifyLicenseFile(text.slice(0, length), [keys.publicKeyPem]), 'format');
    }
    const lines = text.trimEnd().split('\n');
    const withoutLastBodyLine = [...lines.slice(0, -2), lines[lines.length - 1]].join('\n');
    assert.throws(() => verifyLicenseFile(withoutLastBodyLine, [keys.publicKeyPem]), LicenseFileError);
  });

  it('rejects content before or after the armour', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    assertLicenseError(
      () => verifyLicenseFile(`${text}garbage`, [keys.publicKeyPem]),
      'format',
      /after the end marker/,
    );
    assertLicenseError(() => verifyLicenseFile(`${text}\n\nsku_tier: enterprise\n`, [keys.publicKeyPem]), 'format');
    assertLicenseError(() => verifyLicenseFile(`${text}${text}`, [keys.publicKeyPem]), 'format');
    assertLicenseError(() => verifyLicenseFile(`tier=enterprise\n${text}`, [keys.publicKeyPem]), 'format');
    assertLicenseError(() => verifyLicenseFile(` ${text}`, [keys.publicKeyPem]), 'format');
    assertLicenseError(() => verifyLicenseFile(`${text} `, [keys.publicKeyPem]), 'format');
    assertLicenseError(() => verifyLicenseFile('', [keys.publicKeyPem]), 'format');
  });

  it('rejects a file over 64 KiB before parsing it', () => {
    const big = signRawLicensePayload(Buffer.alloc(MAX_LICENSE_FILE_BYTES, 0x20), keys.privateKeyPem);
    assert.ok(Buffer.byteLength(big) > MAX_LICENSE_FILE_BYTES);
    assertLicenseError(() => verifyLicenseFile(big, [keys.publicKeyPem]), 'format', /64 KiB/);
    assertLicenseError(() => verifyLicenseFile(Buffer.from(big), [keys.publicKeyPem]), 'format', /64 KiB/);
  });

  it('rejects non-ASCII bytes in the file', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    assertLicenseError(() => verifyLicenseFile(`\uFEFF${text}`, [keys.publicKeyPem]), 'format');
    assertLicenseError(() => verifyLicenseFile(text.replace('\n', '\n\u00e9'), [keys.publicKeyPem]), 'format');
  });

  it('throws a plain Error (not a file error) when the trusted key is unusable', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    assert.throws(
      () => verifyLicenseFile(text, []),
      (error: unknown) => !(error instanceof LicenseFileError) && /no trusted/.test((error as Error).message),
    );
    assert.throws(() => verifyLicenseFile(text, [keys.privateKeyPem]), /private key/);
    assert.throws(() => verifyLicenseFile(text, ['not a key']), /not a readable PEM public key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    }) as string;
    assert.throws(() => verifyLicenseFile(text, [rsa]), /Ed25519/);
  });
});

describe('payload validation after a valid signature', () => {
  const valid = makePayload() as unknown as Record<string, unknown>;
  const badPayloads: Array<[string, unknown]> = [
    ['unknown tier', { ...valid, sku_tier: 'platinum' }],
    ['unknown status', { ...valid, status: 'paused' }],
    ['negative quota', { ...valid, quotas: { max_datasources: -1, max_users: null } }],
    ['fractional quota', { ...valid, quotas: { max_datasources: 1.5, max_users: null } }],
    ['string quota', { ...valid, quotas: { max_datasources: '3', max_users: null } }],
    ['missing quota', { ...valid, quotas: { max_datasources: 3 } }],
    ['unknown quota', { ...valid, quotas: { max_datasources: 3, max_users: 5, max_fields: 1 } }],
    ['unsafe integer quota', { ...valid, quotas: { max_datasources: 2 ** 60, max_users: null } }],
    ['unknown feature', { ...valid, features: { time_travel: true } }],
    ['non-boolean feature', { ...valid, features: { batch_confirm: 'yes' } }],
    [
      '__proto__ feature',
      JSON.parse(
        JSON.stringify({ ...valid, features: {} }).replace('"features":{}', '"features":{"__proto__":true}'),
      ) as unknown,
    ],
    ['timestamp without zone', { ...valid, expires_at: '2027-01-01T00:00:00' }],
    ['date only', { ...valid, not_before: '2026-01-01' }],
    ['impossible date', { ...valid, expires_at: '2027-02-30T00:00:00Z' }],
    ['numeric timestamp', { ...valid, issued_at: 1767225600000 }],
    ['expires before not_before', { ...valid, expires_at: '2025-12-31T23:59:59Z' }],
    ['expires equal to not_before', { ...valid, expires_at: '2026-01-01T00:00:00.000Z' }],
    ['missing expires_at', Object.fromEntries(Object.entries(valid).filter(([key]) => key !== 'expires_at'))],
    ['unknown top-level field', { ...valid, seats: 1000 }],
    ['format 2', { ...valid, format: 2 }],
    ['empty customer', { ...valid, customer_name: '  ' }],
    ['control character in customer', { ...valid, customer_name: 'ACME\u001b[31m' }],
    ['license_id with spaces', { ...valid, license_id: 'a b' }],
    ['array payload', [valid]],
    ['null payload', null],
  ];

  for (const [name, payload] of badPayloads) {
    it(`refuses a validly signed payload with ${name}`, () => {
      const text = signRawLicensePayload(Buffer.from(JSON.stringify(payload)), keys.privateKeyPem);
      assertLicenseError(() => verifyLicenseFile(text, [keys.publicKeyPem]), 'payload');
      // The high-level signer refuses to issue it in the first place.
      if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
        assertLicenseError(() => signLicense(payload as LicensePayload, keys.privateKeyPem), 'payload');
      }
    });
  }

  it('refuses a validly signed payload that is not UTF-8 JSON', () => {
    for (const bytes of [Buffer.from('tier=enterprise'), Buffer.from([0xff, 0xfe, 0x7b, 0x7d])]) {
      assertLicenseError(
        () => verifyLicenseFile(signRawLicensePayload(bytes, keys.privateKeyPem), [keys.publicKeyPem]),
        'payload',
      );
    }
  });

  it('names the offending field', () => {
    const text = signRawLicensePayload(
      Buffer.from(JSON.stringify({ ...valid, sku_tier: 'platinum' })),
      keys.privateKeyPem,
    );
    assertLicenseError(() => verifyLicenseFile(text, [keys.publicKeyPem]), 'payload', /sku_tier/);
  });

  it('accepts ISO timestamps with offsets and every tier and status', () => {
    for (const sku_tier of ['trial_mock', 'lite', 'pro', 'enterprise'] as const) {
      for (const status of ['active', 'suspended', 'revoked'] as const) {
        const payload = makePayload({ sku_tier, status, expires_at: '2027-01-01T02:00:00+02:00' });
        assert.deepEqual(verifyLicenseFile(signLicense(payload, keys.privateKeyPem), [keys.publicKeyPem]), payload);
      }
    }
  });

  it('keeps only known keys, in a fixed order, when signing', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    const json = Buffer.from(decodeFile(text).enc, 'base64').toString('utf8');
    assert.deepEqual(Object.keys(JSON.parse(json) as object), [
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
    ]);
  });
});

describe('inspectLicenseFile / readLicenseFileUnverified', () => {
  it('reports a valid license', () => {
    const payload = makePayload();
    const result = inspectLicenseFile(signLicense(payload, keys.privateKeyPem), [keys.publicKeyPem]);
    assert.equal(result.signature, 'valid');
    assert.deepEqual(result.verified, payload);
    assert.deepEqual(result.payload, payload);
    assert.equal(result.error, null);
  });

  it('shows the payload of a badly signed file but never as verified', () => {
    const result = inspectLicenseFile(signLicense(makePayload(), otherKeys.privateKeyPem), [keys.publicKeyPem]);
    assert.equal(result.signature, 'invalid');
    assert.equal(result.verified, null);
    assert.equal((result.payload as LicensePayload).customer_name, 'ACME Corp');
    assert.equal(result.error?.reason, 'signature');
  });

  it('does not check without keys, and cannot check a broken envelope', () => {
    const text = signLicense(makePayload(), keys.privateKeyPem);
    const unchecked = inspectLicenseFile(text, null);
    assert.equal(unchecked.signature, 'not_checked');
    assert.equal(unchecked.verified, null);
    assert.equal((unchecked.payload as LicensePayload).sku_tier, 'pro');

    const broken = inspectLicenseFile(`${text}junk`, [keys.publicKeyPem]);
    assert.equal(broken.signature, 'not_checked');
    assert.equal(broken.payload, null);
    assert.equal(broken.error?.reason, 'format');
  });

  it('reports a valid signature over an invalid payload', () => {
    const text = signRawLicensePayload(
      Buffer.from(JSON.stringify({ ...makePayload(), sku_tier: 'platinum' })),
      keys.privateKeyPem,
    );
    const result = inspectLicenseFile(text, [keys.publicKeyPem]);
    assert.equal(result.signature, 'valid');
    assert.equal(result.verified, null);
    assert.equal(result.error?.reason, 'payload');
  });

  it('readLicenseFileUnverified decodes without a key and rejects a broken envelope', () => {
    const result = readLicenseFileUnverified(signLicense(makePayload(), otherKeys.privateKeyPem));
    assert.equal(result.signatureValid, false);
    assert.equal((result.payload as LicensePayload).license_id, makePayload().license_id);
    assertLicenseError(() => readLicenseFileUnverified('hello'), 'format');
  });
});

describe('isIsoTimestamp', () => {
  it('accepts RFC 3339 date-times with a zone', () => {
    for (const value of [
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00.123Z',
      '2024-02-29T23:59:59+05:30',
      '2026-12-31T23:59:59-08:00',
    ]) {
      assert.equal(isIsoTimestamp(value), true, value);
    }
  });
  it('refuses anything else', () => {
    for (const value of [
      '2026-01-01',
      '2026-01-01T00:00:00',
      '2026-01-01 00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-13-01T00:00:00Z',
      'tomorrow',
      0,
      null,
    ]) {
      assert.equal(isIsoTimestamp(value), false, String(value));
    }
  });
});
