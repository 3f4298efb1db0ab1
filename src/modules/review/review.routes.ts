import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../http/authentication.js';
import type { Services } from '../../services.js';
import { MAX_DECISION_ROWS } from './decisions-csv.js';
import {
  BatchConfirmBody,
  BatchConfirmResponse,
  ConfirmResponse,
  DecisionBody,
  DecisionsResponse,
  DeferBody,
  DeferResponse,
  FieldIdParams,
  ReviewProgressQuery,
  ReviewProgressResponse,
} from './review.schemas.js';

const DECISION_RULES =
  'Body fields are all optional: a tag id and a chain path must name the same tag (else 422); a path alone is resolved to its tag; ' +
  'neither confirms the current tag. lock_level, a configured level code, sets the level; without it the current level is kept. ' +
  'The classification is locked: later imports no longer change it.';

export const reviewRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { review } = services;

  app.get(
    '/review/progress',
    {
      config: { access: 'field:read' },
      schema: {
        summary: 'Review progress over time',
        description:
          'Per UTC day or ISO week over the last `days` days (today included), oldest first: the confirmations and deferrals recorded in ' +
          'the audit log (each field of a batch counts), and how many fields of the current catalog had been confirmed by the end of the ' +
          'bucket and still are (confirmed_fields), with their share of all fields now (confirmed_share). Read-only.',
        tags: ['review'],
        querystring: ReviewProgressQuery,
        response: { 200: ReviewProgressResponse },
      },
    },
    async (request) => review.progress(request.query),
  );

  app.post(
    '/classify/fields/batch-confirm',
    {
      config: { access: 'field:review' },
      schema: {
        operationId: 'batchConfirmFields',
        'x-error-statuses': [422],
        summary: 'Confirm up to 500 fields to one classification',
        description:
          `${DECISION_RULES} All confirmations of one call commit together, one audit entry per confirmed field. ` +
          'A field already confirmed with exactly this classification is skipped (unchanged); an unknown id is listed in errors (not_found). ' +
          'An invalid decision fails the whole call (422). Needs the license feature batch_confirm.',
        tags: ['review'],
        body: BatchConfirmBody,
        response: { 200: BatchConfirmResponse },
      },
    },
    async (request) => review.batchConfirm(callerOf(request), request.body),
  );

  app.post(
    '/classify/fields/:field_id/confirm',
    {
      config: { access: 'field:review' },
      schema: {
        operationId: 'confirmField',
        'x-error-statuses': [422],
        summary: "Confirm a field's classification",
        description: `${DECISION_RULES} Sets review_status to confirmed from any state and writes a field.confirmed audit entry.`,
        tags: ['review'],
        params: FieldIdParams,
        body: DecisionBody,
        response: { 200: ConfirmResponse },
      },
      // Every decision field is optional, so a POST without a body means "confirm as it is".
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request) => review.confirmField(callerOf(request), request.params.field_id, request.body),
  );

  // Scoped to this plugin: the decisions upload takes a text/csv body (within the app's body limit) and nothing else (415).
  const uploads: FastifyPluginAsyncTypebox = async (upload) => {
    upload.removeAllContentTypeParsers();
    upload.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => {
      done(null, body);
    });
    upload.post(
      '/fields/decisions',
      {
        config: { access: 'field:review' },
        schema: {
          summary: 'Apply the decisions of an edited CSV (confirm or defer many fields)',
          description:
            `A text/csv body (RFC 4180) with the header field_id,action,chain_path,level,reason and at most ${MAX_DECISION_ROWS.toLocaleString('en')} rows; ` +
            'action is confirm or defer. A confirm row is a single confirm: chain_path and level empty keep the current tag and level, and the classification is locked. ' +
            'A defer row needs a reason and keeps the classification. An exported file comes back as it is once the columns action and reason are added: ' +
            'id is read as field_id, the other export columns are ignored, a row without an action is left alone (ignored), and the apostrophe the export puts ' +
            'before a cell starting with =, +, -, @ is taken off. All rows are checked first: any bad row → 400 validation_failed with errors [{row, message}] for ' +
            'every bad row (the header is row 1) and nothing applied. Otherwise all rows are applied in one transaction, one audit entry per field. ' +
            'Needs the license feature batch_confirm.',
          tags: ['review'],
          consumes: ['text/csv'],
          body: Type.String({ minLength: 1, description: 'The CSV file' }),
          response: { 200: DecisionsResponse },
        },
      },
      async (request) => review.applyDecisions(callerOf(request), request.body),
    );
  };
  await app.register(uploads);

  app.post(
    '/classify/fields/:field_id/defer',
    {
      config: { access: 'field:review' },
      schema: {
        operationId: 'deferField',
        summary: "Defer a field's review with a reason",
        description:
          'Sets review_status to deferred from any state, keeps the classification (and its lock) as it is, and writes a field.deferred audit entry with the reason.',
        tags: ['review'],
        params: FieldIdParams,
        body: DeferBody,
        response: { 200: DeferResponse },
      },
    },
    async (request) => review.deferField(callerOf(request), request.params.field_id, request.body),
  );
};
