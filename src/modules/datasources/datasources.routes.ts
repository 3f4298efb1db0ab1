import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import {
  ConnectionOptionsResponse,
  CreateDatasourceBody,
  DatasourceIdParams,
  DatasourceListResponse,
  DatasourceResponse,
  TestConnectionResponse,
  UpdateDatasourceBody,
  UpdateDatasourceResponse,
} from './datasources.schemas.js';

type RoutesApp = Parameters<FastifyPluginAsyncTypebox<{ services: Services }>>[0];

export const datasourcesRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  collectionRoutes(app, services.datasources);
  oneDatasourceRoutes(app, services.datasources);
};

/** The list, the connection form's options, and creating. */
function collectionRoutes(app: RoutesApp, datasources: Services['datasources']): void {
  app.get(
    '/datasources',
    {
      config: { access: 'datasource:read' },
      schema: {
        operationId: 'listDatasources',
        summary: 'List data sources',
        description:
          'Every data source with its number of fields, oldest first. is_sample marks the built-in trial sample data.',
        tags: ['datasources'],
        response: { 200: DatasourceListResponse },
      },
    },
    async () => ({ items: await datasources.listDatasources() }),
  );

  app.get(
    '/datasources/connection-options',
    {
      config: { access: 'datasource:write' },
      schema: {
        summary: 'What a data-source connection may be on this server',
        description:
          'For a form that guides: every database kind with whether this server takes it now (sqlite only when FIELDLENS_SCAN_SQLITE_DIR is set) and its default port, ' +
          'the folder sqlite files must lie in, whether a password can be stored (a secret key is configured), the limits of names, patterns, sample size and scan interval, ' +
          'and how include/exclude patterns match. Needs datasource:write, as creating does: it names a server folder.',
        tags: ['datasources'],
        response: { 200: ConnectionOptionsResponse },
      },
    },
    async () => datasources.connectionOptions(),
  );

  app.post(
    '/datasources',
    {
      config: { access: 'datasource:write' },
      schema: {
        operationId: 'createDatasource',
        'x-error-statuses': [409, 422],
        summary: 'Create a data source',
        description:
          'Names must be unique (409). Counts against the license quota max_datasources (403 quota_exceeded); sample data sources do not count. ' +
          'An optional connection makes it scannable: its password is stored encrypted (422 when the service has no secret key) and never returned (has_password). ' +
          'A sqlite connection must name a file inside FIELDLENS_SCAN_SQLITE_DIR (422 otherwise, or when it is unset); a PostgreSQL host that is a path (a Unix socket) ' +
          'is refused (422) unless FIELDLENS_SCAN_ALLOW_SOCKETS=on. Audit-logged without the password.',
        tags: ['datasources'],
        body: CreateDatasourceBody,
        response: { 201: DatasourceResponse },
      },
    },
    async (request, reply) => reply.code(201).send(await datasources.createDatasource(callerOf(request), request.body)),
  );
}

/** What is done to one data source: update, test its connection, delete. */
function oneDatasourceRoutes(app: RoutesApp, datasources: Services['datasources']): void {
  app.patch(
    '/datasources/:id',
    {
      config: { access: 'datasource:write' },
      schema: {
        operationId: 'updateDatasource',
        'x-error-statuses': [409, 422],
        summary: 'Update a data source',
        description:
          'Changes the name, description, connection or scan interval. connection replaces the whole connection object; its password, when omitted, ' +
          'keeps the stored one while the destination stays, null removes it, a string replaces it; connection null removes connection and password. ' +
          'A stored password never follows the connection elsewhere: when kind, host, port, database or user change, or ssl gets weaker, without a new password, ' +
          'the stored one is dropped and the answer says so (password_dropped: true and a notice). scan_interval_hours null switches periodic scans off. ' +
          'A PostgreSQL host that is a path (a Unix socket) is refused (422) unless FIELDLENS_SCAN_ALLOW_SOCKETS=on. ' +
          'A sample data source takes no connection or interval (409). Audit-logged as datasource.updated, without the password (password_changed: true).',
        tags: ['datasources'],
        params: DatasourceIdParams,
        body: UpdateDatasourceBody,
        response: { 200: UpdateDatasourceResponse },
      },
    },
    async (request) => datasources.updateDatasource(callerOf(request), request.params.id, request.body),
  );

  app.post(
    '/datasources/:id/test-connection',
    {
      config: { access: 'datasource:write' },
      schema: {
        operationId: 'testDatasourceConnection',
        'x-error-statuses': [409, 422],
        summary: 'Test the connection of a data source',
        description:
          'Connects with the stored connection and reads the server version. 422 connection_failed names the cause (authentication, unreachable, tls, timeout, ' +
          'unknown_database, permission, other) and never a secret; 409 when the data source has no connection; 422 unprocessable when the stored password ' +
          'cannot be decrypted (the secret key changed or is missing).',
        tags: ['datasources'],
        params: DatasourceIdParams,
        response: { 200: TestConnectionResponse },
      },
    },
    async (request) => datasources.testConnection(callerOf(request), request.params.id),
  );

  app.delete(
    '/datasources/:id',
    {
      config: { access: 'datasource:write' },
      schema: {
        operationId: 'deleteDatasource',
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
}
