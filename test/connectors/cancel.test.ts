// Connector.cancel() stops the statement running on the source (issue 30 item 7): PostgreSQL pg_cancel_backend,
// MySQL/MariaDB KILL QUERY. Before, a cancel or SIGTERM waited for the statement timeout (27.6 s measured).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import { ConnectionFailure, openConnector, type CatalogTable, type Connector } from '../../src/connectors/index.js';
import { collect, createMysqlSource, createPgSource, MYSQL, type MysqlSource, type PgSource } from './sources.js';

/** Polls until `check` holds, at most `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function slowTable(c: Connector, name: string, schema?: string): Promise<CatalogTable> {
  const t = (await collect(c.listColumns(schema ? { include_schemas: [schema] } : undefined))).find(
    (x) => x.name === name,
  );
  assert.ok(t, `${name} listed`);
  return t;
}

describe('cancel stops the statement running on the source', () => {
  let pgSrc: PgSource;
  let my: MysqlSource;
  const open: Connector[] = [];

  before(async () => {
    pgSrc = await createPgSource();
    await pgSrc.client.query(
      `CREATE VIEW slow AS SELECT pg_sleep(120)::text AS pause; CREATE TABLE fine (id int PRIMARY KEY, v text); INSERT INTO fine VALUES (1, 'x')`,
    );
    my = await createMysqlSource();
    await my.conn.query('CREATE VIEW slow AS SELECT SLEEP(120) AS pause');
  });
  after(async () => {
    for (const c of open) await c.close();
    await pgSrc.dispose();
    await my.dispose();
  });

  it('PostgreSQL: the sample query is cancelled on the server at once (pg_cancel_backend), and later reads are refused', async () => {
    const s = pgSrc.server;
    const c = openConnector(
      {
        kind: 'postgresql',
        host: s.host,
        port: s.port,
        user: s.user,
        database: pgSrc.database,
        ...(s.password ? { password: s.password } : {}),
      },
      { statementTimeoutMs: 600_000 },
    );
    open.push(c);
    const slow = await slowTable(c, 'slow');
    const fine = await slowTable(c, 'fine');
    const running = (): Promise<boolean> =>
      pgSrc.client
        .query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND application_name = 'fieldlens-scan' AND state = 'active' AND query LIKE '%slow%'`,
          [pgSrc.database],
        )
        .then((r) => (r.rowCount ?? 0) > 0);
    const reading = c.sample(slow, slow.columns);
    reading.catch(() => {});
    await until('the slow query on the server', running);
    const started = Date.now();
    await c.cancel();
    await assert.rejects(reading, ConnectionFailure);
    const took = Date.now() - started;
    assert.ok(took < 20_000, `cancel took ${took} ms`);
    await until('the query gone from the server', async () => !(await running()), 10_000);
    await assert.rejects(c.sample(fine, fine.columns), ConnectionFailure, 'a cancelled connector reads no more');
  });

  it('MariaDB: the sample query is killed on the server at once (KILL QUERY), and later reads are refused', async () => {
    const c = openConnector(
      { kind: 'mysql', host: MYSQL.host, port: MYSQL.port, user: MYSQL.user, database: my.database },
      { statementTimeoutMs: 600_000 },
    );
    open.push(c);
    const slow = await slowTable(c, 'slow', my.database);
    const watcher = await mysql.createConnection({ ...MYSQL });
    try {
      const running = async (): Promise<boolean> => {
        const [rows] = await watcher.query<mysql.RowDataPacket[]>(
          `SELECT 1 FROM information_schema.PROCESSLIST WHERE DB = ? AND COMMAND = 'Query' AND INFO LIKE '%slow%' AND ID <> CONNECTION_ID()`,
          [my.database],
        );
        return rows.length > 0;
      };
      const reading = c.sample(slow, slow.columns);
      reading.catch(() => {});
      await until('the slow query on the server', running);
      const started = Date.now();
      await c.cancel();
      await assert.rejects(reading, ConnectionFailure);
      const took = Date.now() - started;
      assert.ok(took < 20_000, `cancel took ${took} ms`);
      await until('the query gone from the server', async () => !(await running()), 10_000);
      await assert.rejects(c.sample(slow, slow.columns), ConnectionFailure, 'a cancelled connector reads no more');
    } finally {
      await watcher.end();
    }
  });
});
