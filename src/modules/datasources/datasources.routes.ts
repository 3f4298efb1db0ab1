import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { CreateDatasourceBody, DatasourceIdParams, DatasourceListResponse, DatasourceResponse } from './datasources.schemas.js';

export const datasourcesRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { datasources } = services;

  app.get(
    '/datasources',
    {
      config: { access: 'datasource:read' },
      schema: {
        summary: 'List data sources',
        description: 'Every data source with its number of fields, oldest first. is_sample marks the built-in trial sample data.',
        tags: ['datasources'],
        response: { 200: DatasourceListResponse },
      },
    },
    async () => ({ items: await datasources.listDatasources() }),
  );

  app.post(
    '/datasources',
    {
      config: { access: 'datasource:write' },
      schema: {
        summary: 'Create a data source',
        description:
          'Names must be unique (409). Counts against the license quota max_datasources (403 quota_exceeded); sample data sources do not count. Audit-logged.',
        tags: ['datasources'],
        body: CreateDatasourceBody,
        response: { 201: DatasourceResponse },
      },
    },
    async (request, reply) => reply.code(201).send(await datasources.createDatasource(callerOf(request), request.body)),
  );

  app.delete(
    '/datasources/:id',
    {
      config: { access: 'datasource:write' },
      schema: {
        summary: 'Delete a data source and its fields',
        description: 'Removes the data source and every field imported into it, in one transaction. Audit-logged.',
        tags: ['datasources'],
        params: DatasourceIdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await datasources.deleteDatasource(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
