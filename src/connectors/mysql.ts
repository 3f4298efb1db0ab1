/**
 * MySQL and MariaDB connector (`mysql2`). A MySQL "schema" is a database: with no include_schemas the catalog
 * covers the connection's database only. Catalog from information_schema with the filters in SQL and keyset
 * paging; row estimates from TABLES.TABLE_ROWS; samples are bounded reads (random primary-key ranges when the
 * key is a single integer, else the first rows) in a READ ONLY transaction with the server's statement timeout
 * (MySQL max_execution_time, MariaDB max_statement_time), over a small pool.
 */
import mysql from 'mysql2/promise';
import type { Connection as CoreConnection } from 'mysql2';
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
import { readPrimaryKeyRanges } from './ranges.js';
import { binaryDescriptor, SampleCollector } from './values.js';

const SYSTEM_SCHEMAS = ['mysql', 'information_schema', 'performance_schema', 'sys'];
const BINARY_TYPES =
  /^(tinyblob|blob|mediumblob|longblob|binary|varbinary|bit|geometry|point|linestring|polygon|multipoint|multilinestring|multipolygon|geometrycollection)\b/i;
const NUMERIC_TYPES = /^(tinyint|smallint|mediumint|int|integer|bigint|decimal|numeric|float|double|real)\b/i;

export function quoteIdent(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

type Row = Record<string, unknown>;

export class MysqlConnector implements Connector {
  readonly kind = 'mysql' as const;
  readonly stats = newStats();
  private readonly pool: mysql.Pool;
  private readonly connectionConfig: mysql.ConnectionOptions;
  /** Connections inside readOnly now, whose statements cancel() stops. */
  private readonly active = new Set<mysql.PoolConnection>();
  private cancelled = false;
  private readonly prepared = new WeakSet<object>();
  private readonly statementTimeoutMs: number;
  private readonly maxText: number;
  private flavour: 'MariaDB' | 'MySQL' | undefined;

  constructor(
    private readonly spec: ConnectionSpec,
    private readonly options: ConnectorOptions = {},
  ) {
    this.statementTimeoutMs = option(options, 'statementTimeoutMs');
    this.maxText = option(options, 'maxTextLength');
    const ssl = spec.ssl ?? 'disable';
    this.connectionConfig = {
      host: spec.host ?? '127.0.0.1',
      port: spec.port ?? 3306,
      database: spec.database,
      user: spec.user,
      password: spec.password ?? '',
      // mysql2 checks the certificate's host name only with verifyIdentity; verify-full needs both.
      ...(ssl === 'disable'
        ? {}
        : {
            ssl: {
              rejectUnauthorized: ssl === 'verify-full',
              verifyIdentity: ssl === 'verify-full',
              ...(options.tlsCa ? { ca: options.tlsCa } : {}),
            },
          }),
      connectTimeout: option(options, 'connectTimeoutMs'),
    };
    this.pool = mysql.createPool({
      ...this.connectionConfig,
      connectionLimit: option(options, 'maxConnections'),
      maxIdle: option(options, 'maxConnections'),
      idleTimeout: 10_000,
      // Values as the server prints them: no Date objects, no precision lost on BIGINT or DECIMAL.
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      multipleStatements: false,
      charset: 'utf8mb4',
    });
  }

  private context(during: string): FailureContext {
    return {
      host: this.spec.host ?? '127.0.0.1',
      port: this.spec.port ?? 3306,
      database: this.spec.database,
      user: this.spec.user,
      during,
    };
  }

  /** A pooled connection with the statement timeout set once per physical connection. */
  private async acquire(): Promise<mysql.PoolConnection> {
    let conn: mysql.PoolConnection;
    try {
      conn = await this.pool.getConnection();
    } catch (err) {
      throw toConnectionFailure(err, this.context('connecting'));
    }
    const core = (conn as unknown as { connection: CoreConnection }).connection;
    if (!this.prepared.has(core)) {
      // Errors on an idle connection (server gone, KILL) are reported to the next query, not thrown as events.
      core.on('error', () => {});
      try {
        const [rows] = await conn.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
        this.flavour = /mariadb/i.test(String(rows[0]?.v ?? '')) ? 'MariaDB' : 'MySQL';
        if (this.flavour === 'MariaDB')
          await conn.query(`SET SESSION max_statement_time = ${(this.statementTimeoutMs / 1000).toFixed(3)}`);
        else await conn.query(`SET SESSION max_execution_time = ${Math.trunc(this.statementTimeoutMs)}`);
        await conn.query(
          `SET SESSION lock_wait_timeout = ${Math.max(1, Math.trunc(Math.min(this.statementTimeoutMs, 5000) / 1000))}`,
        );
      } catch (err) {
        conn.destroy();
        throw toConnectionFailure(err, this.context('connecting'));
      }
      this.prepared.add(core);
    }
    return conn;
  }

  private async readOnly<T>(during: string, fn: (conn: mysql.PoolConnection) => Promise<T>): Promise<T> {
    const conn = await this.acquire();
    let ok = false;
    this.active.add(conn);
    try {
      if (this.cancelled) throw cancelledError();
      await conn.query('START TRANSACTION READ ONLY');
      const result = await fn(guardCancel(conn, () => this.cancelled));
      await conn.query('COMMIT');
      ok = true;
      return result;
    } catch (err) {
      await conn.query('ROLLBACK').catch(() => {});
      throw toConnectionFailure(err, this.context(during));
    } finally {
      this.active.delete(conn);
      // A connection whose transaction failed may be broken or killed: never hand it out again.
      if (ok) conn.release();
      else conn.destroy();
    }
  }

  async test(): Promise<{ server_version: string }> {
    return this.readOnly('reading the server version', async (conn) => {
      const [rows] = await conn.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
      const v = String(rows[0]?.v ?? 'unknown');
      return { server_version: `${this.flavour ?? 'MySQL'} ${v.replace(/-MariaDB.*$/i, '')}` };
    });
  }

  async *listColumns(filters?: CatalogFilters): AsyncIterable<CatalogTable> {
    const f = effectiveFilters(this.spec, filters);
    const pageSize = option(this.options, 'catalogPageSize');
    yield* pagedCatalog(pageSize, (after) =>
      this.readOnly('listing the catalog', (conn) => this.catalogPage(conn, f, after, pageSize)),
    );
  }

  private async catalogPage(
    conn: mysql.PoolConnection,
    f: Required<CatalogFilters>,
    after: readonly [string, string] | undefined,
    pageSize: number,
  ): Promise<CatalogTable[]> {
    const params: unknown[] = [];
    const d: FilterDialect = {
      param: (v) => {
        params.push(v);
        return '?';
      },
      lower: (e) => `LOWER(${e})`,
      qualified: (s, t) => `CONCAT(${s}, '.', ${t})`,
    };
    const parts = [
      `TABLE_SCHEMA NOT IN (${SYSTEM_SCHEMAS.map((s) => d.param(s)).join(', ')})`,
      `TABLE_TYPE IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')`,
    ];
    // The connection's database is the default scope; include_schemas widens it to other databases.
    if (f.include_schemas.length === 0) parts.push(`TABLE_SCHEMA = ${d.param(this.spec.database)}`);
    parts.push(filterConditions(d, f, 'TABLE_SCHEMA', 'TABLE_NAME'));
    // Names compare as bytes so that `Order` and `order` (distinct on a case-sensitive server) page correctly.
    if (after)
      parts.push(
        `(CAST(TABLE_SCHEMA AS BINARY), CAST(TABLE_NAME AS BINARY)) > (CAST(${d.param(after[0])} AS BINARY), CAST(${d.param(after[1])} AS BINARY))`,
      );
    const [tables] = await conn.query<mysql.RowDataPacket[]>(
      `SELECT TABLE_SCHEMA AS s, TABLE_NAME AS n, TABLE_TYPE AS t, LEFT(TABLE_COMMENT, ${FETCH_COMMENT_LENGTH}) AS c, TABLE_ROWS AS r
         FROM information_schema.TABLES
        WHERE ${parts.join(' AND ')}
        ORDER BY CAST(TABLE_SCHEMA AS BINARY), CAST(TABLE_NAME AS BINARY)
        LIMIT ${Math.trunc(pageSize)}`,
      params,
    );
    this.stats.catalog_queries++;
    this.stats.catalog_rows += tables.length;
    if (tables.length === 0) return [];

    const bySchema = new Map<string, string[]>();
    for (const t of tables) {
      const s = String(t.s);
      let list = bySchema.get(s);
      if (!list) bySchema.set(s, (list = []));
      list.push(String(t.n));
    }
    const key = (s: unknown, n: unknown): string => `${String(s)}\u0000${String(n)}`;
    const columns = new Map<string, Row[]>();
    const pkOrder = new Map<string, number>();
    // information_schema answers fastest with the schema as a constant, so one query per schema of the page.
    for (const [schema, names] of bySchema) {
      const marks = names.map(() => '?').join(', ');
      const [cols] = await conn.query<mysql.RowDataPacket[]>(
        `SELECT TABLE_SCHEMA AS s, TABLE_NAME AS n, COLUMN_NAME AS name, ORDINAL_POSITION AS ordinal, LEFT(COLUMN_TYPE, ${FETCH_TYPE_LENGTH}) AS data_type,
                IS_NULLABLE AS nullable, LEFT(COLUMN_COMMENT, ${FETCH_COMMENT_LENGTH}) AS comment
           FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${marks})
          ORDER BY TABLE_NAME, ORDINAL_POSITION`,
        [schema, ...names],
      );
      const [keys] = await conn.query<mysql.RowDataPacket[]>(
        `SELECT TABLE_NAME AS n, COLUMN_NAME AS name, SEQ_IN_INDEX AS seq
           FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${marks}) AND INDEX_NAME = 'PRIMARY'`,
        [schema, ...names],
      );
      this.stats.catalog_queries += 2;
      this.stats.catalog_rows += cols.length + keys.length;
      for (const c of cols) {
        const k = key(c.s, c.n);
        let list = columns.get(k);
        if (!list) columns.set(k, (list = []));
        list.push(c);
      }
      for (const k of keys) pkOrder.set(`${key(schema, k.n)}\u0000${String(k.name)}`, Number(k.seq));
    }

    return tables.map((t) => {
      const k = key(t.s, t.n);
      const isView = t.t === 'VIEW';
      const cols: ColumnInfo[] = (columns.get(k) ?? []).map((c) => ({
        name: String(c.name),
        ordinal: Number(c.ordinal),
        data_type: String(c.data_type),
        nullable: c.nullable === 'YES',
        comment: c.comment ? String(c.comment) : null,
        is_primary_key: pkOrder.has(`${k}\u0000${String(c.name)}`),
      }));
      return {
        schema: String(t.s),
        name: String(t.n),
        kind: isView ? 'view' : 'table',
        comment: !isView && t.c ? String(t.c) : null,
        row_estimate: isView || t.r === null || t.r === undefined ? null : Number(t.r),
        primary_key: cols
          .filter((c) => c.is_primary_key)
          .sort((a, b) => pkOrder.get(`${k}\u0000${a.name}`)! - pkOrder.get(`${k}\u0000${b.name}`)!)
          .map((c) => c.name),
        columns: cols,
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
    const binary = columns.map((c) => BINARY_TYPES.test(c.data_type));
    const select = columns
      .map((c, i) => {
        const col = quoteIdent(c.name);
        if (binary[i]) return `OCTET_LENGTH(${col})`;
        if (NUMERIC_TYPES.test(c.data_type)) return col;
        // Cut on the server so a huge value never crosses the network.
        return `LEFT(${col}, ${Math.trunc(this.maxText)})`;
      })
      .join(', ');
    const from = `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
    const add = (rows: unknown[][]): void => {
      for (const row of rows) {
        collector.add(
          row.map((v, i) =>
            v === null ? undefined : binary[i] ? binaryDescriptor(Number(v)) : typeof v === 'number' ? v : String(v),
          ),
        );
      }
    };
    await this.readOnly(`sampling ${table.schema}.${table.name}`, async (conn) => {
      const run = async (sql: string, params: unknown[] = []): Promise<unknown[][]> => {
        const [rows] = await conn.query({ sql, rowsAsArray: true }, params);
        this.stats.sample_queries++;
        return rows as unknown[][];
      };
      const pk = table.primary_key.length === 1 ? quoteIdent(table.primary_key[0]!) : undefined;
      if (pk && table.kind === 'table' && table.row_estimate !== null && table.row_estimate > bound * 4) {
        await readPrimaryKeyRanges({
          bound,
          size,
          minMax: async () => (await run(`SELECT MIN(${pk}), MAX(${pk}) FROM ${from}`))[0] ?? [],
          // `start` is an integer we drew ourselves, so it is written into the SQL as a literal.
          range: (start, limit) =>
            run(`SELECT ${select} FROM ${from} WHERE ${pk} >= ${start} ORDER BY ${pk} LIMIT ${limit}`),
          add,
          full: () => collector.full,
        });
      }
      if (!collector.full && collector.rowsRead < size)
        add(await run(`SELECT ${select} FROM ${from} LIMIT ${bound - collector.rowsRead}`));
    });
    this.stats.rows_read += collector.rowsRead;
    return { rows_read: collector.rowsRead, values: collector.values };
  }

  /** Stops the statements running now with KILL QUERY on a connection of its own; later statements are refused. */
  async cancel(): Promise<void> {
    this.cancelled = true;
    const ids = [...this.active].map((c) => c.threadId).filter((id) => Number.isInteger(id));
    if (ids.length === 0) return;
    let admin: mysql.Connection | undefined;
    try {
      admin = await mysql.createConnection({ ...this.connectionConfig, charset: 'utf8mb4' });
      (admin as unknown as { connection: CoreConnection }).connection.on('error', () => {});
      for (const id of ids) await admin.query(`KILL QUERY ${Math.trunc(id)}`).catch(() => {});
    } catch {
      // The source is gone or refuses: its statement timeout still ends the statements.
    } finally {
      await admin?.end().catch(() => {});
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }
}

function cancelledError(): Error {
  return Object.assign(new Error('cancelled'), { code: 'ER_QUERY_INTERRUPTED' });
}

/** The connection as `fn` sees it: once the connector is cancelled, its next statement fails instead of being sent. */
function guardCancel(conn: mysql.PoolConnection, cancelled: () => boolean): mysql.PoolConnection {
  return new Proxy(conn, {
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
