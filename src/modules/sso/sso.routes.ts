import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../services.js';
import { LoginResponse } from '../auth/auth.schemas.js';
import { BINDING_COOKIE, BINDING_COOKIE_PATH, PENDING_LOGIN_TTL_MS } from './sso.service.js';
import { CallbackQuery, ProvidersResponse, SsoTokenBody } from './sso.schemas.js';

/** The browser binding of a sign-in from the request's Cookie header. */
function bindingOf(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === BINDING_COOKIE) return value.join('=') || undefined;
  }
  return undefined;
}

function setBinding(reply: FastifyReply, value: string, maxAgeSeconds: number, secure: boolean): void {
  // SameSite=Lax: sent on the provider's top-level redirect to the callback and on the console's own requests only.
  void reply.header(
    'set-cookie',
    `${BINDING_COOKIE}=${value}; Path=${BINDING_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
}

export const ssoRoutes: FastifyPluginAsyncTypebox<{ services: Services; secureCookie: boolean }> = async (
  app,
  { services, secureCookie },
) => {
  const { sso } = services;

  app.get(
    '/auth/providers',
    {
      config: { access: 'public' },
      schema: {
        summary: 'How one can sign in',
        description:
          'No token needed: whether password sign-in is on and whether single sign-on (OpenID Connect) is configured.',
        tags: ['auth'],
        response: { 200: ProvidersResponse },
      },
    },
    async () => sso.providers(),
  );

  app.get(
    '/auth/oidc/start',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Start single sign-on',
        description:
          'A browser navigation: redirects to the OpenID provider (authorization code flow with PKCE, state and nonce). 404 when single sign-on is not configured.',
        tags: ['auth'],
        response: { 302: Type.Null() },
      },
    },
    async (request, reply) => {
      const { location, binding } = await sso.startSignIn(request.id);
      if (binding !== undefined) setBinding(reply, binding, PENDING_LOGIN_TTL_MS / 1000, secureCookie);
      return reply.header('cache-control', 'no-store').redirect(location, 302);
    },
  );

  app.get(
    '/auth/oidc/callback',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Where the OpenID provider sends the browser back',
        description:
          'Checks the sign-in and redirects to the console: `/#sso_code=<code>` (one use, 60 s) or `/#sso_error=<reason>`.',
        tags: ['auth'],
        querystring: CallbackQuery,
        response: { 302: Type.Null() },
      },
    },
    async (request, reply) => {
      const at = request.url.indexOf('?');
      const location = await sso.finishSignIn(at < 0 ? '' : request.url.slice(at + 1), bindingOf(request), request.id);
      return reply.header('cache-control', 'no-store').redirect(location, 302);
    },
  );

  app.post(
    '/auth/oidc/token',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Exchange the code of a single sign-on for a token pair',
        description:
          'The same token pair as a password login. The code is used up by any attempt, lasts 60 s, and works only in the browser that started the sign-in (its cookie).',
        tags: ['auth'],
        body: SsoTokenBody,
        response: { 200: LoginResponse },
      },
    },
    async (request, reply) => {
      const tokens = await sso.exchangeCode(request.body.code, bindingOf(request), request.id);
      setBinding(reply, '', 0, secureCookie);
      return tokens;
    },
  );
};
