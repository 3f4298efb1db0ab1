import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.js';
import { AuditExportBody, AuditExportQuery, AuditListQuery, AuditListResponse } from './audit.schemas.js';

const EXPORT_TYPES = { ndjson: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8' } as const;

/** Read-only: there is no route that changes or removes an entry. */
export const auditRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { auditLog } = services;

  app.get(
    '/audit-logs',
    {
      config: { access: 'audit:read' },
      schema: {
        operationId: 'listAuditLogs',
        summary: 'List audit log entries',
        description:
          'Newest first. Filters combine with AND; `since` is inclusive, `until` exclusive. Pass `next_cursor` as `cursor` for the next page; it is null on the last page.',
        tags: ['audit'],
        querystring: AuditListQuery,
        response: { 200: AuditListResponse },
      },
    },
    async (request) => auditLog.listEntries(request.query),
  );

  app.get(
    '/audit-logs/export',
    {
      config: { access: 'audit:read' },
      schema: {
        operationId: 'exportAuditLogs',
        summary: 'Export the audit log as NDJSON or CSV',
        description:
          'Streams every matching entry, oldest first, as a download. NDJSON keeps every hashed field, so the chain can be re-verified elsewhere; ' +
          'CSV neutralises cells starting with =, +, -, @ (a leading apostrophe). Needs the license feature audit_export.',
        tags: ['audit'],
        querystring: AuditExportQuery,
        response: { 200: AuditExportBody },
      },
    },
    async (request, reply) => {
      const { format, ...filters } = request.query;
      const chunks = await auditLog.exportEntries(filters, format);
      // eslint-disable-next-line no-restricted-syntax -- the download's file name carries the real time it was made
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      return reply
        .type(EXPORT_TYPES[format])
        .header('content-disposition', `attachment; filename="fieldlens-audit-${stamp}.${format}"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 }));
    },
  );
};
