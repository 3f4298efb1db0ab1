import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { EXPORT_CONTENT_TYPES, negotiateExportFormat } from './fields-export.js';
import {
  FieldExportQuery,
  FieldIdParams,
  FieldListQuery,
  FieldListResponse,
  FieldResponse,
  ImportFieldsBody,
  ImportFieldsResponse,
} from './fields.schemas.js';

export const fieldsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { fields } = services;

  app.post(
    '/fields/import',
    {
      config: { access: 'field:import' },
      schema: {
        operationId: 'importFields',
        'x-error-statuses': [422],
        summary: 'Import fields into a data source',
        description:
          '1–5000 fields per call, all committed together or not at all. Upsert on (datasource, table_name, field_name): re-importing returns the same ids. ' +
          'Classify by classification_tag_id or classification_chain_path (422 when unknown or when both name different tags); a field without either is classified ' +
          "automatically (nearest tag by embedding) and gets that tag's default level. A locked field keeps its classification. sample_values are reduced to a " +
          'format signature and never stored. Duplicate rows in one call → 400; unknown data source → 404.',
        tags: ['fields'],
        body: ImportFieldsBody,
        response: { 200: ImportFieldsResponse },
      },
    },
    async (request) => fields.importFields(callerOf(request), request.body),
  );

  app.get(
    '/fields',
    {
      config: { access: 'field:read' },
      schema: {
        operationId: 'listFields',
        summary: 'List fields',
        description:
          'Filtered, sorted, cursor-paginated list. Pages are keyset-based on (sort key, id): rows added while paging never cause a skip or a repeat. ' +
          'Pass next_cursor as cursor with the same sort to get the next page.',
        tags: ['fields'],
        querystring: FieldListQuery,
        response: { 200: FieldListResponse },
      },
    },
    async (request) => fields.listFields(request.query),
  );

  app.get(
    '/fields/export',
    {
      config: { access: 'field:read' },
      schema: {
        summary: 'Export fields as CSV or NDJSON',
        description:
          'Every field matching the filters of GET /fields, streamed as a download in a stable order (data source, table, field). ' +
          'format=csv|ndjson, or when absent the Accept header (text/csv, application/x-ndjson), else CSV. CSV follows RFC 4180 with a header row; ' +
          'cells starting with =, +, -, @, tab or CR get a leading apostrophe so a spreadsheet shows them as text. ' +
          'Add the columns action and reason, edit, and upload the file to POST /fields/decisions.',
        tags: ['fields'],
        querystring: FieldExportQuery,
        // The body is a stream, sent as is: the schema documents it for OpenAPI and is never a serializer.
        response: {
          200: Type.Unsafe<Readable>({
            type: 'string',
            description: 'CSV (text/csv) or NDJSON (application/x-ndjson) body',
          }),
        },
      },
    },
    async (request, reply) => {
      const { format: asked, ...filters } = request.query;
      const format = negotiateExportFormat(asked, request.headers.accept);
      const chunks = await fields.exportFields(filters, format);
      // eslint-disable-next-line no-restricted-syntax -- the download's file name carries the real time it was made
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      return reply
        .type(EXPORT_CONTENT_TYPES[format])
        .header('content-disposition', `attachment; filename="fieldlens-fields-${stamp}.${format}"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 }));
    },
  );

  app.get(
    '/fields/:id',
    {
      config: { access: 'field:read' },
      schema: {
        operationId: 'getField',
        summary: 'Get one field',
        description:
          'The field with its classification (tag id, chain path, level), lock, review status and stored outlier score and severity.',
        tags: ['fields'],
        params: FieldIdParams,
        response: { 200: FieldResponse },
      },
    },
    async (request) => fields.getField(request.params.id),
  );
};
