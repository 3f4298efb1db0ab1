import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { FieldIdParams, FieldListQuery, FieldListResponse, FieldResponse, ImportFieldsBody, ImportFieldsResponse } from './fields.schemas.js';

export const fieldsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { fields } = services;

  app.post(
    '/fields/import',
    {
      config: { access: 'field:import' },
      schema: {
        summary: 'Import fields into a data source',
        description:
          '1–5000 fields per call, all committed together or not at all. Upsert on (datasource, table_name, field_name): re-importing returns the same ids. ' +
          'Classify by classification_tag_id or classification_chain_path (422 when unknown or when both name different tags); a field without either is classified ' +
          'automatically (nearest tag by embedding) and gets that tag\'s default level. A locked field keeps its classification. sample_values are reduced to a ' +
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
    '/fields/:id',
    {
      config: { access: 'field:read' },
      schema: {
        summary: 'Get one field',
        description: 'The field with its classification (tag id, chain path, level), lock, review status and stored outlier score and severity.',
        tags: ['fields'],
        params: FieldIdParams,
        response: { 200: FieldResponse },
      },
    },
    async (request) => fields.getField(request.params.id),
  );
};
