import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { Type } from 'typebox';
import {
  CreateTagBody,
  DeleteTagQuery,
  LevelListResponse,
  TagIdParams,
  TagListResponse,
  TagResponse,
  UpdateTagBody,
} from './taxonomy.schemas.js';

export const taxonomyRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { taxonomy } = services;

  app.get(
    '/classification/levels',
    {
      config: { access: 'field:read' },
      schema: {
        operationId: 'listLevels',
        summary: 'List classification levels',
        description:
          'The configured level scheme (FIELDLENS_LEVELS), least sensitive first. Level codes are what fields, imports and lock_level use.',
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
        operationId: 'listTags',
        summary: 'List classification tags',
        description:
          'Every tag of the taxonomy, parents before children. chain_path is the tag names from the root joined by "/".',
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
        operationId: 'createTag',
        'x-error-statuses': [409, 422],
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

  app.patch(
    '/classification/tags/:id',
    {
      config: { access: 'taxonomy:write' },
      schema: {
        summary: 'Edit a classification tag',
        description:
          'Renames, moves (parent_id; null = the root), re-levels or re-describes a tag, built-in or not; the chain paths of its descendants follow. ' +
          'Fields the classifier or a rule classified are re-evaluated in the background with the new taxonomy (GET /metrics/status counts them in pending). ' +
          '404 for an unknown tag, 422 for an unknown parent or level or a parent that would make a cycle, 409 when the new chain path is taken. Audit-logged as tag.updated.',
        tags: ['taxonomy'],
        params: TagIdParams,
        body: UpdateTagBody,
        response: { 200: TagResponse },
      },
    },
    async (request) => taxonomy.updateTag(callerOf(request), request.params.id, request.body),
  );

  app.delete(
    '/classification/tags/:id',
    {
      config: { access: 'taxonomy:write' },
      schema: {
        summary: 'Delete a classification tag',
        description:
          'Deletes the tag and every tag below it. The fields classified with them (and suggestions naming them) move to replace_with, keeping their level and review state; ' +
          'without replace_with a tag still classifying fields answers 409. 422 when replace_with names no tag or one deleted with it. A deleted built-in tag is not added back by a later start. Audit-logged as tag.deleted with the counts moved.',
        tags: ['taxonomy'],
        params: TagIdParams,
        querystring: DeleteTagQuery,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await taxonomy.deleteTag(callerOf(request), request.params.id, request.query);
      return reply.code(204).send(null);
    },
  );
};
