/** Test factories for licenses: a vendor key pair made here, signed files, hand-built multipart bodies. */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { signLicense, type LicensePayload } from '../../../src/modules/license/license-file.js';
import { bearer } from '../../helpers/app.js';

export const DAY = 24 * 60 * 60 * 1000;

export interface KeyPair {
  privatePem: string;
  publicPem: string;
}

export function keyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

/** A signed license valid from `now` for a year unless overridden. */
export function issueLicense(key: KeyPair, now: Date, overrides: Partial<LicensePayload> = {}): string {
  return signLicense(
    {
      format: 1,
      license_id: randomUUID(),
      customer_name: 'ACME Corp',
      sku_tier: 'pro',
      status: 'active',
      issued_at: now.toISOString(),
      not_before: now.toISOString(),
      expires_at: new Date(now.getTime() + 365 * DAY).toISOString(),
      quotas: { max_datasources: 10, max_users: 20 },
      features: {},
      ...overrides,
    },
    key.privatePem,
  );
}

export interface Part {
  name: string;
  filename?: string;
  content: string | Buffer;
  contentType?: string;
}

/** A multipart/form-data body built by hand, so tests control every byte. */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----fieldlens-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.contentType ?? (part.filename === undefined ? 'text/plain' : 'application/octet-stream');
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${type}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export async function importLicense(
  app: FastifyInstance,
  token: string,
  content: string | Buffer,
  filename = 'acme.service-license',
): Promise<LightMyRequestResponse> {
  const body = multipart([{ name: 'file', filename, content }]);
  return app.inject({
    method: 'POST',
    url: '/api/v1/license/import',
    headers: { ...bearer(token), ...body.headers },
    payload: body.payload,
  });
}
