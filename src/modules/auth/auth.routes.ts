import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { CurrentUserResponse, LoginBody, LoginResponse, RefreshBody, RefreshResponse } from './auth.schemas.js';

export const authRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { auth } = services;

  app.post(
    '/auth/login',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'login',
        'x-error-statuses': [401],
        summary: 'Log in with username and password',
        description:
          'Returns a short-lived bearer access token and a refresh token. After 10 consecutive failures a username is throttled (429 with Retry-After).',
        tags: ['auth'],
        body: LoginBody,
        response: { 200: LoginResponse },
      },
    },
    async (request) => auth.login(request.body.username, request.body.password, request.id),
  );

  app.post(
    '/auth/refresh',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'refreshTokens',
        'x-error-statuses': [401],
        summary: 'Exchange a refresh token for a new token pair',
        description:
          'No bearer token needed. The refresh token is rotated: the old one stops working, and presenting it again revokes the whole login session.',
        tags: ['auth'],
        body: RefreshBody,
        response: { 200: RefreshResponse },
      },
    },
    async (request) => auth.refresh(request.body.refresh_token, request.id),
  );

  app.post(
    '/auth/logout',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'logout',
        summary: 'End the login session of a refresh token',
        tags: ['auth'],
        body: RefreshBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await auth.logout(request.body.refresh_token, request.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/auth/me',
    {
      config: { access: 'authenticated' },
      schema: {
        operationId: 'getCurrentUser',
        summary: 'The current user: identity, roles, permissions and license tier',
        tags: ['auth'],
        response: { 200: CurrentUserResponse },
      },
    },
    async (request) => auth.currentUser(callerOf(request)),
  );
};
