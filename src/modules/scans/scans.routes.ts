import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { EmptyBody, ScanIdParams, ScanListQuery, ScanListResponse, ScanResponse } from './scans.schemas.js';
import { DatasourceIdParams } from '../datasources/datasources.schemas.js';

/** Starting or cancelling takes no options: a POST without a body is taken as `{}`. */
async function emptyBodyWhenNone(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export const scansRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { scans } = services;

  app.post(
    '/datasources/:id/scans',
    {
      config: { access: 'scan:run' },
      preValidation: emptyBodyWhenNone,
      schema: {
        operationId: 'startScan',
        'x-error-statuses': [409],
        summary: 'Start a scan of a data source',
        description:
          'Queues a scan of the data source’s database; any instance’s scan worker runs it. Answers 202 with the queued scan: follow it with GET /api/v1/scans/{id}. ' +
          'One queued or running scan per data source (a second → 409); a sample data source or one without a connection → 409; an inactive license → 403 license_inactive. Audit-logged (scan.requested).',
        tags: ['scans'],
        params: DatasourceIdParams,
        body: EmptyBody,
        response: { 202: ScanResponse },
      },
    },
    async (request, reply) => reply.code(202).send(await scans.requestScan(callerOf(request), request.params.id)),
  );

  app.get(
    '/datasources/:id/scans',
    {
      config: { access: 'scan:read' },
      schema: {
        operationId: 'listScans',
        summary: 'List a data source’s scans',
        description: 'Newest first, paginated: pass next_cursor as cursor for the next page (null on the last).',
        tags: ['scans'],
        params: DatasourceIdParams,
        querystring: ScanListQuery,
        response: { 200: ScanListResponse },
      },
    },
    async (request) => scans.listScans(request.params.id, request.query),
  );

  app.get(
    '/scans/:id',
    {
      config: { access: 'scan:read' },
      schema: {
        operationId: 'getScan',
        summary: 'Get a scan',
        description:
          'Status, phase, progress (tables and fields done of the total) and counts (new, changed, removed, unchanged, classified) as the scan goes.',
        tags: ['scans'],
        params: ScanIdParams,
        response: { 200: ScanResponse },
      },
    },
    async (request) => scans.getScan(request.params.id),
  );

  app.post(
    '/scans/:id/cancel',
    {
      config: { access: 'scan:run' },
      preValidation: emptyBodyWhenNone,
      schema: {
        operationId: 'cancelScan',
        'x-error-statuses': [409],
        summary: 'Cancel a scan',
        description:
          'A queued scan is cancelled at once. A running one answers with phase cancelling; its worker stops within seconds, keeping the tables it has written and removing nothing. ' +
          'A finished scan → 409. Audit-logged (scan.cancelled, or scan.cancel_requested then scan.cancelled).',
        tags: ['scans'],
        params: ScanIdParams,
        body: EmptyBody,
        response: { 200: ScanResponse },
      },
    },
    async (request) => scans.cancelScan(callerOf(request), request.params.id),
  );
};
