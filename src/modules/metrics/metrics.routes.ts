import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.js';
import { MetricsStatusResponse, MinibarsBody, MinibarsResponse } from './metrics.schemas.js';

export const metricsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { metrics } = services;

  app.post(
    '/classify/fields/embedding-minibars',
    {
      config: { access: 'field:read' },
      schema: {
        operationId: 'getEmbeddingMinibars',
        summary: 'Six-axis metrics, outlier score and nearest field for up to 500 fields',
        description:
          'For each field: six axis scores in [0, 1] (how well it fits its current classification on that signal, calibrated against the fields that carry it and those that do not: near 1 fits, near 0 does not) and their raw cosine distances, ' +
          'similarity to its tag anchor and level centroid, mean similarity to the other listed fields, an outlier score in [0, 1] with its ' +
          'severity, the nearest field in the catalog and a plain-language reason. Unknown ids are listed in missing_field_ids. ' +
          'baseline_scores are the means of the returned scores. Needs the license feature embedding_metrics.',
        tags: ['metrics'],
        body: MinibarsBody,
        response: { 200: MinibarsResponse },
      },
    },
    async (request) => metrics.minibars(request.body),
  );

  app.get(
    '/classify/metrics/status',
    {
      config: { access: 'field:read' },
      schema: {
        operationId: 'getMetricsStatus',
        summary: 'How many fields wait for their metrics to be recomputed',
        description: 'pending = 0 means every stored metric reflects every committed change that affects it.',
        tags: ['metrics'],
        response: { 200: MetricsStatusResponse },
      },
    },
    async () => metrics.status(),
  );
};
