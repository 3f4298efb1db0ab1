/**
 * OpenAPI 3 document generated from the route schemas (so it cannot drift), served at
 * /openapi.json, with interactive docs at /docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'FieldLens API',
        version,
        description:
          'Self-hosted data-classification review: per-field embedding metrics, confirm/defer review workflow, ' +
          'tamper-evident audit log, users and roles, signed licenses. Errors are RFC 9457 problem+json.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
  });
  // No CSP of its own: the service-wide policy (http/security-headers.ts) is all the UI needs.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: false });
  app.get('/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, async () => app.swagger());
}
