import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Lifecycle } from '../../http/lifecycle.js';
import type { Database } from '../../db/database.js';
import { sendProblem } from '../../http/error-handler.js';
import { AppError, problemOf } from '../../http/errors.js';

const HealthResponse = Type.Object({ status: Type.Literal('ok') });

/** Liveness and readiness probes for load balancers and orchestrators (no auth). */
export const healthRoutes: FastifyPluginAsyncTypebox<{
  database: Database;
  lifecycle: Pick<Lifecycle, 'draining' | 'storageFull'>;
}> = async (app, { database, lifecycle }) => {
  app.get(
    '/healthz',
    {
      // Probes hit these every few seconds: keep them out of the access log (errors still log).
      logLevel: 'warn',
      config: { access: 'public' },
      schema: {
        operationId: 'checkLiveness',
        summary: 'Liveness: 200 while the process is up',
        tags: ['health'],
        response: { 200: HealthResponse },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      config: { access: 'public' },
      schema: {
        operationId: 'checkReadiness',
        'x-error-statuses': [503],
        summary:
          'Readiness: 200 when the database answers and migrations are done, else 503 (also from the moment the instance starts shutting down, and for 30 s after a write failed because the database storage is full)',
        tags: ['health'],
        response: { 200: HealthResponse },
      },
    },
    async (_request, reply) => {
      // Answered, not thrown: a load balancer polls it all through the drain, and that is no error to log.
      if (lifecycle.draining)
        return sendProblem(reply, problemOf('unavailable', 'This instance is shutting down', { instance: '/readyz' }));
      if (lifecycle.storageFull) {
        return sendProblem(
          reply,
          problemOf('unavailable', 'The database could not store a write a moment ago (disk full)', {
            instance: '/readyz',
          }),
          { 'retry-after': '30' },
        );
      }
      try {
        await database.ping();
      } catch (error) {
        throw new AppError('unavailable', 'The database is not reachable', {
          cause: error,
          headers: { 'retry-after': '5' },
        });
      }
      return { status: 'ok' as const };
    },
  );
};
