/**
 * Request validation: JSON bodies are validated as sent, never coerced (`{"disabled": null}` is not `false`, `0` is not
 * `null`), while query strings, path parameters and headers, which are text, are coerced to the schema's types. Two
 * rules hold for every schema without each route repeating them:
 * - no string may hold a NUL character (PostgreSQL text cannot store one, and it is never meaningful input);
 * - an integer without bounds of its own stays within a 32-bit signed integer, the range of the database's integer
 *   columns, and every number must be finite (`limit=Infinity`, `tag_id=99999999999999999999` are refused with 400).
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;

const BASE_OPTIONS = { removeAdditional: false, useDefaults: true, allErrors: false } as const;

/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'required']);
/** Keywords whose values map names to schemas (a property may be called "default"). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

type Ajv = { addKeyword(definition: unknown): unknown };

/** The keywords the schema walk adds: `noNul` to every string, `finite` to every number and integer. */
function addGlobalKeywords(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'noNul',
    type: 'string',
    schemaType: 'boolean',
    error: { message: 'must not contain a NUL character' },
    validate: (enabled: boolean, data: string) => !enabled || !data.includes('\u0000'),
  });
  // Ajv coerces the query text "Infinity" (or "1e309") to Infinity and then skips every number keyword (`maximum`
  // too), since Infinity is not a number to its type guard. So this keyword names no type: it runs on any value.
  ajv.addKeyword({
    keyword: 'finite',
    schemaType: 'boolean',
    error: { message: 'must be a finite number' },
    validate: (enabled: boolean, data: unknown) => !enabled || typeof data !== 'number' || Number.isFinite(data),
  });
}

/** A copy of a schema with the two global rules applied at every level (the route's own schema is left as it is). */
export function withGlobalRules(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withGlobalRules);
  if (schema === null || typeof schema !== 'object') return schema;
  const source = schema as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (DATA_KEYWORDS.has(key)) copy[key] = value;
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object') {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withGlobalRules(sub)]));
    } else copy[key] = withGlobalRules(value);
  }
  const types = [source.type].flat();
  if (types.includes('string')) copy.noNul = true;
  if (types.includes('integer') || types.includes('number')) copy.finite = true;
  if (types.includes('integer')) {
    if (copy.maximum === undefined && copy.exclusiveMaximum === undefined) copy.maximum = INT32_MAX;
    if (copy.minimum === undefined && copy.exclusiveMinimum === undefined) copy.minimum = INT32_MIN;
  }
  return copy;
}

/**
 * The validator compiler of the app: a strict Ajv for bodies, a coercing one for the other parts. Set it with
 * `app.setValidatorCompiler(requestValidatorCompiler())` before any route is registered.
 */
export function requestValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const factory = AjvCompiler();
  const strict = factory({}, {
    customOptions: { ...BASE_OPTIONS, coerceTypes: false },
    onCreate: addGlobalKeywords,
  } as never);
  const coercing = factory({}, {
    customOptions: { ...BASE_OPTIONS, coerceTypes: 'array' },
    onCreate: addGlobalKeywords,
  } as never);
  return (route) => {
    const compile = route.httpPart === 'body' ? strict : coercing;
    return compile({ ...route, schema: withGlobalRules(route.schema) as FastifySchema });
  };
}
