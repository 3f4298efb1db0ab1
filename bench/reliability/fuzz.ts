/**
 * A fuzzer that walks every operation of /openapi.json and sends it malformed input: wrong types, huge and
 * non-finite numbers, NUL bytes and odd unicode, missing and extra fields, bad ids, bad and missing content types,
 * malformed and deeply nested JSON, bad query strings. The rule it checks: never a 5xx, and every error is
 * application/problem+json whose `status` is the HTTP status.
 *
 * Transport-free: `send` is app.inject in the test (test/http/fuzz.test.ts) and a real HTTP client in the bench
 * (bench/reliability.ts). Deterministic for a seed.
 */

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

export interface FuzzResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

export interface FuzzFailure {
  operation: string;
  case: string;
  request: FuzzRequest;
  status: number;
  reason: string;
  body: string;
}

export interface FuzzReport {
  operations: number;
  requests: number;
  byStatus: Record<string, number>;
  failures: FuzzFailure[];
}

type Schema = Record<string, unknown>;
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** mulberry32: small, fast and good enough to pick cases reproducibly. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UUID = '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b';

/** Hostile values for any slot, written as JSON text (so non-JSON numbers like 1e309 reach the parser as text). */
const HOSTILE_JSON = [
  'null',
  'true',
  '0',
  '-1',
  '1e309',
  '-1e309',
  '99999999999999999999',
  '9007199254740993',
  '0.0000001',
  '""',
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"💥🧨 ṫëşt ‮rtl‬"',
  `"${'x'.repeat(70_000)}"`,
  '"not-a-uuid"',
  '"00000000-0000-0000-0000-000000000000"',
  '"2026-13-45T99:99:99Z"',
  '"Infinity"',
  '"NaN"',
  '[]',
  '[null]',
  `[${Array.from({ length: 600 }, () => `"${UUID}"`).join(',')}]`,
  '{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
];

/** Hostile path segments (already encoded as they go on the wire). */
const HOSTILE_IDS = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  encodeURIComponent('6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b\u0000'),
  '%00',
  '%ff',
  '%2e%2e',
  '..%2f..%2fetc%2fpasswd',
  encodeURIComponent('💥'),
  'x'.repeat(90),
  'x'.repeat(300),
  '1',
  '-1',
  '1e309',
  'null',
  encodeURIComponent("' or 1=1 --"),
];

/** Hostile query values (encoded). */
const HOSTILE_QUERY = [
  '',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e309',
  '99999999999999999999',
  '-1',
  '0',
  '1.5',
  '%00',
  'a%00b',
  '%ff',
  encodeURIComponent('💥'),
  'x'.repeat(5000),
  'true',
  'null',
  encodeURIComponent('[object Object]'),
  encodeURIComponent("' or 1=1 --"),
];

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/jsonx',
  '',
  'application/problem+json',
];

const MALFORMED_BODIES = [
  '{',
  '{"a":}',
  '[1,2',
  'nul',
  '"unterminated',
  '{"a":1}{"b":2}',
  '\u0000',
  '\ufeff{}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"a":${'{"a":'.repeat(2000)}1${'}'.repeat(2001)}`,
];

function resolve(schema: Schema | undefined, doc: OpenApiDocument): Schema {
  if (!schema) return {};
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/'))
    return resolve(doc.components?.schemas?.[ref.slice('#/components/schemas/'.length)], doc);
  return schema;
}

/** A value the schema accepts, as best a small generator can: the baseline that mutations start from. */
export function sampleOf(schemaIn: Schema | undefined, doc: OpenApiDocument, depth = 0): unknown {
  const schema = resolve(schemaIn, doc);
  if (depth > 6) return null;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== null) ?? null;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return sampleOf(options[0] as Schema, doc, depth + 1);
  }
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(
        Object.entries(properties)
          .filter(([name]) => required.has(name))
          .map(([name, child]) => [name, sampleOf(child, doc, depth + 1)]),
      );
    }
    case 'array': {
      const min = Math.max(1, Number(schema.minItems ?? 1));
      return Array.from({ length: min }, () => sampleOf(schema.items as Schema, doc, depth + 1));
    }
    case 'integer':
    case 'number':
      return Math.max(Number(schema.minimum ?? 1), 1);
    case 'boolean':
      return false;
    case 'string': {
      if (schema.format === 'uuid') return UUID;
      if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
      const min = Number(schema.minLength ?? 1);
      return 'fuzz-value-'.padEnd(Math.max(min, 12), 'x').slice(0, Math.max(min, Number(schema.maxLength ?? 64)));
    }
    default:
      return 'x';
  }
}

interface Case {
  name: string;
  request: FuzzRequest;
}

/** Every case for one operation (callers take a bounded, seeded subset). */
function casesFor(
  method: string,
  path: string,
  op: Operation,
  doc: OpenApiDocument,
  token: string | undefined,
): Case[] {
  const upper = method.toUpperCase();
  const auth: Record<string, string> = op.security?.length && token ? { authorization: `Bearer ${token}` } : {};
  const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
  const queryParams = (op.parameters ?? []).filter((p) => p.in === 'query');
  const bodySchema = resolve(op.requestBody?.content?.['application/json']?.schema, doc);
  const isMultipart = op.requestBody?.content?.['multipart/form-data'] !== undefined;
  const baseBody = op.requestBody && !isMultipart ? sampleOf(bodySchema, doc) : undefined;
  const urlWith = (ids: Record<string, string>, query = '') =>
    path.replace(/\{([^}]+)\}/g, (_m, name: string) => ids[name] ?? UUID) + query;
  const baseUrl = urlWith({});
  const jsonHeaders = { ...auth, 'content-type': 'application/json' };
  const cases: Case[] = [];
  const add = (name: string, request: Partial<FuzzRequest>) =>
    cases.push({
      name,
      request: {
        method: upper,
        url: baseUrl,
        headers: baseBody === undefined ? { ...auth } : jsonHeaders,
        ...(baseBody === undefined ? {} : { payload: JSON.stringify(baseBody) }),
        ...request,
      },
    });

  add('baseline', {});
  for (const param of pathParams) {
    for (const id of HOSTILE_IDS) add(`path ${param.name}=${id.slice(0, 24)}`, { url: urlWith({ [param.name]: id }) });
  }
  for (const param of queryParams) {
    for (const value of HOSTILE_QUERY)
      add(`query ${param.name}=${value.slice(0, 24)}`, { url: `${baseUrl}?${param.name}=${value}` });
    add(`query ${param.name} repeated`, { url: `${baseUrl}?${param.name}=1&${param.name}=2` });
  }
  add('query unknown', { url: `${baseUrl}?unknown_param=1&%ff=%ff` });
  add('query raw', { url: `${baseUrl}?${'&'.repeat(200)}=` });

  if (op.requestBody && !isMultipart) {
    const properties = Object.keys((bodySchema.properties ?? {}) as Record<string, Schema>);
    const base = (baseBody ?? {}) as Record<string, unknown>;
    for (const name of properties) {
      for (const hostile of HOSTILE_JSON) {
        const others = JSON.stringify(Object.fromEntries(Object.entries(base).filter(([k]) => k !== name))).slice(
          1,
          -1,
        );
        add(`body ${name}=${hostile.slice(0, 24)}`, {
          payload: `{${others}${others ? ',' : ''}${JSON.stringify(name)}:${hostile}}`,
        });
      }
      const { [name]: _dropped, ...missing } = base;
      add(`body missing ${name}`, { payload: JSON.stringify(missing) });
    }
    add('body extra field', { payload: JSON.stringify({ ...base, extra_field: 'x', __proto__x: 1 }) });
    for (const hostile of HOSTILE_JSON) add(`body whole=${hostile.slice(0, 24)}`, { payload: hostile });
    for (const malformed of MALFORMED_BODIES)
      add(`body malformed ${JSON.stringify(malformed.slice(0, 16))}`, { payload: malformed });
    add('body empty', { payload: '' });
    for (const type of CONTENT_TYPES) {
      add(`content-type ${type || '(none)'}`, {
        headers: type ? { ...auth, 'content-type': type } : { ...auth },
        payload: JSON.stringify(base),
      });
    }
  } else if (isMultipart) {
    for (const type of CONTENT_TYPES)
      add(`content-type ${type || '(none)'}`, {
        headers: type ? { ...auth, 'content-type': type } : { ...auth },
        payload:
          '--x\r\nContent-Disposition: form-data; name="file"; filename="a.service-license"\r\n\r\njunk\r\n--x--\r\n',
      });
    add('multipart truncated', {
      headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="file"',
    });
    add('multipart no file', {
      headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x--\r\n',
    });
  } else {
    add('unexpected body', {
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"unexpected":true}',
    });
  }
  add('bad token', { headers: { authorization: 'Bearer not.a.token' } });
  add('bad auth scheme', { headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` } });
  add('header with NUL-like junk', { headers: { ...auth, 'x-request-id': '\u00ff\u00fe', accept: 'application/xml' } });
  return cases;
}

/** Checks one answer against the rule; undefined when it holds. */
export function violation(response: FuzzResponse): string | undefined {
  if (response.status >= 500) return `answered ${response.status}`;
  if (response.status < 400) return undefined;
  const type = String(response.headers['content-type'] ?? '');
  if (!type.startsWith('application/problem+json')) return `error with content-type ${type}`;
  try {
    const body = JSON.parse(response.body) as { status?: unknown; code?: unknown; type?: unknown };
    if (body.status !== response.status) return `problem status ${String(body.status)} != HTTP ${response.status}`;
    if (typeof body.code !== 'string' || body.type !== `https://fieldlens.dev/problems/${body.code}`)
      return 'problem without a code and its type';
    if (/\bat .*\.(ts|js):\d+/.test(response.body)) return 'stack trace in the body';
  } catch {
    return 'problem body is not JSON';
  }
  return undefined;
}

export interface FuzzOptions {
  doc: OpenApiDocument;
  send: (request: FuzzRequest) => Promise<FuzzResponse>;
  /** A token with every permission, so that requests get past authentication to the input checks. */
  token?: string;
  /** At most this many cases per operation (the baseline always runs); all when undefined. */
  casesPerOperation?: number;
  seed?: number;
  /** Operations to leave out, as "METHOD /path" (e.g. logout, which would end the fuzzer's own session). */
  skip?: readonly string[];
  concurrency?: number;
}

export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const next = random(options.seed ?? 1);
  const report: FuzzReport = { operations: 0, requests: 0, byStatus: {}, failures: [] };
  const queue: Array<{ operation: string; item: Case }> = [];
  for (const [path, item] of Object.entries(options.doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const operation = `${method.toUpperCase()} ${path}`;
      if (options.skip?.includes(operation)) continue;
      report.operations += 1;
      const [baseline, ...rest] = casesFor(method, path, op, options.doc, options.token);
      // A seeded shuffle, then the first N: every kind of case gets its chance across seeds.
      for (let i = rest.length - 1; i > 0; i -= 1) {
        const j = Math.floor(next() * (i + 1));
        [rest[i], rest[j]] = [rest[j] as Case, rest[i] as Case];
      }
      const chosen = [baseline as Case, ...rest.slice(0, options.casesPerOperation ?? rest.length)];
      for (const c of chosen) queue.push({ operation, item: c });
    }
  }
  const workers = Array.from({ length: options.concurrency ?? 1 }, async () => {
    for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
      let response: FuzzResponse;
      try {
        response = await options.send(entry.item.request);
      } catch (error) {
        response = {
          status: 599,
          headers: {},
          body: `transport error: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      report.requests += 1;
      report.byStatus[response.status] = (report.byStatus[response.status] ?? 0) + 1;
      const reason = violation(response);
      if (reason)
        report.failures.push({
          operation: entry.operation,
          case: entry.item.name,
          request: entry.item.request,
          status: response.status,
          reason,
          body: response.body.slice(0, 300),
        });
    }
  });
  await Promise.all(workers);
  return report;
}
