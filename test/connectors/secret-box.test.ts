// Connection-secret encryption: round trip, random IVs, tamper detection, wrong key, key loading.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createSecretBox, loadSecretKey, SecretDecryptError, SecretKeyError } from '../../src/crypto/secret-box.js';

describe('secret box', () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);
  const password = 'pässwörd-🔑-correct horse battery staple';

  it('round-trips a password, never storing it in clear, with a fresh IV each time', () => {
    const a = box.encrypt(password);
    const b = box.encrypt(password);
    assert.match(a, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    assert.notEqual(a, b);
    assert.ok(!a.includes(password) && !Buffer.from(a).toString('utf8').includes('correct horse'));
    assert.equal(box.decrypt(a), password);
    assert.equal(box.decrypt(box.encrypt('')), '');
  });

  it('detects any altered byte, a truncated value and an unknown version', () => {
    const sealed = box.encrypt(password);
    const [v, iv, body, tag] = sealed.split('.') as [string, string, string, string];
    const flip = (s: string): string => {
      const bytes = Buffer.from(s, 'base64url');
      bytes[0]! ^= 0x01;
      return bytes.toString('base64url');
    };
    for (const bad of [
      [v, flip(iv), body, tag].join('.'),
      [v, iv, flip(body), tag].join('.'),
      [v, iv, body, flip(tag)].join('.'),
      [v, iv, body].join('.'),
      ['v2', iv, body, tag].join('.'),
      'not a sealed value',
    ]) {
      assert.throws(() => box.decrypt(bad), SecretDecryptError);
    }
  });

  it('refuses another key and another context, without revealing the secret', () => {
    const sealed = box.encrypt(password, 'datasource-1');
    assert.equal(box.decrypt(sealed, 'datasource-1'), password);
    assert.throws(
      () => box.decrypt(sealed, 'datasource-2'),
      SecretDecryptError,
      'a value copied to another row does not decrypt',
    );
    assert.throws(
      () => createSecretBox(randomBytes(32)).decrypt(sealed, 'datasource-1'),
      (err: unknown) => err instanceof SecretDecryptError && !err.message.includes(password),
    );
  });

  it('loads a 32-byte key from base64 or a key file and rejects anything else', () => {
    assert.equal(loadSecretKey({}), undefined);
    assert.deepEqual(loadSecretKey({ FIELDLENS_SECRET_KEY: key.toString('base64') }), key);
    assert.throws(() => loadSecretKey({ FIELDLENS_SECRET_KEY: randomBytes(16).toString('base64') }), SecretKeyError);
    assert.throws(() => loadSecretKey({ FIELDLENS_SECRET_KEY: 'correct horse battery staple!' }), SecretKeyError);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-key-'));
    try {
      const text = path.join(dir, 'key.b64');
      fs.writeFileSync(text, `${key.toString('base64')}\n`);
      assert.deepEqual(loadSecretKey({ FIELDLENS_SECRET_KEY_FILE: text }), key);
      const raw = path.join(dir, 'key.bin');
      fs.writeFileSync(raw, key);
      assert.deepEqual(loadSecretKey({ FIELDLENS_SECRET_KEY_FILE: raw }), key);
      assert.throws(() => loadSecretKey({ FIELDLENS_SECRET_KEY_FILE: path.join(dir, 'missing') }), SecretKeyError);
      assert.throws(
        () => loadSecretKey({ FIELDLENS_SECRET_KEY: key.toString('base64'), FIELDLENS_SECRET_KEY_FILE: text }),
        SecretKeyError,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.throws(() => createSecretBox(randomBytes(31)), SecretKeyError);
  });
});
