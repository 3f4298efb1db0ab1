/** The typed API client: openapi-fetch over the generated schema, sending every request through the session. */
import createClient from 'openapi-fetch';
import type { paths } from './schema';
import { ProblemError, problemOf, session, type Problem } from './session';

export const api = createClient<paths>({ baseUrl: '', fetch: (request) => session.fetch(request) });

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The body of a successful call, or a ProblemError carrying the problem+json of a failed one. */
export async function ok<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const problem: Problem =
    typeof error === 'object' && error !== null
      ? { ...(error as Problem), status: response.status }
      : await problemOf(response);
  throw new ProblemError(problem);
}

export type Schemas<
  P extends keyof paths,
  M extends 'get' | 'post' | 'patch',
  S extends number = 200,
> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

export type FieldItem = Schemas<'/api/v1/fields', 'get'>['items'][number];
export type MinibarsResponse = Schemas<'/api/v1/classify/fields/embedding-minibars', 'post'>;
export type MinibarItem = MinibarsResponse['items'][number];
export type Tag = Schemas<'/api/v1/classification/tags', 'get'>['items'][number];
export type Level = Schemas<'/api/v1/classification/levels', 'get'>['items'][number];
export type Datasource = Schemas<'/api/v1/datasources', 'get'>['items'][number];
export type AuditEntry = Schemas<'/api/v1/audit-logs', 'get'>['items'][number];
export type LicenseStatus = Schemas<'/api/v1/license/status', 'get'>;
export type User = Schemas<'/api/v1/users', 'get'>['items'][number];
export type ReviewProgress = Schemas<'/api/v1/review/progress', 'get'>;
export type ConnectionBody = NonNullable<
  NonNullable<paths['/api/v1/datasources']['post']['requestBody']>['content']['application/json']['connection']
>;
export type Scan = Schemas<'/api/v1/scans/{id}', 'get'>;

/** What the scanner and the outlier issue will add; optional so the console shows them when the API has them. */
export interface Suggestion {
  tag_id: number;
  chain_path: string;
  level: string;
  confidence: number;
}
export interface Evidence {
  factor: string;
  score: number;
  detail: string;
}
export type Extras = {
  suggested_classification?: Suggestion | null;
  classification_evidence?: Evidence[] | null;
  classification_source?: string | null;
  classification_confidence?: number | null;
};

export function extras(value: object | undefined): Extras {
  return (value ?? {}) as Extras;
}

/** Capabilities read from /openapi.json: what this server offers beyond what the console was built against. */
export interface Capabilities {
  riskSort: boolean;
  scans: boolean;
  auditVerify: boolean;
}

let capabilities: Promise<Capabilities> | undefined;

export function serverCapabilities(): Promise<Capabilities> {
  capabilities ??= fetch('/openapi.json')
    .then(
      (r) =>
        r.json() as Promise<{
          paths: Record<string, Record<string, { parameters?: { name: string; schema?: { enum?: string[] } }[] }>>;
        }>,
    )
    .then((doc) => {
      const sort = doc.paths['/api/v1/fields']?.get?.parameters?.find((p) => p.name === 'sort');
      const keys = Object.keys(doc.paths);
      return {
        riskSort: sort?.schema?.enum?.includes('risk') ?? false,
        scans: keys.some((k) => k.endsWith('/scans')),
        auditVerify: keys.some((k) => k.startsWith('/api/v1/audit') && k.includes('verify')),
      };
    })
    .catch(() => ({ riskSort: false, scans: false, auditVerify: false }));
  return capabilities;
}
