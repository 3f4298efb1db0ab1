/**
 * One delivery attempt, Standard Webhooks style: `POST` of the stored body with `webhook-id`, `webhook-timestamp`
 * (seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the bytes of the
 * secret after `whsec_`. node:http(s) rather than fetch: its `lookup` hook lets the connection go to the address
 * checked by webhook-address.ts (no second DNS answer in between), TLS still checks the certificate for the URL's
 * host name, and it never follows a redirect (a 3xx is an answer like any non-2xx). The whole attempt — connect, send,
 * answer — has a deadline (10 s). The answer's body is read (up to 64 KiB, to free the socket) and thrown away.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './webhook-address.js';

export const SECRET_PREFIX = 'whsec_';
export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The `webhook-signature` value of a message. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** Short, ours: never the receiver's body. */
  error: string | null;
}

export interface SendOptions {
  target: CheckedTarget;
  id: string;
  timestamp: number;
  body: string;
  secret: string;
  timeoutMs?: number;
}

/** Sends one attempt; never throws (a failure is a result). */
export function sendWebhook(options: SendOptions): Promise<AttemptResult> {
  const { target, id, timestamp, body, secret } = options;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
  const transport = target.url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const request = transport.request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'FieldLens-Webhooks',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(secret, id, timestamp, body),
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const done = () => {
          if (status >= 200 && status < 300) finish({ ok: true, statusCode: status, error: null });
          else if (status >= 300 && status < 400)
            finish({ ok: false, statusCode: status, error: `redirect (${status}) not followed` });
          else finish({ ok: false, statusCode: status, error: `HTTP ${status}` });
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const deadline = setTimeout(() => {
      finish({ ok: false, statusCode: null, error: `no answer within ${Math.round(timeoutMs / 1000)} s` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish({ ok: false, statusCode: null, error: `connection failed (${error.code ?? 'error'})` });
    });
    request.end(body);
  });
}
