/**
 * Response headers every client relies on:
 * - helmet's set (X-Content-Type-Options: nosniff, X-Frame-Options, Referrer-Policy, …) on every response, with a
 *   Content-Security-Policy made for a single-page console served by this service from `/`: its scripts, styles,
 *   images and API calls come from the same origin, and no inline script runs. The Swagger UI at /docs loads only
 *   its own files, images as data: URLs and /docs/json, so the same policy serves it: it needs no relaxation.
 * - `Cache-Control: no-store` on every API response: they carry tokens (login, refresh) or a user's data, which no
 *   shared or browser cache should keep.
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

export const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
} as const;

export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: true,
    // Only the directives above: helmet's defaults add upgrade-insecure-requests, which would break a console
    // reached over plain HTTP on a private network.
    contentSecurityPolicy: { useDefaults: false, directives: { ...CONTENT_SECURITY_POLICY } },
    frameguard: { action: 'deny' },
    // Sent as given; browsers ignore it over plain HTTP. Subdomains are not this service's to decide.
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/api/')) void reply.header('cache-control', 'no-store');
    done();
  });
}
