import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import {
  CreateRuleBody,
  PreviewRuleBody,
  PreviewRuleResponse,
  RuleIdParams,
  RuleListResponse,
  RuleResponse,
  UpdateRuleBody,
} from './rules.schemas.js';

const MATCHING =
  "A rule decides the fields the classifier would classify (not import-given, confirmed or locked ones): the enabled rule of highest priority whose every match part holds gives its tag and level (null: the tag's default), " +
  'with classification_source "rule", confidence 1 and evidence naming the rule. Patterns are RE2 regular expressions matched case-insensitively (a pattern that cannot run in linear time → 400). ' +
  'A change re-evaluates those fields in the background (GET /metrics/status counts them in pending).';

export const rulesRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { rules } = services;

  app.get(
    '/classification/rules',
    {
      config: { access: 'field:read' },
      schema: {
        summary: 'List classification rules',
        description: `Every rule, in the order they are tried (priority, then age). ${MATCHING}`,
        tags: ['rules'],
        response: { 200: RuleListResponse },
      },
    },
    async () => ({ items: await rules.listRules() }),
  );

  app.post(
    '/classification/rules',
    {
      config: { access: 'taxonomy:write' },
      schema: {
        summary: 'Create a classification rule',
        description: `${MATCHING} 422 for an unknown tag, level or data source; 409 for a taken name or beyond 200 rules. Audit-logged as rule.created.`,
        tags: ['rules'],
        body: CreateRuleBody,
        response: { 201: RuleResponse },
      },
    },
    async (request, reply) => reply.code(201).send(await rules.createRule(callerOf(request), request.body)),
  );

  app.post(
    '/classification/rules/preview',
    {
      config: { access: 'taxonomy:write' },
      schema: {
        summary: 'Preview a classification rule',
        description:
          'Which catalog fields the rule would take, by name, table, comment and type (value parts are judged at the next import or scan); changes nothing.',
        tags: ['rules'],
        body: PreviewRuleBody,
        response: { 200: PreviewRuleResponse },
      },
    },
    async (request) => rules.previewRule(request.body),
  );

  app.patch(
    '/classification/rules/:id',
    {
      config: { access: 'taxonomy:write' },
      schema: {
        summary: 'Change a classification rule',
        description: `Any of the rule's attributes; the others stay. ${MATCHING} Audit-logged as rule.updated with before and after.`,
        tags: ['rules'],
        params: RuleIdParams,
        body: UpdateRuleBody,
        response: { 200: RuleResponse },
      },
    },
    async (request) => rules.updateRule(callerOf(request), request.params.id, request.body),
  );

  app.delete(
    '/classification/rules/:id',
    {
      config: { access: 'taxonomy:write' },
      schema: {
        summary: 'Delete a classification rule',
        description: 'The fields it decided are re-evaluated in the background. Audit-logged as rule.deleted.',
        tags: ['rules'],
        params: RuleIdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await rules.deleteRule(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
