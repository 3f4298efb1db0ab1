/**
 * OpenAPI 3 document generated from the route schemas (so it cannot drift), served at
 * /openapi.json, with interactive docs at /docs.
 *
 * Each route declares its own metadata in its schema, next to its handler: `operationId` (a stable name; a route
 * without one gets a name derived from its method and path, deriveOperationId) and, under ERROR_STATUSES, the error
 * statuses particular to it (a 409 of a duplicate name, a 422 of an unknown tag), beyond those every route of its kind
 * answers. One transform of the whole document (documentOperations) adds the rest the same way for every operation,
 * routes added later included: `security: []` on public operations, the problem+json error responses that apply,
 * defaults that are not required, and examples of the main responses.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES, problemOf, type ErrorCode } from './errors.js';
import { RESPONSE_EXAMPLES } from './openapi-examples.js';

/**
 * The route schema key of the error statuses particular to a route, e.g. `schema: { operationId: 'createUser',
 * 'x-error-statuses': [409], … }`. A vendor extension, so Fastify ignores it and @fastify/swagger hands it to the
 * document, where documentOperations turns it into problem+json responses and removes it.
 */
const ERROR_STATUSES = 'x-error-statuses';

declare module 'fastify' {
  interface FastifySchema {
    /** See ERROR_STATUSES in http/openapi.ts. */
    'x-error-statuses'?: readonly number[];
  }
}

type JsonObject = Record<string, unknown>;

interface Operation {
  operationId?: string;
  [ERROR_STATUSES]?: readonly number[];
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: JsonObject }>;
  requestBody?: { content?: Record<string, { schema?: JsonObject }>; required?: boolean };
  responses?: Record<string, { description?: string; content?: Record<string, JsonObject> }>;
}

type OpenApiDocument = {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonObject> };
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'options', 'head'] as const;

/** For each status, the code an example shows and what the status means here. */
const ERROR_RESPONSES: Record<number, { code: ErrorCode; description: string }> = {
  400: {
    code: 'validation_failed',
    description: 'The request does not match the schema (body, path or query), or is malformed',
  },
  401: {
    code: 'unauthorized',
    description:
      'No valid access token (unauthorized, token_expired), or for login and refresh: invalid_credentials, invalid_grant',
  },
  403: {
    code: 'forbidden',
    description:
      'The caller’s roles do not grant this (forbidden), or the license does not (feature_disabled, quota_exceeded, license_inactive)',
  },
  404: { code: 'not_found', description: 'Nothing has this id' },
  409: {
    code: 'conflict',
    description: 'Conflicts with the current state (a duplicate name, the last superadmin, your own account)',
  },
  413: { code: 'payload_too_large', description: 'The body is larger than the server accepts' },
  415: { code: 'unsupported_media_type', description: 'The Content-Type is not accepted here' },
  422: {
    code: 'unprocessable',
    description:
      'Well-formed, but refers to something invalid (an unknown tag or level, a tag and path that disagree, a refused connection), or a connection test failed (connection_failed)',
  },
  429: {
    code: 'rate_limited',
    description: 'Too many requests (per client address, per user, or failed logins); see Retry-After',
  },
  503: { code: 'unavailable', description: 'The database is not reachable, or the instance is shutting down' },
};

const PROBLEM_SCHEMA: JsonObject = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri', example: 'https://fieldlens.dev/problems/validation_failed' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    instance: { type: 'string', description: 'The request path' },
    errors: {
      type: 'array',
      description: 'For validation failures: where and what',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: { type: 'string', example: '/field_ids/3' },
          message: { type: 'string' },
          row: {
            type: 'integer',
            minimum: 1,
            description:
              'For an uploaded file (POST /fields/decisions): the row of the problem, the header being row 1',
          },
        },
      },
    },
  },
};

/** `POST /api/v1/datasources/{id}/scans` → `postDatasourcesByIdScans`. */
export function deriveOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'api' && !/^v\d+$/.test(segment))
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? ['by', ...(param[1] ?? '').split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/);
    })
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w.charAt(0).toUpperCase() + w.slice(1))].join('');
}

function problemResponse(status: number, description: string, code: ErrorCode) {
  return {
    description,
    content: {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' },
        example: problemOf(code, description.split(/[;(]/)[0]?.trim() ?? description),
      },
    },
  };
}

/** Drops from `required` every property that has a default: the server fills it in, the caller may leave it out. */
function unrequireDefaults(schema: unknown): void {
  if (!schema || typeof schema !== 'object') return;
  const node = schema as JsonObject;
  const properties = node.properties as Record<string, JsonObject> | undefined;
  if (properties && Array.isArray(node.required)) {
    node.required = (node.required as string[]).filter((name) => properties[name]?.default === undefined);
    if ((node.required as string[]).length === 0) delete node.required;
  }
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) value.forEach(unrequireDefaults);
    else unrequireDefaults(value);
  }
}

function documentOperation(method: string, path: string, operation: Operation): void {
  operation.operationId ??= deriveOperationId(method, path);
  const particular = operation[ERROR_STATUSES] ?? [];
  delete operation[ERROR_STATUSES];
  const isPublic = operation.security === undefined || operation.security.length === 0;
  // Say it explicitly: without it, a document-level security requirement would apply.
  if (isPublic) operation.security = [];

  for (const parameter of operation.parameters ?? []) {
    if (parameter.schema?.default !== undefined) parameter.required = false;
  }
  for (const media of Object.values(operation.requestBody?.content ?? {})) unrequireDefaults(media.schema);

  const hasBody = operation.requestBody !== undefined;
  const hasInput = hasBody || (operation.parameters?.length ?? 0) > 0;
  const statuses = new Set<number>(particular);
  if (hasInput) statuses.add(400);
  if (!isPublic) statuses.add(401).add(403);
  if (/\{[^}]+\}/.test(path)) statuses.add(404);
  if (hasBody) statuses.add(413).add(415);
  if (path.startsWith('/api/')) statuses.add(429).add(503);

  const responses = (operation.responses ??= {});
  for (const [status, response] of Object.entries(responses)) {
    // A route that declares an error status itself gets the problem+json content for it.
    if (Number(status) >= 400) statuses.add(Number(status));
    else if (response.content?.['application/json']) {
      const example = RESPONSE_EXAMPLES[operation.operationId]?.[status];
      if (example !== undefined) response.content['application/json'].example = example;
    }
  }
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const known = ERROR_RESPONSES[status] ?? { code: 'validation_failed' as const, description: 'Error' };
    const description = responses[String(status)]?.description;
    responses[String(status)] = problemResponse(
      status,
      description && description !== 'Default Response' ? description : known.description,
      known.code,
    );
  }
}

/** The transform of the whole generated document. */
export function documentOperations(generated: OpenApiDocument): OpenApiDocument {
  // A copy: the generated document may share schema objects with the routes' validators and serializers.
  const document = structuredClone(generated);
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, Problem: PROBLEM_SCHEMA };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) documentOperation(method, path, operation);
    }
  }
  return document;
}

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
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT or API token',
            description: 'The access token of POST /auth/login (a JWT), or an API token (`flk_…`, POST /tokens)',
          },
        },
      },
    },
    transformObject: (documentObject) =>
      'openapiObject' in documentObject
        ? (documentOperations(documentObject.openapiObject as OpenApiDocument) as typeof documentObject.openapiObject)
        : documentObject.swaggerObject,
  });
  // No CSP of its own: the service-wide policy (http/security-headers.ts) is all the UI needs.
  // BaseLayout: the standalone layout's top bar draws Swagger's logo as an inline SVG with a <style> element, which the
  // service's Content-Security-Policy (no inline styles) blocks and reports on every load; the bar holds nothing else we need.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: false, uiConfig: { layout: 'BaseLayout' } });
  app.get('/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, async () => app.swagger());
}
