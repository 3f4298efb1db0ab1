/**
 * PostgreSQL connector (`pg`). Catalog from pg_catalog with the filters in the WHERE clause and keyset paging;
 * row estimates from pg_class.reltuples; samples with TABLESAMPLE SYSTEM sized from the estimate, inside a
 * READ ONLY transaction with statement and lock timeouts, over a small pool.
 */
import pg from 'pg';
import {
  effectiveFilters,
  newStats,
  option,
  pagedCatalog,
  rowBound,
  sampleSizeOf,
  type CatalogFilters,
  type CatalogTable,
  type ColumnInfo,
  type ConnectionSpec,
  type Connector,
  type ConnectorOptions,
  type SampleColumn,
  type SampleResult,
  type SampleTable,
} from './connector.js';
import { FETCH_COMMENT_LENGTH, FETCH_TYPE_LENGTH } from './bounds.js';
import { toConnectionFailure, type FailureContext } from './errors.js';
import { filterConditions, type FilterDialect } from './patterns.js';
import { binaryDescriptor, SampleCollector } from './values.js';

const NUMERIC_PARSED = new Set([21, 23, 26, 700, 701]); // int2, int4, oid, float4, float8
// Everything else arrives as the server's text: no Date or JSON objects built for values we only classify.
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number) => {
    if (NUMERIC_PARSED.has(oid)) return (v: string) => Number(v);
    if (oid === 16) return (v: string) => v === 't';
    return (v: string) => v;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Read as they are: bounded in size. `numeric` is not: unconstrained, one value may hold 147,455 digits, so it is cut like text. */
const NUMERIC_TYPES = /^(smallint|integer|bigint|real|double precision|oid)$/;

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export class PostgresConnector implements Connector {
  readonly kind = 'postgresql' as const;
  readonly stats = newStats();
  private readonly pool: pg.Pool;
  private readonly clientConfig: pg.ClientConfig;
  /** Connections inside readOnly now, whose statements cancel() stops. */
  private readonly active = new Set<pg.PoolClient>();
  private cancelled = false;
  private readonly statementTimeoutMs: number;
  private readonly maxText: number;

  constructor(
    private readonly spec: ConnectionSpec,
    private readonly options: ConnectorOptions = {},
  ) {
    this.statementTimeoutMs = option(options, 'statementTimeoutMs');
    this.maxText = option(options, 'maxTextLength');
    const ssl = spec.ssl ?? 'disable';
    this.clientConfig = {
      host: spec.host ?? '127.0.0.1',
      port: spec.port ?? 5432,
      database: spec.database,
      user: spec.user,
      password: spec.password ?? '',
      // verify-full: chain and host name are checked (node-postgres passes the host as servername).
      ssl:
        ssl === 'disable'
          ? false
          : { rejectUnauthorized: ssl === 'verify-full', ...(options.tlsCa ? { ca: options.tlsCa } : {}) },
      connectionTimeoutMillis: option(options, 'connectTimeoutMs'),
      application_name: 'fieldlens-scan',
      types,
    };
    this.pool = new pg.Pool({
      ...this.clientConfig,
      max: option(options, 'maxConnections'),
      idleTimeoutMillis: 10_000,
    });
    // An idle pooled connection the server drops (restart, pg_terminate_backend) must not crash the process;
    // the next query gets a fresh connection or a classified failure.
    this.pool.on('error', () => {});
  }

  private context(during: string): FailureContext {
    return {
      host: this.spec.host ?? '127.0.0.1',
      port: this.spec.port ?? 5432,
      database: this.spec.database,
      user: this.spec.user,
      during,
    };
  }

  /** Runs `fn` in a READ ONLY transaction with the statement timeout; every driver error becomes a ConnectionFailure. */
  private async readOnly<T>(during: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw toConnectionFailure(err, this.context('connecting'));
    }
    // A query error on a dead socket also arrives as an 'error' event on the client.
    const onError = (): void => {};
    client.on('error', onError);
    let broken: Error | undefined;
    this.active.add(client);
    try {
      if (this.cancelled) throw cancelledError();
      // One round trip (simple protocol, our own integers only): per-table overhead matters with thousands of tables.
      await client.query(
        `BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.trunc(this.statementTimeoutMs)}; SET LOCAL lock_timeout = ${Math.trunc(Math.min(this.statementTimeoutMs, 5000))}`,
      );
      const result = await fn(guardCancel(client, () => this.cancelled));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      broken = err instanceof Error ? err : new Error('query failed');
      await client.query('ROLLBACK').catch(() => {});
      throw toConnectionFailure(err, this.context(during));
    } finally {
      this.active.delete(client);
      client.off('error', onError);
      // A client whose transaction failed is discarded rather than reused in an unknown state.
      client.release(broken);
    }
  }

  async test(): Promise<{ server_version: string }> {
    return this.readOnly('reading the server version', async (client) => {
      const r = await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`);
      return { server_version: `PostgreSQL ${r.rows[0]?.v ?? 'unknown'}` };
    });
  }

  async *listColumns(filters?: CatalogFilters): AsyncIterable<CatalogTable> {
    const f = effectiveFilters(this.spec, filters);
    const pageSize = option(this.options, 'catalogPageSize');
    // One short transaction per page, so a slow consumer never holds a transaction open on the source.
    yield* pagedCatalog(pageSize, (after) =>
      this.readOnly('listing the catalog', (client) => this.catalogPage(client, f, after, pageSize)),
    );
  }

  private async catalogPage(
    client: pg.PoolClient,
    f: Required<CatalogFilters>,
    after: readonly [string, string] | undefined,
    pageSize: number,
  ): Promise<CatalogTable[]> {
    const params: unknown[] = [];
    const d: FilterDialect = {
      param: (v) => {
        params.push(v);
        return `$${params.length}`;
      },
      lower: (e) => `lower(${e})`,
      qualified: (s, t) => `(${s} || '.' || ${t})`,
    };
    const where = filterConditions(d, f, 'n.nspname::text', 'c.relname::text');
    const keyset = after ? `AND (n.nspname, c.relname) > (${d.param(after[0])}::name, ${d.param(after[1])}::name)` : '';
    // Partitions are scanned through their parent; foreign tables would read another server.
    const tables = await client.query<{
      schema: string;
      name: string;
      oid: string;
      relkind: string;
      comment: string | null;
      estimate: number | null;
    }>(
      `SELECT n.nspname AS schema, c.relname AS name, c.oid::int8 AS oid, c.relkind::text AS relkind,
              left(obj_description(c.oid, 'pg_class'), ${FETCH_COMMENT_LENGTH}) AS comment,
              CASE WHEN c.relkind IN ('r', 'm') AND c.reltuples >= 0 THEN c.reltuples::float8 END AS estimate
         FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
          AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg!_%' ESCAPE '!'
          AND ${where} ${keyset}
        ORDER BY n.nspname, c.relname
        LIMIT ${Math.trunc(pageSize)}`,
      params,
    );
    this.stats.catalog_queries++;
    this.stats.catalog_rows += tables.rowCount ?? 0;
    if (tables.rows.length === 0) return [];
    const columns = await client.query<{
      oid: string;
      name: string;
      ordinal: number;
      data_type: string;
      nullable: boolean;
      comment: string | null;
      pk_pos: number | null;
    }>(
      `SELECT a.attrelid::int8 AS oid, a.attname AS name, a.attnum::int4 AS ordinal,
              left(format_type(a.atttypid, a.atttypmod), ${FETCH_TYPE_LENGTH}) AS data_type, NOT a.attnotnull AS nullable,
              left(col_description(a.attrelid, a.attnum), ${FETCH_COMMENT_LENGTH}) AS comment,
              array_position(i.indkey::int2[], a.attnum) AS pk_pos
         FROM pg_catalog.pg_attribute a
         LEFT JOIN pg_catalog.pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
        WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attrelid, a.attnum`,
      [tables.rows.map((t) => t.oid)],
    );
    this.stats.catalog_queries++;
    this.stats.catalog_rows += columns.rowCount ?? 0;
    const byTable = new Map<string, { col: ColumnInfo; pk: number | null }[]>();
    for (const c of columns.rows) {
      let list = byTable.get(c.oid);
      if (!list) byTable.set(c.oid, (list = []));
      list.push({
        col: {
          name: c.name,
          ordinal: c.ordinal,
          data_type: c.data_type,
          nullable: c.nullable,
          comment: c.comment,
          is_primary_key: c.pk_pos !== null,
        },
        pk: c.pk_pos,
      });
    }
    return tables.rows.map((t) => {
      const cols = byTable.get(t.oid) ?? [];
      return {
        schema: t.schema,
        name: t.name,
        kind: t.relkind === 'v' || t.relkind === 'm' ? 'view' : 'table',
        comment: t.comment,
        row_estimate: t.estimate === null ? null : Math.round(t.estimate),
        primary_key: cols
          .filter((c) => c.pk !== null)
          .sort((a, b) => a.pk! - b.pk!)
          .map((c) => c.col.name),
        columns: cols.map((c) => c.col),
      };
    });
  }

  async sample(table: SampleTable, columns: readonly SampleColumn[], sampleSize?: number): Promise<SampleResult> {
    const size = sampleSizeOf(this.spec, sampleSize);
    const collector = new SampleCollector(
      columns.map((c) => c.name),
      size,
    );
    if (size === 0 || columns.length === 0) return { rows_read: 0, values: collector.values };
    const bound = rowBound(size, this.options);
    const binary = columns.map((c) => /^bytea$/i.test(c.data_type));
    const select = columns
      .map((c, i) => {
        const col = quoteIdent(c.name);
        if (binary[i]) return `octet_length(${col})`;
        if (NUMERIC_TYPES.test(c.data_type)) return col;
        // Cut in SQL so a huge value never crosses the network; substr detoasts only the slice it needs.
        return `substr(${col}::text, 1, ${Math.trunc(this.maxText)})`;
      })
      .join(', ');
    const from = `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
    const add = (rows: unknown[][]): void => {
      for (const row of rows) {
        collector.add(
          row.map((v, i) =>
            v === null ? undefined : binary[i] ? binaryDescriptor(Number(v)) : (v as string | number),
          ),
        );
      }
    };
    await this.readOnly(`sampling ${table.schema}.${table.name}`, async (client) => {
      const estimate = table.row_estimate;
      // Page-level sampling reads about p% of the table's pages: aim at twice the bound so that clustered
      // pages still yield enough rows, and let LIMIT cut the rest.
      if (table.kind === 'table' && estimate !== null && estimate > bound * 4) {
        const percent = Math.min(100, Math.max(0.0001, (100 * bound * 2) / estimate));
        const r = await client.query<unknown[]>({
          text: `SELECT ${select} FROM ${from} TABLESAMPLE SYSTEM (${percent.toFixed(6)}) LIMIT ${bound}`,
          rowMode: 'array',
        });
        this.stats.sample_queries++;
        // The sampled pages come back in table order and the collector keeps each column's first values: taken as
        // read, the sample would be the first sampled page or two. Spread over every page read instead.
        add(spreadOrder(r.rows, size));
      }
      // Small or unknown tables, views, or a sample that came back short (stale statistics): a bounded read.
      if (!collector.full && collector.rowsRead < size) {
        const r = await client.query<unknown[]>({
          text: `SELECT ${select} FROM ${from} LIMIT ${bound - collector.rowsRead}`,
          rowMode: 'array',
        });
        this.stats.sample_queries++;
        add(r.rows);
      }
    });
    this.stats.rows_read += collector.rowsRead;
    return { rows_read: collector.rowsRead, values: collector.values };
  }

  /** Cancels the statements running now with pg_cancel_backend on a connection of its own; later statements are refused. */
  async cancel(): Promise<void> {
    this.cancelled = true;
    const pids = [...this.active]
      .map((c) => (c as unknown as { processID?: unknown }).processID)
      .filter((p): p is number => Number.isInteger(p));
    if (pids.length === 0) return;
    const admin = new pg.Client({ ...this.clientConfig, application_name: 'fieldlens-scan-cancel' });
    admin.on('error', () => {});
    try {
      await admin.connect();
      await admin.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int4[]) AS pid', [pids]);
    } catch {
      // The source is gone or refuses: its statement timeout still ends the statements.
    } finally {
      await admin.end().catch(() => {});
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }
}

function cancelledError(): Error {
  return Object.assign(new Error('cancelled'), { code: '57014' });
}

/** The client as `fn` sees it: once the connector is cancelled, its next statement fails instead of being sent. */
function guardCancel(client: pg.PoolClient, cancelled: () => boolean): pg.PoolClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'query')
        return (...args: unknown[]) =>
          cancelled() ? Promise.reject(cancelledError()) : (value as (...a: unknown[]) => unknown).apply(target, args);
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

/**
 * The rows reordered so that any first `keep` of them are spread evenly over the whole list: every step-th row, then
 * the rows one after those, and so on (deterministic, every row once).
 */
export function spreadOrder<T>(rows: readonly T[], keep: number): T[] {
  if (rows.length <= keep || keep <= 0) return [...rows];
  const step = Math.ceil(rows.length / keep);
  const out: T[] = [];
  for (let offset = 0; offset < step; offset++) for (let i = offset; i < rows.length; i += step) out.push(rows[i] as T);
  return out;
}
