/**
 * Encryption of stored connection secrets (passwords): AES-256-GCM with a 32-byte key, a random 12-byte IV per
 * message and the 16-byte tag checked on decryption, so a changed byte or a wrong key fails instead of yielding
 * garbage. Text format `v1.<iv>.<ciphertext>.<tag>` (base64url): the version prefix lets a later format or key
 * scheme coexist with stored values. An optional context (e.g. the data source id) is bound as associated data,
 * so a ciphertext copied to another row does not decrypt there.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRET_KEY_BYTES = 32;

export class SecretKeyError extends Error {
  override readonly name = 'SecretKeyError';
}

/** Decryption failed: tampered or truncated text, unknown version, or another key. Never says which, never the text. */
export class SecretDecryptError extends Error {
  override readonly name = 'SecretDecryptError';
  constructor() {
    super('the stored secret could not be decrypted (wrong key or altered value)');
  }
}

export interface SecretBox {
  encrypt(plaintext: string, context?: string): string;
  decrypt(sealed: string, context?: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (!Buffer.isBuffer(key) || key.length !== SECRET_KEY_BYTES)
    throw new SecretKeyError(`the secret key must be exactly ${SECRET_KEY_BYTES} bytes`);
  const k = Buffer.from(key); // a private copy: the caller may wipe or reuse its buffer
  return {
    encrypt(plaintext, context = '') {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', k, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(`${VERSION}\0${context}`, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        body.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    decrypt(sealed, context = '') {
      const parts = typeof sealed === 'string' ? sealed.split('.') : [];
      if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretDecryptError();
      const iv = Buffer.from(parts[1]!, 'base64url');
      const body = Buffer.from(parts[2]!, 'base64url');
      const tag = Buffer.from(parts[3]!, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretDecryptError();
      try {
        const decipher = createDecipheriv('aes-256-gcm', k, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(`${VERSION}\0${context}`, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretDecryptError();
      }
    },
  };
}

/**
 * The key from `FIELDLENS_SECRET_KEY` (base64 of 32 bytes) or `FIELDLENS_SECRET_KEY_FILE` (a file holding the
 * base64 text, or the 32 raw bytes). Undefined when neither is set; both set, or a malformed key, is an error.
 */
export function loadSecretKey(env: Record<string, string | undefined>): Buffer | undefined {
  const inline = env.FIELDLENS_SECRET_KEY;
  const file = env.FIELDLENS_SECRET_KEY_FILE;
  if (inline && file) throw new SecretKeyError('set FIELDLENS_SECRET_KEY or FIELDLENS_SECRET_KEY_FILE, not both');
  if (inline) return decodeKey(inline, 'FIELDLENS_SECRET_KEY');
  if (file) {
    let raw: Buffer;
    try {
      raw = fs.readFileSync(file);
    } catch {
      throw new SecretKeyError('FIELDLENS_SECRET_KEY_FILE cannot be read');
    }
    if (raw.length === SECRET_KEY_BYTES) return raw;
    return decodeKey(raw.toString('utf8').trim(), 'FIELDLENS_SECRET_KEY_FILE');
  }
  return undefined;
}

function decodeKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw new SecretKeyError(`${source} must be base64`);
  const key = Buffer.from(trimmed, trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64');
  if (key.length !== SECRET_KEY_BYTES)
    throw new SecretKeyError(`${source} must decode to ${SECRET_KEY_BYTES} bytes (e.g. \`openssl rand -base64 32\`)`);
  return key;
}
