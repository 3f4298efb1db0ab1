import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { CreateUserBody, UpdateUserBody, UserIdParams, UserListResponse, UserResponse } from './users.schemas.js';

export const usersRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { users } = services;

  app.get(
    '/users',
    {
      config: { access: 'user:read' },
      schema: { operationId: 'listUsers', summary: 'List users', tags: ['users'], response: { 200: UserListResponse } },
    },
    async () => ({ items: await users.listUsers() }),
  );

  app.post(
    '/users',
    {
      config: { access: 'user:write' },
      schema: {
        operationId: 'createUser',
        'x-error-statuses': [409],
        summary: 'Create a user',
        description:
          'Counts against the license quota max_users (403 quota_exceeded). Only a superadmin can grant superadmin.',
        tags: ['users'],
        body: CreateUserBody,
        response: { 201: UserResponse },
      },
    },
    async (request, reply) => reply.code(201).send(await users.createUser(callerOf(request), request.body)),
  );

  app.patch(
    '/users/:id',
    {
      config: { access: 'user:write' },
      schema: {
        operationId: 'updateUser',
        'x-error-statuses': [409],
        summary: 'Change a user: email, roles, disabled, password',
        description: "Role, password and disabled changes end the user's sessions and take effect on its next request.",
        tags: ['users'],
        params: UserIdParams,
        body: UpdateUserBody,
        response: { 200: UserResponse },
      },
    },
    async (request) => users.updateUser(callerOf(request), request.params.id, request.body),
  );

  app.delete(
    '/users/:id',
    {
      config: { access: 'user:write' },
      schema: {
        operationId: 'deleteUser',
        'x-error-statuses': [409],
        summary: 'Delete a user',
        tags: ['users'],
        params: UserIdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await users.deleteUser(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
