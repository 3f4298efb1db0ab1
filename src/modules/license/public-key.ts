// The vendor's license-signing public key: the built-in one, or FIELDLENS_LICENSE_PUBLIC_KEY (PEM text or a path),
// read and checked once when the configuration is loaded.
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A PEM public key is well under this; a larger file is not one. */
const MAX_KEY_FILE_BYTES = 16 * 1024;

/**
 * Reads an Ed25519 public key given as PEM text or as the path of a PEM file (the form of
 * FIELDLENS_LICENSE_PUBLIC_KEY) and returns it as SPKI PEM. Throws an Error with a one-line reason.
 */
export function loadPublicKeyPem(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new Error('the license public key is empty');
  let pem: string;
  if (trimmed.startsWith('-----BEGIN')) {
    // Environment variables often carry PEM with literal "\n" sequences instead of line breaks.
    pem = trimmed.includes('\n') ? trimmed : trimmed.replace(/\\n/g, '\n');
  } else {
    let text: Buffer;
    try {
      text = readFileSync(trimmed);
    } catch (error) {
      throw new Error(
        `cannot read the license public key file ${trimmed}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    if (text.byteLength > MAX_KEY_FILE_BYTES)
      throw new Error(`the license public key file ${trimmed} is too large to be a PEM key`);
    pem = text.toString('utf8');
  }
  if (pem.includes('PRIVATE KEY')) throw new Error('a license public key was expected, but a private key was given');
  let key;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw new Error('the license public key is not a readable PEM public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the license public key must be an Ed25519 key');
  return key.export({ type: 'spki', format: 'pem' }) as string;
}
