import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { CreateTagBody, LevelListResponse, TagListResponse, TagResponse } from './taxonomy.schemas.js';

export const taxonomyRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { taxonomy } = services;

  app.get(
    '/classification/levels',
    {
      config: { access: 'field:read' },
      schema: {
        summary: 'List classification levels',
        description: 'The configured level scheme (FIELDLENS_LEVELS), least sensitive first. Level codes are what fields, imports and lock_level use.',
        tags: ['taxonomy'],
        response: { 200: LevelListResponse },
      },
    },
    async () => ({ items: taxonomy.listLevels() }),
  );

  app.get(
    '/classification/tags',
    {
      config: { access: 'field:read' },
      schema: {
        summary: 'List classification tags',
        description: 'Every tag of the taxonomy, parents before children. chain_path is the tag names from the root joined by "/".',
        tags: ['taxonomy'],
        response: { 200: TagListResponse },
      },
    },
    async () => ({ items: await taxonomy.listTags() }),
  );

  app.post(
    '/classification/tags',
    {
      config: { access: 'taxonomy:write' },
      schema: {
        summary: 'Create a classification tag',
        description:
          'Adds a tag at the root or under parent_id. 422 when the parent or default_level is unknown, 409 when a tag with the same chain path exists. Audit-logged.',
        tags: ['taxonomy'],
        body: CreateTagBody,
        response: { 201: TagResponse },
      },
    },
    async (request, reply) => reply.code(201).send(await taxonomy.createTag(callerOf(request), request.body)),
  );
};
