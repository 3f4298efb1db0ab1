import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import {
  CreateTokenBody,
  CreatedTokenResponse,
  TokenIdParams,
  TokenListQuery,
  TokenListResponse,
} from './tokens.schemas.js';

const USE =
  'Use a token as `Authorization: Bearer flk_…` wherever an access token is accepted. It acts as its user with the permissions it was given, ' +
  'never more than the user holds at that moment; disabling or deleting the user or revoking the token ends it at once; an expired one is answered 401 token_expired.';

export const tokensRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { tokens } = services;

  app.post(
    '/tokens',
    {
      config: { access: 'authenticated' },
      schema: {
        summary: 'Create an API token',
        description:
          `A token for a script or scanner, shown once in this answer (only a keyed hash is stored). ${USE} ` +
          'permissions must be among your own (403 otherwise; an unknown name is 400); omitted, the token has all your permissions at each use. ' +
          'An API token cannot create tokens (403): sign in. At most 50 tokens per user (409). Audit-logged as token.created (never the secret).',
        tags: ['tokens'],
        body: CreateTokenBody,
        response: { 201: CreatedTokenResponse },
      },
    },
    async (request, reply) => reply.code(201).send(await tokens.createToken(callerOf(request), request.body)),
  );

  app.get(
    '/tokens',
    {
      config: { access: 'authenticated' },
      schema: {
        summary: 'List API tokens',
        description:
          "Your tokens, newest first, expired ones included; with user_id, another user's (needs user:read). The secret is never listed.",
        tags: ['tokens'],
        querystring: TokenListQuery,
        response: { 200: TokenListResponse },
      },
    },
    async (request) => ({ items: await tokens.listTokens(callerOf(request), request.query.user_id) }),
  );

  app.delete(
    '/tokens/:id',
    {
      config: { access: 'authenticated' },
      schema: {
        summary: 'Revoke an API token',
        description:
          'Your own token, or any with user:write; it stops working at once. 404 for a token you may not revoke. Audit-logged as token.revoked.',
        tags: ['tokens'],
        params: TokenIdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await tokens.revokeToken(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
