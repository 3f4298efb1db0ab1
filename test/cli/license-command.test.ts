// node:test's describe/it return promises that the runner itself tracks; awaiting them is not needed.
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveLicensePublicKey, runLicenseCommand } from '../../src/cli/license.command.js';
import { loadPublicKeyPem } from '../../src/modules/license/public-key.js';
import { verifyLicenseFile, type LicensePayload } from '../../src/modules/license/license-file.js';
import { VENDOR_LICENSE_PUBLIC_KEY_PEM } from '../../src/modules/license/vendor-public-key.js';

const NOW = new Date('2026-05-01T10:00:00.000Z');

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const code = await runLicenseCommand(
    args,
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) },
    { env, now: () => NOW },
  );
  return { code, stdout, stderr };
}

let dir: string;
let privateKeyPath: string;
let publicKeyPath: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fieldlens-license-cli-'));
  const keygen = await run(['keygen', '--out', join(dir, 'keys')]);
  assert.equal(keygen.code, 0, keygen.stderr);
  privateKeyPath = join(dir, 'keys', 'license-private.pem');
  publicKeyPath = join(dir, 'keys', 'license-public.pem');
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function issue(name: string, extra: string[] = []): Promise<{ result: RunResult; path: string }> {
  const path = join(dir, `${name}.service-license`);
  const result = await run([
    'issue',
    '--private-key',
    privateKeyPath,
    '--tier',
    'pro',
    '--customer',
    'ACME Corp',
    '--out',
    path,
    ...extra,
  ]);
  return { result, path };
}

async function verifyIssued(path: string): Promise<LicensePayload> {
  return verifyLicenseFile(await readFile(path, 'utf8'), [await readFile(publicKeyPath, 'utf8')]);
}

describe('license keygen', () => {
  it('writes a PKCS#8 private key (0600) and an SPKI public key that belong together', async () => {
    const privatePem = await readFile(privateKeyPath, 'utf8');
    const publicPem = await readFile(publicKeyPath, 'utf8');
    assert.match(privatePem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.match(publicPem, /^-----BEGIN PUBLIC KEY-----\n/);
    const privateKey = createPrivateKey(privatePem);
    assert.equal(privateKey.asymmetricKeyType, 'ed25519');
    assert.equal(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }), publicPem);
    assert.equal((await stat(privateKeyPath)).mode & 0o777, 0o600);
  });

  it('never prints key material', async () => {
    const result = await run(['keygen', '--out', join(dir, 'keys-quiet')]);
    assert.equal(result.code, 0);
    const privatePem = await readFile(join(dir, 'keys-quiet', 'license-private.pem'), 'utf8');
    const base64 = privatePem.split('\n')[1] as string;
    assert.ok(!result.stdout.includes(base64) && !result.stderr.includes(base64));
  });

  it('refuses to overwrite existing keys and leaves them untouched', async () => {
    const before = await readFile(privateKeyPath, 'utf8');
    const result = await run(['keygen', '--out', join(dir, 'keys')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /already exists/);
    assert.equal(await readFile(privateKeyPath, 'utf8'), before);
  });

  it('refuses when only the public key exists, without writing a private key', async () => {
    const partial = join(dir, 'keys-partial');
    await run(['keygen', '--out', partial]);
    await rm(join(partial, 'license-private.pem'));
    const result = await run(['keygen', '--out', partial]);
    assert.equal(result.code, 1);
    await assert.rejects(stat(join(partial, 'license-private.pem')), { code: 'ENOENT' });
  });

  it('needs --out', async () => {
    const result = await run(['keygen']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--out DIR is required/);
  });
});

describe('license issue', () => {
  it('issues a perpetual, unlimited paid license by default', async () => {
    const { result, path } = await issue('default');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /wrote .*default\.service-license/);
    const payload = await verifyIssued(path);
    assert.equal(payload.sku_tier, 'pro');
    assert.equal(payload.customer_name, 'ACME Corp');
    assert.equal(payload.status, 'active');
    assert.equal(payload.issued_at, NOW.toISOString());
    assert.equal(payload.not_before, NOW.toISOString());
    assert.equal(payload.expires_at, null);
    assert.deepEqual(payload.quotas, { max_datasources: null, max_users: null });
    assert.deepEqual(payload.features, {});
    assert.match(payload.license_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('takes every option', async () => {
    const { result, path } = await issue('full', [
      '--expires',
      '2027-05-01T00:00:00+02:00',
      '--not-before',
      '2026-06-01T00:00:00Z',
      '--max-datasources',
      '12',
      '--max-users',
      '0',
      '--feature',
      'audit_export=false',
      '--feature',
      'sample_data=true',
      '--status',
      'suspended',
      '--license-id',
      'ACME-2026-001',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const payload = await verifyIssued(path);
    assert.equal(payload.expires_at, '2027-04-30T22:00:00.000Z');
    assert.equal(payload.not_before, '2026-06-01T00:00:00.000Z');
    assert.deepEqual(payload.quotas, { max_datasources: 12, max_users: 0 });
    assert.deepEqual(payload.features, { audit_export: false, sample_data: true });
    assert.equal(payload.status, 'suspended');
    assert.equal(payload.license_id, 'ACME-2026-001');
  });

  it('gives a signed trial the built-in trial terms unless told otherwise', async () => {
    const path = join(dir, 'trial.service-license');
    const result = await run([
      'issue',
      '--private-key',
      privateKeyPath,
      '--tier',
      'trial_mock',
      '--customer',
      'Prospect',
      '--out',
      path,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const payload = await verifyIssued(path);
    assert.equal(payload.expires_at, '2026-05-31T10:00:00.000Z');
    assert.deepEqual(payload.quotas, { max_datasources: 3, max_users: 5 });
  });

  it('refuses to overwrite an existing license file', async () => {
    const { path } = await issue('twice');
    const first = await readFile(path, 'utf8');
    const { result } = await issue('twice', ['--tier', 'enterprise']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /already exists/);
    assert.equal(await readFile(path, 'utf8'), first);
  });

  it('warns about a group- or world-readable private key but still works', async () => {
    const loosePath = join(dir, 'loose.pem');
    await writeFile(loosePath, await readFile(privateKeyPath), { mode: 0o644 });
    const path = join(dir, 'loose.service-license');
    const result = await run(['issue', '--private-key', loosePath, '--tier', 'lite', '--customer', 'X', '--out', path]);
    assert.equal(result.code, 0);
    assert.match(result.stderr, /readable by other users/);
  });

  it('warns when the license is already expired', async () => {
    const { result } = await issue('past', [
      '--not-before',
      '2020-01-01T00:00:00Z',
      '--expires',
      '2021-01-01T00:00:00Z',
    ]);
    assert.equal(result.code, 0);
    assert.match(result.stderr, /already expired/);
  });

  const usageErrors: Array<[string, string[], RegExp]> = [
    ['missing --tier', ['--tier', ''], /--tier TIER is required/],
    ['unknown tier', ['--tier', 'platinum'], /--tier must be one of/],
    ['bad --expires', ['--expires', '2027-01-01'], /--expires must be an ISO 8601 timestamp/],
    ['impossible --expires', ['--expires', '2027-02-30T00:00:00Z'], /--expires/],
    [
      '--expires before --not-before',
      ['--not-before', '2027-01-01T00:00:00Z', '--expires', '2026-12-01T00:00:00Z'],
      /later than --not-before/,
    ],
    ['negative quota', ['--max-users=-1'], /--max-users must be a non-negative integer/],
    ['option value that looks like an option', ['--max-users', '-1'], /'--max-users' argument is ambiguous/],
    ['fractional quota', ['--max-datasources', '2.5'], /--max-datasources must be a non-negative integer/],
    ['unknown feature', ['--feature', 'teleport=true'], /--feature must be KEY=true\|false/],
    ['feature without value', ['--feature', 'audit_export'], /--feature must be KEY=true\|false/],
    ['conflicting feature', ['--feature', 'audit_export=true', '--feature', 'audit_export=false'], /twice/],
    ['revoked status', ['--status', 'revoked'], /--status must be active or suspended/],
    ['bad license id', ['--license-id', 'has space'], /license_id/],
    ['unknown option', ['--seats', '5'], /Unknown option '--seats'/],
  ];
  for (const [name, extra, message] of usageErrors) {
    it(`usage error: ${name}`, async () => {
      const { result, path } = await issue(`usage-${name.replace(/\W+/g, '-')}`, extra);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, 'one-line error');
      await assert.rejects(stat(path), { code: 'ENOENT' });
    });
  }

  it('usage error: --out without the .service-license extension', async () => {
    const result = await run([
      'issue',
      '--private-key',
      privateKeyPath,
      '--tier',
      'pro',
      '--customer',
      'A',
      '--out',
      join(dir, 'x.license'),
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /\.service-license/);
  });

  it('fails cleanly when the private key is missing or not an Ed25519 key', async () => {
    const missing = await run([
      'issue',
      '--private-key',
      join(dir, 'nope.pem'),
      '--tier',
      'pro',
      '--customer',
      'A',
      '--out',
      join(dir, 'm.service-license'),
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read the private key .*ENOENT/);

    const rsaPath = join(dir, 'rsa.pem');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    await writeFile(rsaPath, rsa, { mode: 0o600 });
    const wrongType = await run([
      'issue',
      '--private-key',
      rsaPath,
      '--tier',
      'pro',
      '--customer',
      'A',
      '--out',
      join(dir, 'r.service-license'),
    ]);
    assert.equal(wrongType.code, 1);
    assert.match(wrongType.stderr, /Ed25519/);
    assert.ok(!wrongType.stderr.includes(rsa.split('\n')[1] as string), 'no key material in errors');
  });
});

describe('license inspect', () => {
  let validPath: string;

  before(async () => {
    validPath = (await issue('inspect-me', ['--expires', '2026-05-11T09:00:00Z', '--max-users', '7'])).path;
  });

  it('prints the payload and "signature: valid" with --public-key', async () => {
    const result = await run(['inspect', validPath, '--public-key', publicKeyPath]);
    assert.equal(result.code, 0, result.stderr);
    const json = result.stdout.slice(0, result.stdout.indexOf('\n}\n') + 2);
    const payload = JSON.parse(json) as LicensePayload;
    assert.equal(payload.customer_name, 'ACME Corp');
    assert.equal(payload.quotas.max_users, 7);
    assert.match(result.stdout, /^signature: valid$/m);
    assert.match(result.stdout, /^status: active \(10 day\(s\) remaining\)$/m);
  });

  it('uses FIELDLENS_LICENSE_PUBLIC_KEY as PEM text, as a path, or with escaped newlines', async () => {
    const pem = await readFile(publicKeyPath, 'utf8');
    for (const value of [pem, publicKeyPath, pem.trim().replace(/\n/g, '\\n')]) {
      const result = await run(['inspect', validPath], { FIELDLENS_LICENSE_PUBLIC_KEY: value });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^trusted key: FIELDLENS_LICENSE_PUBLIC_KEY$/m);
      assert.match(result.stdout, /^signature: valid$/m);
    }
  });

  it('falls back to the built-in vendor key, which did not sign a test license', async () => {
    const result = await run(['inspect', validPath]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^trusted key: built-in vendor key$/m);
    assert.match(result.stdout, /^signature: INVALID$/m);
    assert.match(result.stderr, /does not verify/);
    assert.match(result.stdout, /"customer_name": "ACME Corp"/, 'the unverified payload is still shown');
  });

  it('reports a tampered file as INVALID and exits 1', async () => {
    const text = await readFile(validPath, 'utf8');
    const lines = text.split('\n');
    const line = lines[2] as string;
    lines[2] = line.slice(0, 10) + (line[10] === 'A' ? 'B' : 'A') + line.slice(11);
    const tamperedPath = join(dir, 'tampered.service-license');
    await writeFile(tamperedPath, lines.join('\n'));
    const result = await run(['inspect', tamperedPath, '--public-key', publicKeyPath]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^signature: (INVALID|not checked)$/m);
    assert.doesNotMatch(result.stdout, /signature: valid/);
  });

  it('reports a file that is not a license as "not checked" and exits 1', async () => {
    const junkPath = join(dir, 'junk.service-license');
    await writeFile(junkPath, 'sku_tier=enterprise\n');
    const result = await run(['inspect', junkPath, '--public-key', publicKeyPath]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^signature: not checked$/m);
    assert.match(result.stderr, /not a FieldLens license file/);
  });

  it('refuses a file over 64 KiB without reading it as a license', async () => {
    const bigPath = join(dir, 'big.service-license');
    await writeFile(bigPath, Buffer.alloc(64 * 1024 + 1, 0x41));
    const result = await run(['inspect', bigPath, '--public-key', publicKeyPath]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /64 KiB/);
  });

  it('shows the computed status of an expired license but still exits 0 (the file itself is valid)', async () => {
    const { path } = await issue('expired', [
      '--not-before',
      '2020-01-01T00:00:00Z',
      '--expires',
      '2021-01-01T00:00:00Z',
    ]);
    const result = await run(['inspect', path, '--public-key', publicKeyPath]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^status: expired \(0 day\(s\) remaining\)$/m);
  });

  it('notes a file name the service would refuse', async () => {
    const otherName = join(dir, 'renamed.txt');
    await writeFile(otherName, await readFile(validPath));
    const result = await run(['inspect', otherName, '--public-key', publicKeyPath]);
    assert.equal(result.code, 0);
    assert.match(result.stderr, /does not end in \.service-license/);
  });

  it('usage and key errors', async () => {
    assert.equal((await run(['inspect'])).code, 2);
    assert.equal((await run(['inspect', validPath, validPath])).code, 2);
    const missing = await run(['inspect', join(dir, 'missing.service-license'), '--public-key', publicKeyPath]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /ENOENT/);
    const privateAsPublic = await run(['inspect', validPath, '--public-key', privateKeyPath]);
    assert.equal(privateAsPublic.code, 1);
    assert.match(privateAsPublic.stderr, /private key was given/);
    assert.doesNotMatch(privateAsPublic.stderr, /BEGIN/);
    const badEnv = await run(['inspect', validPath], { FIELDLENS_LICENSE_PUBLIC_KEY: join(dir, 'nope.pem') });
    assert.equal(badEnv.code, 1);
    assert.match(badEnv.stderr, /cannot read the license public key file/);
  });
});

describe('command dispatch', () => {
  it('prints usage on help (exit 0) and with no command (exit 2)', async () => {
    const help = await run(['help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /fieldlens license keygen --out DIR/);
    const none = await run([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Usage:/);
  });

  it('rejects an unknown command with exit 2', async () => {
    const result = await run(['revoke', 'x']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown command "revoke"/);
  });
});

describe('loadPublicKeyPem / resolveLicensePublicKey', () => {
  it('normalises PEM text and reads PEM files', async () => {
    const pem = await readFile(publicKeyPath, 'utf8');
    assert.equal(loadPublicKeyPem(`\n  ${pem}  \n`), pem);
    assert.equal(loadPublicKeyPem(publicKeyPath), pem);
  });

  it('refuses private keys, non-Ed25519 keys, garbage and empty values', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    }) as string;
    assert.throws(() => loadPublicKeyPem(rsa), /Ed25519/);
    assert.throws(() => loadPublicKeyPem(privateKeyPath), /private key/);
    assert.throws(
      () => loadPublicKeyPem('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'),
      /not a readable PEM/,
    );
    assert.throws(() => loadPublicKeyPem('   '), /empty/);
  });

  it('prefers FIELDLENS_LICENSE_PUBLIC_KEY, else the built-in vendor key (a valid Ed25519 key)', async () => {
    assert.equal(resolveLicensePublicKey({}).pem, VENDOR_LICENSE_PUBLIC_KEY_PEM);
    assert.equal(resolveLicensePublicKey({ FIELDLENS_LICENSE_PUBLIC_KEY: '' }).source, 'built-in vendor key');
    assert.equal(
      resolveLicensePublicKey({ FIELDLENS_LICENSE_PUBLIC_KEY: publicKeyPath }).pem,
      await readFile(publicKeyPath, 'utf8'),
    );
    assert.equal(createPublicKey(VENDOR_LICENSE_PUBLIC_KEY_PEM).asymmetricKeyType, 'ed25519');
    assert.equal(loadPublicKeyPem(VENDOR_LICENSE_PUBLIC_KEY_PEM), VENDOR_LICENSE_PUBLIC_KEY_PEM);
  });
});
