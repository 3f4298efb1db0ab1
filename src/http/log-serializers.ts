/**
 * pino serializers that keep credentials out of the logs. Credentials live in the Authorization and Cookie headers, in
 * credential query parameters a client may send (`?access_token=`: censored in every logged `url`), in
 * the bodies of the auth and users routes at the top level, and nested in a data source's `connection.password`, so
 * bodies are censored at any depth; a log line could carry them as `headers`, `req.headers`,
 * `body`, `req.body`, `payload`, or as top-level fields of the logged object. A serializer runs only for the key it is
 * named after, and answers the very object it was given when that holds no secret, so a line without secrets costs
 * nothing extra (pino's `redact` copied the logged value along its paths on every line carrying one of their keys,
 * and `req` is on every access line).
 *
 * Fastify merges these over its own serializers (it keeps `err`). Its `req` and `res` serializers, replaced here,
 * rebuilt every object: the access line's `{ method, url, remoteAddress }` lost `remoteAddress` that way.
 */
import type { SerializerFn } from 'pino';

export const CENSORED = '[redacted]';

/** Secret fields at the top level of a logged object or of a body (`token`: a new API token's secret, in its 201). */
export const SECRET_FIELDS: readonly string[] = [
  'password',
  'current_password',
  'access_token',
  'refresh_token',
  'token',
];
/** Secret request headers (Node lowercases header names). */
export const SECRET_HEADERS: readonly string[] = ['authorization', 'cookie'];
/**
 * Query parameters whose value is a credential: `?access_token=` (what some clients send when they cannot set a
 * header), any `*token*`, `*password*`, `*secret*`, `*api_key*`, `key`, `auth*`, `jwt`, `session*`, `*signature*`, `sig`,
 * `credential*`. The API takes none of them, but a client may send them anyway: the request line would log them.
 * Also `code` and `state`: an OpenID provider's redirect to the single sign-on callback carries its authorization
 * code and the sign-in's state there.
 */
const SECRET_QUERY_PARAMETER =
  /token|passw|pwd|secret|api[-_]?key|^key$|^auth|jwt|session|signature|^sig$|credential|^code$|^state$/i;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * `url` with the values of credential query parameters replaced by `[redacted]` (names and other parameters kept as
 * sent); the very string when it has no query or no such parameter.
 */
export function redactUrl(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  let changed = false;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      if (!SECRET_QUERY_PARAMETER.test(decodedName(name))) return part;
      changed = true;
      return `${name}=${CENSORED}`;
    });
  return changed ? `${url.slice(0, mark)}?${query.join('&')}` : url;
}

/** `value` with the named own properties censored: a shallow copy when it holds one of them, else `value` itself. */
function censorKeys(value: unknown, keys: readonly string[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of keys) {
    if (Object.hasOwn(value, key)) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = CENSORED;
    }
  }
  return copy ?? value;
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

interface LiveRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}

/**
 * A plain object (what our own lines log as `req`) passes through, with secret headers and body fields censored.
 * A live request (FastifyRequest, IncomingMessage) is summarised as Fastify's serializer did: no headers, no body.
 */
function serializeRequest(req: unknown): unknown {
  if (req === null || typeof req !== 'object') return req;
  if (!isPlainObject(req)) {
    const live = req as LiveRequest;
    return {
      method: live.method,
      url: redactUrl(live.url),
      version: live.headers?.['accept-version'],
      host: live.host,
      remoteAddress: live.ip,
      remotePort: live.socket?.remotePort,
    };
  }
  const plain = req as { headers?: unknown; body?: unknown; url?: unknown };
  const headers = censorKeys(plain.headers, SECRET_HEADERS);
  const body = censorDeep(plain.body);
  const url = redactUrl(plain.url);
  if (headers === plain.headers && body === plain.body && url === plain.url) return req;
  return { ...plain, headers, body, ...(url === undefined ? {} : { url }) };
}

/** A plain object passes through; a live reply is summarised by its status, as Fastify's serializer did. */
function serializeReply(res: unknown): unknown {
  if (res === null || typeof res !== 'object' || isPlainObject(res)) return res;
  return { statusCode: (res as { statusCode?: number }).statusCode };
}

const SECRET_KEYS: ReadonlySet<string> = new Set([...SECRET_FIELDS, ...SECRET_HEADERS]);
const MAX_DEPTH = 6;

/**
 * `value` with every secret field or header censored at any depth of plain objects and arrays (copied on write; other
 * objects are left as they are). For options objects that plugins log at debug or trace level with the request's
 * headers inside, e.g. @fastify/multipart's `busboyOptions.headers.authorization`.
 */
export function censorDeep(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const censored = censorDeep(item, depth + 1);
      if (censored !== item) (copy ??= [...value])[index] = censored;
    });
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const censored = SECRET_KEYS.has(key.toLowerCase()) ? CENSORED : censorDeep(item, depth + 1);
    if (censored !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = censored;
  }
  return copy ?? value;
}

const censor = (): string => CENSORED;

/** The serializers for the root logger (`pino({ serializers: LOG_SERIALIZERS })`). */
export const LOG_SERIALIZERS: Record<string, SerializerFn> = {
  ...Object.fromEntries(SECRET_FIELDS.map((field) => [field, censor])),
  body: censorDeep,
  payload: censorDeep,
  headers: (headers: unknown) => censorKeys(headers, SECRET_HEADERS),
  req: serializeRequest,
  url: redactUrl,
  res: serializeReply,
  // Logged by @fastify/multipart at trace level; holds the request headers.
  busboyOptions: censorDeep,
};
