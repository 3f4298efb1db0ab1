// MySQL/MariaDB connector against the machine's real MariaDB on 127.0.0.1:3306 (root, no password).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import {
  ConnectionFailure,
  openConnector,
  type CatalogTable,
  type ConnectionSpec,
  type Connector,
} from '../../src/connectors/index.js';
import {
  closedPort,
  collect,
  createMysqlSource,
  errorText,
  MYSQL,
  randomName,
  selfSignedTlsServer,
  silentServer,
  type MysqlSource,
} from './sources.js';

const PLANTED = 'PLANTED-SECRET-5500000000000004';

describe('MySQL/MariaDB connector', () => {
  let src: MysqlSource;
  let spec: ConnectionSpec;
  let arch: string;
  let bulk: string;
  const open: Connector[] = [];
  const connect = (extra: Partial<ConnectionSpec> = {}, options = {}): Connector => {
    const c = openConnector({ ...spec, ...extra }, options);
    open.push(c);
    return c;
  };
  const table = async (c: Connector, name: string, schema = src.database): Promise<CatalogTable> => {
    const all = await collect(c.listColumns({ include_schemas: [schema] }));
    const t = all.find((x) => x.name === name);
    assert.ok(t, `${schema}.${name} listed`);
    return t;
  };

  before(async () => {
    src = await createMysqlSource();
    arch = `${src.database}_arch`;
    bulk = `${src.database}_bulk`;
    spec = { kind: 'mysql', host: MYSQL.host, port: MYSQL.port, user: MYSQL.user, database: src.database };
    await src.conn.query(`
      CREATE TABLE \`Order\` (id int AUTO_INCREMENT PRIMARY KEY, \`select\` text NOT NULL, \`名前\` varchar(80) COMMENT 'name of the customer', \`Größe\` int, MixedCase decimal(10,2)) COMMENT 'Customer orders';
      INSERT INTO \`Order\` (\`select\`, \`名前\`, \`Größe\`, MixedCase) SELECT CONCAT('sel', seq), CONCAT('名前', seq), seq, seq * 1.5 FROM seq_1_to_50;
      CREATE VIEW order_names AS SELECT \`名前\` FROM \`Order\`;
      CREATE TABLE empty_table (a int, b text);
      CREATE TABLE null_only (id int PRIMARY KEY, nothing text);
      INSERT INTO null_only SELECT seq, NULL FROM seq_1_to_20;
      CREATE TABLE blobs (id int, payload varbinary(64), doc blob, big longtext);
      INSERT INTO blobs SELECT seq, UNHEX(REPEAT('ab', 16)), UNHEX(REPEAT('cd', 100)), REPEAT('x', 1000000) FROM seq_1_to_3;
      CREATE TABLE a_b (x int); CREATE TABLE axb (x int);
      CREATE TABLE two_key (a int, b int, c text, PRIMARY KEY (b, a));
      CREATE TABLE planted (id int, secret text);
      INSERT INTO planted VALUES (1, '${PLANTED}');
      CREATE VIEW slow AS SELECT SLEEP(10) AS s, secret FROM planted;
      CREATE TABLE big (id bigint PRIMARY KEY, email varchar(80), amount decimal(10,2));
      INSERT INTO big SELECT seq, CONCAT('user', seq, '@example.com'), seq % 1000 FROM seq_1_to_250000;
      ANALYZE TABLE \`Order\`, big;
      CREATE DATABASE \`${arch}\`;
      CREATE TABLE \`${arch}\`.old_orders (id int PRIMARY KEY, total decimal(10,2));
      CREATE TABLE \`${arch}\`.\`名前\` (x int);
    `);
  });

  after(async () => {
    for (const c of open) await c.close();
    await src.conn.query(`DROP DATABASE IF EXISTS \`${arch}\``);
    await src.conn.query(`DROP DATABASE IF EXISTS \`${bulk}\``);
    await src.dispose();
  });

  it('reports the server version', async () => {
    assert.match((await connect().test()).server_version, /^(MariaDB|MySQL) \d+\.\d+/);
  });

  it('lists the connection database by default, with comments, keys, estimates and quoted, unicode, reserved-word names', async () => {
    const all = await collect(connect().listColumns());
    assert.ok(
      all.every((t) => t.schema === src.database),
      'only the connection database without include_schemas',
    );
    const order = all.find((t) => t.name === 'Order')!;
    assert.equal(order.kind, 'table');
    assert.equal(order.comment, 'Customer orders');
    assert.ok(
      order.row_estimate !== null && order.row_estimate >= 40 && order.row_estimate <= 60,
      `estimate ${order.row_estimate}`,
    );
    assert.deepEqual(order.primary_key, ['id']);
    assert.deepEqual(
      order.columns.map((col) => [
        col.name,
        col.ordinal,
        col.data_type.replace(/int\(11\)/, 'int'),
        col.nullable,
        col.is_primary_key,
      ]),
      [
        ['id', 1, 'int', false, true],
        ['select', 2, 'text', false, false],
        ['名前', 3, 'varchar(80)', true, false],
        ['Größe', 4, 'int', true, false],
        ['MixedCase', 5, 'decimal(10,2)', true, false],
      ],
    );
    assert.equal(order.columns[2]!.comment, 'name of the customer');
    const view = all.find((t) => t.name === 'order_names')!;
    assert.equal(view.kind, 'view');
    assert.equal(view.comment, null);
    assert.equal(view.row_estimate, null);
    assert.deepEqual(all.find((t) => t.name === 'two_key')!.primary_key, ['b', 'a']);
    assert.ok(all.find((t) => t.name === 'big')!.row_estimate! > 100_000, 'estimate from statistics');
  });

  it('applies include/exclude patterns across databases (MySQL schemas)', async () => {
    const c = connect();
    const list = async (filters: Parameters<Connector['listColumns']>[0]): Promise<string[]> =>
      (await collect(c.listColumns(filters))).map((t) => `${t.schema}.${t.name}`).sort();
    const db = src.database;
    assert.deepEqual(await list({ include_schemas: [`${db.toUpperCase()}_A*`] }), [
      `${arch}.old_orders`,
      `${arch}.名前`,
    ]);
    assert.deepEqual(await list({ include_schemas: [`${db}*`], include_tables: ['*.名前', 'ORD*'] }), [
      `${db}.Order`,
      `${db}.order_names`,
      `${arch}.名前`,
    ]);
    assert.deepEqual(await list({ include_tables: ['a_b'] }), [`${db}.a_b`], '_ is literal');
    assert.deepEqual(await list({ include_tables: ['a?b'] }), [`${db}.a_b`, `${db}.axb`]);
    assert.deepEqual(await list({ include_schemas: [`${db}*`], exclude_schemas: [db], exclude_tables: ['old*'] }), [
      `${arch}.名前`,
    ]);
  });

  it('filters in the catalog query: thousands of non-matching tables are never fetched', async () => {
    const ddl = Array.from(
      { length: 2000 },
      (_, i) => `CREATE TABLE \`${bulk}\`.t${i} (a int, b varchar(20)) ENGINE=MEMORY;`,
    ).join('\n');
    await src.conn.query(`CREATE DATABASE \`${bulk}\`; ${ddl}`);
    const c = connect({}, { catalogPageSize: 100 });
    const tables = await collect(c.listColumns({ include_schemas: [arch], include_tables: ['old*'] }));
    assert.deepEqual(
      tables.map((t) => t.name),
      ['old_orders'],
    );
    // One table row, its two columns and its one key column: the 2,000 bulk tables never left the server.
    assert.equal(c.stats.catalog_rows, 4);
    const paged = connect({}, { catalogPageSize: 150 });
    const all = await collect(paged.listColumns({ include_schemas: [bulk] }));
    assert.equal(all.length, 2000);
    assert.equal(new Set(all.map((t) => t.name)).size, 2000);
    assert.ok(all.every((t) => t.columns.length === 2));
  });

  it('samples values, views, empty tables and NULL-only columns', async () => {
    const c = connect();
    const order = await table(c, 'Order');
    const r = await c.sample(order, order.columns, 10);
    assert.equal(r.values.get('select')!.length, 10);
    assert.match(String(r.values.get('名前')![0]), /^名前\d+$/);
    assert.equal(typeof r.values.get('Größe')![0], 'number');
    assert.match(String(r.values.get('MixedCase')![0]), /^\d+\.\d{2}$/);
    const view = await table(c, 'order_names');
    assert.equal((await c.sample(view, view.columns, 5)).values.get('名前')!.length, 5);
    const empty = await table(c, 'empty_table');
    const e = await c.sample(empty, empty.columns, 100);
    assert.equal(e.rows_read, 0);
    assert.deepEqual(e.values.get('b'), []);
    const nulls = await table(c, 'null_only');
    const n = await c.sample(nulls, nulls.columns, 100);
    assert.equal(n.rows_read, 20);
    assert.deepEqual(n.values.get('nothing'), []);
  });

  it('describes binary values and cuts huge text to the bound', async () => {
    const c = connect({}, { maxTextLength: 64 });
    const blobs = await table(c, 'blobs');
    const r = await c.sample(blobs, blobs.columns, 10);
    assert.deepEqual(r.values.get('payload'), Array(3).fill('<binary 16 bytes>'));
    assert.deepEqual(r.values.get('doc'), Array(3).fill('<binary 100 bytes>'));
    assert.deepEqual(r.values.get('big'), Array(3).fill('x'.repeat(64)));
  });

  it('never reads a large table in full: 250,000 rows, bounded key ranges', async () => {
    const c = connect();
    const big = await table(c, 'big');
    const r = await c.sample(big, big.columns, 100);
    assert.ok(r.rows_read <= 1000, `read ${r.rows_read} rows`);
    assert.equal(r.values.get('email')!.length, 100);
    const ids = r.values.get('id')!.map(Number);
    assert.ok(Math.max(...ids) > 1000, 'rows beyond the head of the table');
  });

  it('classifies failures: bad password, no database access, unknown database, unreachable, TLS, timeouts', async () => {
    const user = randomName('fl_pw');
    const right = 'right-password-123';
    const wrong = 'hunter2-never-shown';
    await src.conn.query(`CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${right}'`);
    await src.conn.query(`CREATE USER '${user}'@'localhost' IDENTIFIED BY '${right}'`);
    try {
      const fails = async (c: Connector, cause: string): Promise<ConnectionFailure> => {
        try {
          await c.test();
        } catch (err) {
          assert.ok(err instanceof ConnectionFailure, errorText(err));
          assert.equal(err.cause, cause, err.detail);
          assert.ok(!errorText(err).includes(wrong) && !errorText(err).includes(right), 'no password in the error');
          return err;
        }
        assert.fail(`expected ${cause}`);
      };
      await fails(connect({ user, password: wrong }), 'authentication');
      await fails(connect({ user, password: right }), 'permission');
      const unknown = await fails(connect({ database: 'fl_src_does_not_exist' }), 'unknown_database');
      assert.match(unknown.detail, /fl_src_does_not_exist/);
      await fails(connect({ port: await closedPort(), password: wrong }), 'unreachable');
      const [ssl] = await src.conn.query<mysql.RowDataPacket[]>(`SHOW VARIABLES LIKE 'have_ssl'`);
      if (ssl[0]?.Value !== 'YES') await fails(connect({ ssl: 'require', password: wrong }), 'tls');
      else await fails(connect({ ssl: 'verify-full', password: wrong }), 'tls');
      const silent = await silentServer();
      try {
        await fails(connect({ port: silent.port, password: wrong }, { connectTimeoutMs: 300 }), 'timeout');
      } finally {
        await silent.close();
      }
      // Table privileges: the user sees only what it was granted; sampling anything else is a permission failure.
      await src.conn.query(`GRANT SELECT ON \`${src.database}\`.\`Order\` TO '${user}'@'127.0.0.1'`);
      const limited = connect({ user, password: right });
      const visible = await collect(limited.listColumns());
      assert.deepEqual(
        visible.map((t) => t.name),
        ['Order'],
      );
      await assert.rejects(
        limited.sample(
          { schema: src.database, name: 'planted', kind: 'table', row_estimate: 1, primary_key: [] },
          [{ name: 'secret', data_type: 'text' }],
          5,
        ),
        (err: unknown) =>
          err instanceof ConnectionFailure && err.cause === 'permission' && !errorText(err).includes(PLANTED),
      );
    } finally {
      await src.conn.query(`DROP USER '${user}'@'127.0.0.1'`);
      await src.conn.query(`DROP USER '${user}'@'localhost'`);
    }
    const c = connect({}, { statementTimeoutMs: 200 });
    const slow = await table(c, 'slow');
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
    const forName = await selfSignedTlsServer('mysql', 'DNS:localhost');
    const forOther = await selfSignedTlsServer('mysql', 'DNS:db.example');
    try {
      await assert.rejects(
        connect({ host: 'localhost', port: forName.port, ssl: 'verify-full' }).test(),
        refused,
        'an untrusted certificate',
      );
      await assert.rejects(
        connect({ host: 'localhost', port: forName.port, ssl: 'verify-full' }, { tlsCa: forName.cert }).test(),
        accepted,
        'trusted and naming the host',
      );
      await assert.rejects(
        connect({ host: 'localhost', port: forOther.port, ssl: 'verify-full' }, { tlsCa: forOther.cert }).test(),
        refused,
        'trusted but naming another host',
      );
      await assert.rejects(
        connect({ host: 'localhost', port: forOther.port, ssl: 'require' }).test(),
        accepted,
        'require does not check',
      );
    } finally {
      await forName.close();
      await forOther.close();
    }
  });

  it('samples in a read-only transaction', async () => {
    // A view whose evaluation writes through a function proves writes are refused.
    await src.conn.query(
      `CREATE FUNCTION writes() RETURNS int MODIFIES SQL DATA BEGIN INSERT INTO empty_table VALUES (1, 'w'); RETURN 1; END`,
    );
    await src.conn.query(`CREATE VIEW writer AS SELECT writes() AS w`);
    try {
      const c = connect();
      // Named directly: MariaDB's catalog cannot open such a view inside a read-only transaction either.
      const writer = {
        schema: src.database,
        name: 'writer',
        kind: 'view' as const,
        row_estimate: null,
        primary_key: [],
      };
      await assert.rejects(
        c.sample(writer, [{ name: 'w', data_type: 'int' }], 1),
        (err: unknown) => err instanceof ConnectionFailure && err.code === 'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION',
      );
      const [rows] = await src.conn.query<mysql.RowDataPacket[]>('SELECT count(*) AS n FROM empty_table');
      assert.equal(Number(rows[0]!.n), 0);
    } finally {
      await src.conn.query('DROP VIEW writer');
      await src.conn.query('DROP FUNCTION writes');
    }
  });

  it('the connection killed mid-sampling is a ConnectionFailure, and the connector recovers', async () => {
    const c = connect();
    const slow = await table(c, 'slow');
    const pending = c.sample(slow, slow.columns, 1).then(
      () => undefined,
      (err: unknown) => err,
    );
    let killed = 0;
    for (let i = 0; i < 100 && !killed; i++) {
      const [rows] = await src.conn.query<mysql.RowDataPacket[]>(
        `SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE '%\`slow\`%' AND ID <> CONNECTION_ID()`,
        [src.database],
      );
      for (const r of rows) {
        await src.conn.query(`KILL CONNECTION ${Number(r.ID)}`);
        killed++;
      }
      if (!killed) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(killed, 1, 'the sampling connection was killed');
    const err = await pending;
    assert.ok(err instanceof ConnectionFailure, `expected a ConnectionFailure, got ${errorText(err)}`);
    assert.equal(err.cause, 'unreachable', err.detail);
    assert.ok(!errorText(err).includes(PLANTED));
    const order = await table(c, 'Order');
    assert.equal((await c.sample(order, order.columns, 3)).values.get('select')!.length, 3);
  });
});
