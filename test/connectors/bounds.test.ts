// Issue 30 items 3 and 9 at the connector: comments and declared types are cut in the catalog query (one character
// more than the catalog keeps, so the scan can say it cut them), and PostgreSQL numeric values are cut in the
// sampling query like text, never read whole. Real PostgreSQL and MariaDB servers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  boundCatalogTable,
  FETCH_COMMENT_LENGTH,
  FETCH_TYPE_LENGTH,
  nameLabel,
  nameProblem,
} from '../../src/connectors/bounds.js';
import { openConnector, type CatalogTable, type Connector } from '../../src/connectors/index.js';
import { collect, createMysqlSource, createPgSource, MYSQL, type MysqlSource, type PgSource } from './sources.js';

describe('scanned metadata bounded in the connectors', () => {
  let pgSrc: PgSource;
  let my: MysqlSource;
  const open: Connector[] = [];

  before(async () => {
    pgSrc = await createPgSource();
    my = await createMysqlSource();
  });
  after(async () => {
    for (const c of open) await c.close();
    await pgSrc.dispose();
    await my.dispose();
  });

  it('PostgreSQL: a 4 MB comment arrives as 4,001 characters; an unconstrained numeric of 100,000 digits is sampled as 256', async () => {
    await pgSrc.client.query(`
      CREATE TABLE wide (amount numeric, price numeric(12,2), n integer);
      INSERT INTO wide VALUES (('1' || repeat('0', 99999))::numeric, 12.5, 7);
      COMMENT ON TABLE wide IS '${'t'.repeat(4 * 1024 * 1024)}';
      COMMENT ON COLUMN wide.amount IS '${'c'.repeat(4 * 1024 * 1024)}';
    `);
    const c = openConnector({
      kind: 'postgresql',
      host: pgSrc.server.host,
      port: pgSrc.server.port,
      user: pgSrc.server.user,
      password: pgSrc.server.password,
      database: pgSrc.database,
    });
    open.push(c);
    const table = (await collect(c.listColumns())).find((t) => t.name === 'wide') as CatalogTable;
    const sample = await c.sample(table, table.columns, 5);
    const amount = sample.values.get('amount')![0]!;
    assert.equal(String(amount).length, 256, 'cut by the server, like text');
    assert.equal(sample.values.get('price')![0], '12.50');
    assert.equal(sample.values.get('n')![0], 7);
    assert.equal(table.comment!.length, FETCH_COMMENT_LENGTH);
    assert.equal(table.columns[0]!.comment!.length, FETCH_COMMENT_LENGTH);
  });

  it('MariaDB: a declared type of 1,000 characters (an ENUM) arrives as 129; the bound cuts it to 128 and says so', async () => {
    const values = Array.from({ length: 100 }, (_, i) => `'value_${String(i).padStart(3, '0')}'`).join(',');
    await my.conn.query(`CREATE TABLE choices (kind ENUM(${values}) COMMENT '${'k'.repeat(1000)}')`);
    const c = openConnector({
      kind: 'mysql',
      host: MYSQL.host,
      port: MYSQL.port,
      user: MYSQL.user,
      database: my.database,
    });
    open.push(c);
    const table = (await collect(c.listColumns())).find((t) => t.name === 'choices') as CatalogTable;
    assert.equal(table.columns[0]!.data_type.length, FETCH_TYPE_LENGTH);
    const bounded = boundCatalogTable(table, `${table.schema}.${table.name}`);
    assert.equal(bounded.table!.columns[0]!.data_type.length, 128);
    assert.equal(bounded.table!.columns[0]!.comment!.length, 1000, 'a comment within the limit is kept whole');
    assert.deepEqual(
      bounded.notes.map((n) => [n.kind, n.column]),
      [['data_type_cut', 'kind']],
    );
  });

  it('names: over 128 characters, control and bidi characters are refused; labels escape them and stay short', () => {
    assert.equal(nameProblem('a'.repeat(128)), undefined);
    assert.match(nameProblem('a'.repeat(129))!, /129 characters/);
    assert.equal(nameProblem('😀'.repeat(128)), undefined, 'counted in characters, not UTF-16 units');
    for (const bad of [
      'a\u0000b',
      'tab\there',
      'line\nbreak',
      'del\u007f',
      'c1\u0085',
      'rlo\u202eX',
      'lri\u2066X',
      'pdi\u2069X',
    ])
      assert.ok(nameProblem(bad), JSON.stringify(bad));
    assert.equal(nameLabel('pay\u202eroll'), 'pay\\u{202E}roll');
    assert.equal(nameLabel('x'.repeat(1_000_000)), `${'x'.repeat(80)}… (1000000 characters)`);
  });
});
