// PostgreSQL connector against the machine's real server (TEST_DATABASE_URL's server, else 127.0.0.1:5432).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  ConnectionFailure,
  openConnector,
  type CatalogTable,
  type ConnectionSpec,
  type Connector,
} from '../../src/connectors/index.js';
import { spreadOrder } from '../../src/connectors/postgresql.js';
import {
  closedPort,
  collect,
  createPgSource,
  errorText,
  randomName,
  selfSignedTlsServer,
  silentServer,
  type PgSource,
} from './sources.js';

const PLANTED = 'PLANTED-SECRET-4111111111111111';

describe('PostgreSQL connector', () => {
  let src: PgSource;
  let spec: ConnectionSpec;
  const open: Connector[] = [];
  const connect = (extra: Partial<ConnectionSpec> = {}, options = {}): Connector => {
    const c = openConnector({ ...spec, ...extra }, options);
    open.push(c);
    return c;
  };
  const table = async (c: Connector, schema: string, name: string): Promise<CatalogTable> => {
    const all = await collect(c.listColumns({ include_schemas: [schema] }));
    const t = all.find((x) => x.name === name);
    assert.ok(t, `${schema}.${name} listed`);
    return t;
  };

  before(async () => {
    src = await createPgSource();
    spec = {
      kind: 'postgresql',
      host: src.server.host,
      port: src.server.port,
      user: src.server.user,
      password: src.server.password,
      database: src.database,
    };
    await src.client.query(`
      CREATE SCHEMA sales; CREATE SCHEMA archive; CREATE SCHEMA "Größe";
      CREATE TABLE sales."Order" (id serial PRIMARY KEY, "select" text NOT NULL, "名前" varchar(80), "Größe" integer, "MixedCase" numeric(10,2));
      COMMENT ON TABLE sales."Order" IS 'Customer orders';
      COMMENT ON COLUMN sales."Order"."名前" IS 'name of the customer';
      INSERT INTO sales."Order" ("select", "名前", "Größe", "MixedCase") SELECT 'sel' || g, '名前' || g, g, g * 1.5 FROM generate_series(1, 50) g;
      CREATE VIEW sales.order_names AS SELECT "名前" FROM sales."Order";
      CREATE TABLE sales.empty_table (a integer, b text);
      CREATE TABLE sales.null_only (id integer PRIMARY KEY, nothing text);
      INSERT INTO sales.null_only SELECT g, NULL FROM generate_series(1, 20) g;
      CREATE TABLE sales.blobs (id integer, payload bytea, big text);
      INSERT INTO sales.blobs SELECT g, decode(repeat('ab', 16), 'hex'), repeat('x', 1000000) FROM generate_series(1, 3) g;
      CREATE TABLE sales.a_b (x int); CREATE TABLE sales.axb (x int);
      CREATE TABLE sales.two_key (a int, b int, c text, PRIMARY KEY (b, a));
      CREATE TABLE sales.planted (id int, secret text);
      INSERT INTO sales.planted VALUES (1, '${PLANTED}');
      CREATE VIEW sales.planted_cast AS SELECT secret::integer AS n FROM sales.planted;
      CREATE VIEW sales.slow AS SELECT pg_sleep(10)::text AS s, secret FROM sales.planted;
      CREATE TABLE archive.old_orders (id int PRIMARY KEY, total numeric);
      CREATE TABLE "Größe"."名前" (x int);
      CREATE TABLE sales.big (id bigint PRIMARY KEY, email text, amount numeric);
      INSERT INTO sales.big SELECT g, 'user' || g || '@example.com', g % 1000 FROM generate_series(1, 250000) g;
      ANALYZE;
    `);
  });

  after(async () => {
    for (const c of open) await c.close();
    await src.dispose();
  });

  it('reports the server version', async () => {
    const r = await connect().test();
    assert.match(r.server_version, /^PostgreSQL \d+/);
  });

  it('lists tables and views with comments, keys, estimates and quoted, unicode, reserved-word names', async () => {
    const c = connect();
    const all = await collect(c.listColumns());
    const names = all.map((t) => `${t.schema}.${t.name}`);
    for (const n of ['sales.Order', 'sales.order_names', 'Größe.名前', 'archive.old_orders', 'sales.empty_table'])
      assert.ok(names.includes(n), n);
    assert.ok(
      !names.some((n) => n.startsWith('pg_catalog.') || n.startsWith('information_schema.')),
      'no system schemas',
    );

    const order = all.find((t) => t.name === 'Order')!;
    assert.equal(order.kind, 'table');
    assert.equal(order.comment, 'Customer orders');
    assert.equal(order.row_estimate, 50);
    assert.deepEqual(order.primary_key, ['id']);
    assert.deepEqual(
      order.columns.map((col) => [col.name, col.ordinal, col.data_type, col.nullable, col.is_primary_key]),
      [
        ['id', 1, 'integer', false, true],
        ['select', 2, 'text', false, false],
        ['名前', 3, 'character varying(80)', true, false],
        ['Größe', 4, 'integer', true, false],
        ['MixedCase', 5, 'numeric(10,2)', true, false],
      ],
    );
    assert.equal(order.columns[2]!.comment, 'name of the customer');

    const view = all.find((t) => t.name === 'order_names')!;
    assert.equal(view.kind, 'view');
    assert.equal(view.row_estimate, null);
    assert.deepEqual(view.primary_key, []);
    assert.deepEqual(all.find((t) => t.name === 'two_key')!.primary_key, ['b', 'a']);
    assert.equal(all.find((t) => t.name === 'big')!.row_estimate! > 200_000, true, 'estimate from statistics');
  });

  it('applies include/exclude patterns: glob, case-insensitive, schema.table or bare table, literal _', async () => {
    const c = connect();
    const list = async (filters: Parameters<Connector['listColumns']>[0]): Promise<string[]> =>
      (await collect(c.listColumns(filters))).map((t) => `${t.schema}.${t.name}`).sort();
    assert.deepEqual(await list({ include_schemas: ['ARCH*'] }), ['archive.old_orders']);
    assert.deepEqual(await list({ include_schemas: ['größe'] }), ['Größe.名前']);
    assert.deepEqual(await list({ include_tables: ['sales.ORD*'] }), ['sales.Order', 'sales.order_names']);
    assert.deepEqual(
      await list({ include_tables: ['a_b'] }),
      ['sales.a_b'],
      '_ is literal, not a one-character wildcard',
    );
    assert.deepEqual(await list({ include_tables: ['a?b'] }), ['sales.a_b', 'sales.axb']);
    assert.deepEqual(await list({ include_schemas: ['sales'], exclude_tables: ['*a*'] }), [
      'sales.Order',
      'sales.big',
      'sales.blobs',
      'sales.null_only',
      'sales.slow',
      'sales.two_key',
    ]);
    const noSales = await list({ exclude_schemas: ['sales', 'größe'] });
    assert.deepEqual(noSales, ['archive.old_orders']);
    // The spec's own filters apply when none are passed.
    const scoped = connect({ include_schemas: ['archive'] });
    assert.deepEqual(
      (await collect(scoped.listColumns())).map((t) => t.name),
      ['old_orders'],
    );
  });

  it('filters in the catalog query: thousands of non-matching tables are never fetched, and pages cover everything', async () => {
    // In transactions of 250 tables: one transaction creating (or dropping) all 2,500 would hold ~7,500 locks, more
    // than a busy server's shared lock table (max_locks_per_transaction × connections) may have free.
    const inBatches = async (statement: string) => {
      for (let from = 1; from <= 2500; from += 250) {
        await src.client.query(
          `DO $$ BEGIN FOR i IN ${from}..${from + 249} LOOP EXECUTE format('${statement}', i); END LOOP; END $$;`,
        );
      }
    };
    await src.client.query('CREATE SCHEMA bulk');
    await inBatches('CREATE TABLE bulk.t%s (a int, b text)');
    const c = connect({}, { catalogPageSize: 100 });
    const tables = await collect(c.listColumns({ include_schemas: ['archive'] }));
    assert.deepEqual(
      tables.map((t) => t.name),
      ['old_orders'],
    );
    // One table row and its two column rows: the 2,500 bulk tables (5,000 columns) never left the server.
    assert.equal(c.stats.catalog_rows, 3);

    const excluded = connect({}, { catalogPageSize: 100 });
    const rest = await collect(excluded.listColumns({ exclude_schemas: ['bulk'] }));
    assert.ok(rest.length > 5 && rest.length < 30);
    assert.ok(excluded.stats.catalog_rows < 200, `fetched ${excluded.stats.catalog_rows} catalog rows`);

    // Keyset pages of 100 return every bulk table exactly once.
    const paged = connect({}, { catalogPageSize: 100 });
    const bulk = await collect(paged.listColumns({ include_schemas: ['bulk'] }));
    assert.equal(bulk.length, 2500);
    assert.equal(new Set(bulk.map((t) => t.name)).size, 2500);
    assert.ok(bulk.every((t) => t.columns.length === 2));
    await inBatches('DROP TABLE bulk.t%s');
    await src.client.query('DROP SCHEMA bulk');
  });

  it('samples non-null values per column with unicode and reserved-word names', async () => {
    const c = connect();
    const order = await table(c, 'sales', 'Order');
    const r = await c.sample(order, order.columns, 10);
    assert.equal(r.rows_read <= 50, true);
    assert.equal(r.values.get('select')!.length, 10);
    assert.match(String(r.values.get('select')![0]), /^sel\d+$/);
    assert.match(String(r.values.get('名前')![0]), /^名前\d+$/);
    assert.equal(typeof r.values.get('Größe')![0], 'number');
    assert.match(String(r.values.get('MixedCase')![0]), /^\d+\.\d{2}$/);
  });

  it('samples views, empty tables and NULL-only columns', async () => {
    const c = connect();
    const view = await table(c, 'sales', 'order_names');
    assert.equal((await c.sample(view, view.columns, 5)).values.get('名前')!.length, 5);
    const empty = await table(c, 'sales', 'empty_table');
    const e = await c.sample(empty, empty.columns, 100);
    assert.equal(e.rows_read, 0);
    assert.deepEqual(e.values.get('a'), []);
    const nulls = await table(c, 'sales', 'null_only');
    const n = await c.sample(nulls, nulls.columns, 100);
    assert.equal(n.rows_read, 20);
    assert.deepEqual(n.values.get('nothing'), []);
    assert.equal(n.values.get('id')!.length, 20);
  });

  it('describes binary values and cuts huge text to the bound', async () => {
    const c = connect({}, { maxTextLength: 64 });
    const blobs = await table(c, 'sales', 'blobs');
    const r = await c.sample(blobs, blobs.columns, 10);
    assert.deepEqual(r.values.get('payload'), ['<binary 16 bytes>', '<binary 16 bytes>', '<binary 16 bytes>']);
    assert.deepEqual(r.values.get('big'), ['x'.repeat(64), 'x'.repeat(64), 'x'.repeat(64)]);
  });

  it('never reads a large table in full: 250,000 rows, a bounded sample', async () => {
    const c = connect();
    const big = await table(c, 'sales', 'big');
    const r = await c.sample(big, big.columns, 100);
    assert.ok(r.rows_read <= 1000, `read ${r.rows_read} rows`);
    assert.equal(r.values.get('email')!.length, 100);
    assert.equal(c.stats.rows_read, r.rows_read);
    // A spread sample, not the first rows: TABLESAMPLE picks pages across the table.
    const ids = r.values.get('id')!.map(Number);
    assert.ok(Math.max(...ids) > 1000, 'rows beyond the head of the table');
    // The values kept come from across the pages read, not from the first sampled page alone (~100 rows a page here).
    assert.ok(Math.max(...ids) - Math.min(...ids) > 10_000, `kept ids ${Math.min(...ids)}–${Math.max(...ids)}`);
  });

  it('samples in a read-only transaction', async () => {
    const c = connect();
    // A view whose evaluation tries to write proves the transaction refuses writes.
    await src.client.query(
      `CREATE FUNCTION sales.writes() RETURNS int LANGUAGE sql AS 'INSERT INTO sales.empty_table VALUES (1) RETURNING 1'`,
    );
    await src.client.query(`CREATE VIEW sales.writer AS SELECT sales.writes() AS w`);
    const writer = await table(c, 'sales', 'writer');
    await assert.rejects(
      c.sample(writer, writer.columns, 1),
      (err: unknown) => err instanceof ConnectionFailure && err.code === '25006',
    );
    const count = await src.client.query('SELECT count(*)::int AS n FROM sales.empty_table');
    assert.equal(count.rows[0].n, 0);
    await src.client.query('DROP VIEW sales.writer; DROP FUNCTION sales.writes()');
  });

  it('classifies failures: unknown role, unknown database, unreachable host, TLS, connect and statement timeouts', async () => {
    const secret = 'hunter2-never-shown';
    const fails = async (c: Connector, cause: string): Promise<ConnectionFailure> => {
      try {
        await c.test();
      } catch (err) {
        assert.ok(err instanceof ConnectionFailure, errorText(err));
        assert.equal(err.cause, cause, err.detail);
        assert.ok(!errorText(err).includes(secret), 'no password in the error');
        return err;
      }
      assert.fail(`expected ${cause}`);
    };
    await fails(connect({ user: randomName('nobody'), password: secret }), 'authentication');
    const unknown = await fails(connect({ database: 'fl_src_does_not_exist', password: secret }), 'unknown_database');
    assert.match(unknown.detail, /fl_src_does_not_exist/);
    await fails(connect({ host: '127.0.0.1', port: await closedPort(), password: secret }), 'unreachable');
    // The local server has TLS off: requiring it must fail as a TLS problem, not silently fall back.
    const tlsOff = await src.client.query(`SELECT current_setting('ssl') AS ssl`);
    if (tlsOff.rows[0].ssl === 'off') await fails(connect({ ssl: 'require', password: secret }), 'tls');
    else await fails(connect({ ssl: 'verify-full', host: '127.0.0.1', password: secret }), 'tls');
    const silent = await silentServer();
    try {
      await fails(
        connect({ host: '127.0.0.1', port: silent.port, password: secret }, { connectTimeoutMs: 300 }),
        'timeout',
      );
    } finally {
      await silent.close();
    }
    const c = connect({}, { statementTimeoutMs: 200 });
    const slow = await table(c, 'sales', 'slow');
    await assert.rejects(
      c.sample(slow, slow.columns, 1),
      (err: unknown) =>
        err instanceof ConnectionFailure && err.cause === 'timeout' && !errorText(err).includes(PLANTED),
    );
  });

  it('verify-full checks the certificate chain and the host name; require encrypts without checking', async () => {
    // The stand-in hangs up after the handshake: `unreachable` there means TLS itself was accepted.
    const accepted = (err: unknown): boolean => err instanceof ConnectionFailure && err.cause === 'unreachable';
    const refused = (err: unknown): boolean => err instanceof ConnectionFailure && err.cause === 'tls';
    const forIp = await selfSignedTlsServer('postgresql', 'IP:127.0.0.1');
    const forOther = await selfSignedTlsServer('postgresql', 'DNS:db.example');
    try {
      await assert.rejects(
        connect({ host: '127.0.0.1', port: forIp.port, ssl: 'verify-full' }).test(),
        refused,
        'an untrusted certificate',
      );
      await assert.rejects(
        connect({ host: '127.0.0.1', port: forIp.port, ssl: 'verify-full' }, { tlsCa: forIp.cert }).test(),
        accepted,
        'trusted and naming the host',
      );
      await assert.rejects(
        connect({ host: '127.0.0.1', port: forOther.port, ssl: 'verify-full' }, { tlsCa: forOther.cert }).test(),
        refused,
        'trusted but naming another host',
      );
      await assert.rejects(
        connect({ host: '127.0.0.1', port: forOther.port, ssl: 'require' }).test(),
        accepted,
        'require does not check',
      );
    } finally {
      await forIp.close();
      await forOther.close();
    }
  });

  it('reports a missing permission, without the value', async () => {
    const role = randomName('fl_noperm');
    await src.client.query(`CREATE ROLE ${role} LOGIN; GRANT USAGE ON SCHEMA sales TO ${role}`);
    try {
      const c = connect({ user: role, password: undefined });
      const planted = await table(c, 'sales', 'planted');
      await assert.rejects(
        c.sample(planted, planted.columns, 5),
        (err: unknown) =>
          err instanceof ConnectionFailure && err.cause === 'permission' && !errorText(err).includes(PLANTED),
      );
      await c.close();
    } finally {
      await src.client.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    }
  });

  it('keeps sampled values out of errors: a cast error naming the value reports only its code', async () => {
    const c = connect();
    const v = await table(c, 'sales', 'planted_cast');
    await assert.rejects(c.sample(v, v.columns, 5), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.code, '22P02');
      assert.ok(!errorText(err).includes(PLANTED), 'the planted value is not in the error');
      return true;
    });
  });

  it('the source going away mid-sampling is a ConnectionFailure, and the connector recovers', async () => {
    const c = connect();
    const slow = await table(c, 'sales', 'slow');
    // Settled into a value at once, so the rejection is handled while the test is still terminating the backend.
    const pending = c.sample(slow, slow.columns, 1).then(
      () => undefined,
      (err: unknown) => err,
    );
    const admin = new pg.Client({
      host: src.server.host,
      port: src.server.port,
      user: src.server.user,
      password: src.server.password,
      database: src.database,
    });
    await admin.connect();
    try {
      // Wait for the sampling query to be running, then end its backend as a server restart would.
      let terminated = 0;
      for (let i = 0; i < 100 && !terminated; i++) {
        const r = await admin.query(
          `SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE datname = $1 AND application_name = 'fieldlens-scan' AND query LIKE '%"slow"%' AND state = 'active'`,
          [src.database],
        );
        terminated = r.rowCount ?? 0;
        if (!terminated) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(terminated, 1, 'the sampling backend was terminated');
    } finally {
      await admin.end();
    }
    const err = await pending;
    assert.ok(err instanceof ConnectionFailure, `expected a ConnectionFailure, got ${errorText(err)}`);
    assert.equal(err.cause, 'unreachable', err.detail);
    assert.ok(!errorText(err).includes(PLANTED));
    const order = await table(c, 'sales', 'Order');
    assert.equal((await c.sample(order, order.columns, 3)).values.get('select')!.length, 3);
  });

  it('bounds concurrency per source to the pool size', async () => {
    await src.client.query(`CREATE VIEW sales.slowish AS SELECT pg_sleep(0.3)::text AS s`);
    const c = connect({}, { maxConnections: 2 });
    const slowish = await table(c, 'sales', 'slowish');
    const admin = new pg.Client({
      host: src.server.host,
      port: src.server.port,
      user: src.server.user,
      password: src.server.password,
      database: src.database,
    });
    await admin.connect();
    try {
      let done = false;
      const runs = Promise.all(Array.from({ length: 6 }, () => c.sample(slowish, slowish.columns, 1))).finally(
        () => (done = true),
      );
      let most = 0;
      while (!done) {
        const r = await admin.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'fieldlens-scan' AND state = 'active'`,
          [src.database],
        );
        most = Math.max(most, r.rows[0].n);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const results = await runs;
      assert.equal(results.length, 6);
      assert.equal(most, 2, 'two samples at a time, never more');
    } finally {
      await admin.end();
      await src.client.query('DROP VIEW sales.slowish');
    }
  });
});

describe('spreadOrder', () => {
  it('puts rows from across the whole read first, each row once', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => i);
    const spread = spreadOrder(rows, 100);
    assert.deepEqual(
      [...spread].sort((a, b) => a - b),
      rows,
      'every row once',
    );
    const first = spread.slice(0, 100);
    assert.ok(
      Math.min(...first) === 0 && Math.max(...first) >= 990,
      `first 100 span ${Math.min(...first)}–${Math.max(...first)}`,
    );
    assert.deepEqual(spreadOrder([1, 2, 3], 5), [1, 2, 3]);
  });
});
