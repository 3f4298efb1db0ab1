/**
 * The web console (web/, built into web/dist by `npm run build`) served at /: hashed assets with a year-long immutable
 * cache, index.html revalidated on every load and returned for the console's client routes (/queue, /fields/<id> …). Every
 * other path, /api/ and missing files keep the API's problem+json 404. The page's Content-Security-Policy allows only this origin's
 * scripts and styles: the build emits no inline script or style.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

export interface ConsoleOptions {
  /** The built console; web/dist beside src/ (and beside dist/ once compiled) by default. */
  root?: string;
}

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const DEFAULT_ROOT = fileURLToPath(new URL('../../web/dist/', import.meta.url));
/** The paths the console's router draws (web/src/main.tsx); a reload or a shared link on one of them gets the page. */
const CLIENT_ROUTES = [
  '/',
  '/signin',
  '/queue',
  '/overview',
  '/inventory',
  '/rules',
  '/taxonomy',
  '/datasources',
  '/datasources/:id',
  '/audit',
  '/license',
  '/users',
  '/tokens',
  '/webhooks',
  '/fields/:id',
] as const;

/** A client route: a path without a file extension in its last segment. */
const FILE_LIKE = /\/[^/]*\.[A-Za-z0-9]+$/;

type HeaderTarget = { setHeader(name: string, value: string): unknown };

function setHeaders(root: string, res: HeaderTarget, filePath: string): void {
  const hashed = path.relative(root, filePath).startsWith(`assets${path.sep}`);
  res.setHeader('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
  res.setHeader('x-content-type-options', 'nosniff');
  if (filePath.endsWith('.html')) {
    res.setHeader('content-security-policy', CONSOLE_CSP);
    res.setHeader('referrer-policy', 'no-referrer');
  }
}

export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions = {}): Promise<void> {
  const root = options.root ?? DEFAULT_ROOT;
  const built = fs.existsSync(path.join(root, 'index.html'));
  if (!built) app.log.warn({ root }, 'web console not built (run npm run build); / answers 404');

  if (built) {
    await app.register(fastifyStatic, {
      root,
      // One route per built file (no wildcard), so the client-route fallback below owns every other path.
      wildcard: false,
      globIgnore: ['**/index.html'],
      index: false,
      cacheControl: false,
      setHeaders: (res: HeaderTarget, filePath: string) => setHeaders(root, res, filePath),
    });
  }

  const page = (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.url.split('?')[0] ?? '/';
    if (url.startsWith('/api/') || url === '/api' || FILE_LIKE.test(url)) return reply.callNotFound();
    if (!built) throw new AppError('not_found', 'The web console is not built: run npm run build');
    return reply.sendFile('index.html');
  };
  // The console's own client routes only: any other path stays the API's problem+json 404 (and /metrics, when it is
  // switched off, is not answered with a page).
  for (const route of CLIENT_ROUTES) app.get(route, { schema: { hide: true }, config: { access: 'public' } }, page);
}
