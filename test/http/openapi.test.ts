import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, json, type TestApp } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';

type Schema = Record<string, unknown>;
interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: Schema }>;
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema; example?: unknown }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Every operation of the document with its method and path. */
function operations(doc: Document): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
}

/** Property names listed as required although their schema has a default, anywhere in a schema. */
function requiredDefaults(schema: unknown, at = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Schema;
  const found: string[] = [];
  const properties = node.properties as Record<string, Schema> | undefined;
  if (properties && Array.isArray(node.required)) {
    for (const name of node.required as string[])
      if (properties[name]?.default !== undefined) found.push(`${at}/${name}`);
  }
  for (const [key, value] of Object.entries(node)) {
    if (Array.isArray(value)) value.forEach((v, i) => found.push(...requiredDefaults(v, `${at}/${key}/${i}`)));
    else found.push(...requiredDefaults(value, `${at}/${key}`));
  }
  return found;
}

describeEachDatabase('the OpenAPI document tells the truth', (kind) => {
  let t: TestApp;
  let doc: Document;
  before(async () => {
    t = await buildTestApp(kind);
    doc = json<Document>(await t.app.inject({ method: 'GET', url: '/openapi.json' }));
  });
  after(async () => t.close());

  it('gives every operation a unique camelCase operationId', () => {
    const ids = operations(doc).map(({ op, method, path }) => {
      assert.match(String(op.operationId), /^[a-z][A-Za-z0-9]*$/, `${method} ${path}`);
      return op.operationId;
    });
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.length >= 25);
  });

  it('marks public operations security: [] and protected ones bearer, as the access rules say', () => {
    for (const { method, path, op } of operations(doc)) {
      const url = path.replace(/\{([^}]+)\}/g, ':$1');
      const rule = t.app.accessRules.find((r) => r.method === method.toUpperCase() && r.url === url);
      assert.ok(rule, `${method} ${path} has an access rule`);
      if (rule.access === 'public') assert.deepEqual(op.security, [], `${method} ${path}`);
      else assert.deepEqual(op.security, [{ bearer: [] }], `${method} ${path}`);
    }
  });

  it('documents the error responses that apply, all as application/problem+json', () => {
    for (const { method, path, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(op.responses);
      const hasInput = op.requestBody !== undefined || (op.parameters?.length ?? 0) > 0;
      if (hasInput) assert.ok(statuses.includes('400'), `${where}: 400`);
      if (op.security?.length) assert.ok(statuses.includes('401') && statuses.includes('403'), `${where}: 401 and 403`);
      if (path.includes('{')) assert.ok(statuses.includes('404'), `${where}: 404`);
      if (op.requestBody) assert.ok(statuses.includes('413') && statuses.includes('415'), `${where}: 413 and 415`);
      if (path.startsWith('/api/')) assert.ok(statuses.includes('429'), `${where}: 429`);
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        const content = op.responses[status]?.content ?? {};
        assert.deepEqual(Object.keys(content), ['application/problem+json'], `${where} ${status}`);
        assert.deepEqual(content['application/problem+json']?.schema, { $ref: '#/components/schemas/Problem' });
        const example = content['application/problem+json']?.example as { status: number; code: string; type: string };
        assert.equal(example.status, Number(status), `${where} ${status}: the example's status`);
        assert.equal(example.type, `https://fieldlens.dev/problems/${example.code}`);
      }
    }
    const codes =
      (doc.components.schemas.Problem?.properties as Record<string, { enum: string[] }> | undefined)?.code?.enum ?? [];
    for (const code of [
      'validation_failed',
      'unauthorized',
      'forbidden',
      'not_found',
      'conflict',
      'unprocessable',
      'rate_limited',
      'payload_too_large',
      'unsupported_media_type',
    ])
      assert.ok(codes.includes(code));
    for (const [path, method, status] of [
      ['/api/v1/users', 'post', '409'],
      ['/api/v1/classification/tags', 'post', '422'],
      ['/api/v1/classify/fields/{field_id}/confirm', 'post', '422'],
      ['/api/v1/auth/login', 'post', '401'],
    ] as const) {
      assert.ok(doc.paths[path]?.[method]?.responses[status], `${method} ${path} ${status}`);
    }
  });

  it('does not mark parameters or body properties that have a default as required', () => {
    for (const { method, path, op } of operations(doc)) {
      for (const parameter of op.parameters ?? []) {
        if (parameter.schema?.default !== undefined)
          assert.notEqual(parameter.required, true, `${method} ${path} ?${parameter.name}`);
      }
      for (const media of Object.values(op.requestBody?.content ?? {}))
        assert.deepEqual(requiredDefaults(media.schema), [], `${method} ${path}`);
    }
    const limit = doc.paths['/api/v1/fields']?.get?.parameters?.find((p) => p.name === 'limit');
    assert.equal(limit?.schema?.default, 50);
    assert.equal(limit?.required, false);
  });

  it('declares the audit export as application/x-ndjson and text/csv', () => {
    const content = doc.paths['/api/v1/audit-logs/export']?.get?.responses['200']?.content ?? {};
    assert.deepEqual(Object.keys(content).sort(), ['application/x-ndjson', 'text/csv']);
    assert.match(String(content['text/csv']?.example), /^seq,at,/);
    assert.doesNotThrow(() => JSON.parse(String(content['application/x-ndjson']?.example).trim()));
  });

  it('carries realistic examples on the main responses that match their schemas and the severity thresholds', () => {
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    ajv.addSchema({ components: doc.components }, 'doc');
    const { severity } = loadConfig({});
    const expectSeverity = (score: number) =>
      score >= severity.high ? 'high' : score >= severity.medium ? 'medium' : 'low';
    const withExamples = new Set<string>();
    for (const { method, path, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.['application/json'];
        if (Number(status) >= 400 || media?.example === undefined) continue;
        withExamples.add(String(op.operationId));
        const validate = ajv.compile(
          JSON.parse(JSON.stringify(media.schema).replace(/"#\/components/g, '"doc#/components')) as Schema,
        );
        assert.ok(validate(media.example), `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}`);
        const items = (media.example as { items?: Array<{ outlier_score?: number | null; severity?: string | null }> })
          .items ?? [media.example as { outlier_score?: number | null; severity?: string | null }];
        for (const item of items) {
          if (typeof item.outlier_score === 'number')
            assert.equal(
              item.severity,
              expectSeverity(item.outlier_score),
              `${method} ${path}: severity of ${item.outlier_score}`,
            );
        }
      }
    }
    for (const id of [
      'login',
      'refreshTokens',
      'getCurrentUser',
      'listFields',
      'getField',
      'confirmField',
      'batchConfirmFields',
      'deferField',
      'getEmbeddingMinibars',
      'getMetricsStatus',
    ]) {
      assert.ok(withExamples.has(id), `${id} has an example`);
    }
  });
});
