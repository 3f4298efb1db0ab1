// Name patterns: glob to LIKE translation (the SQL side is exercised against real databases in the connector tests).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectionSpecError, globMatches, openConnector } from '../../src/connectors/index.js';
import { ConnectionFailure, toConnectionFailure } from '../../src/connectors/errors.js';
import { globToLike } from '../../src/connectors/patterns.js';

describe('name patterns', () => {
  it('translates * and ? and keeps LIKE metacharacters literal', () => {
    assert.equal(globToLike('Sales*'), 'sales%');
    assert.equal(globToLike('a?b'), 'a_b');
    assert.equal(globToLike('a_b%c!d'), 'a!_b!%c!!d');
  });

  it('matches case-insensitively in JS as in SQL', () => {
    assert.ok(globMatches('ORD*', 'order_names'));
    assert.ok(globMatches('a?b', 'axb'));
    assert.ok(!globMatches('a_b', 'axb'));
    assert.ok(globMatches('sales.*', 'Sales.Order'));
  });

  it('refuses empty or oversized patterns before connecting', () => {
    assert.throws(
      () => openConnector({ kind: 'postgresql', host: 'db', database: 'x', include_tables: [''] }),
      ConnectionSpecError,
    );
    assert.throws(
      () => openConnector({ kind: 'postgresql', host: 'db', database: 'x', exclude_schemas: ['x'.repeat(201)] }),
      ConnectionSpecError,
    );
  });
});

describe('failure classification', () => {
  const ctx = { host: 'db.internal', port: 5432, database: 'shop', user: 'scanner', during: 'sampling s.t' };
  it('maps driver codes to causes and never copies the driver message', () => {
    const cases: [unknown, string][] = [
      [
        Object.assign(new Error('password authentication failed for user "scanner"'), { code: '28P01' }),
        'authentication',
      ],
      [Object.assign(new Error('database "shop" does not exist'), { code: '3D000' }), 'unknown_database'],
      [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'unreachable'],
      [Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), 'unreachable'],
      [Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }), 'timeout'],
      [Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }), 'timeout'],
      [
        Object.assign(new Error("Access denied for user 'scanner'"), { code: 'ER_ACCESS_DENIED_ERROR' }),
        'authentication',
      ],
      [Object.assign(new Error("Unknown database 'shop'"), { code: 'ER_BAD_DB_ERROR' }), 'unknown_database'],
      [Object.assign(new Error('SELECT command denied'), { code: 'ER_TABLEACCESS_DENIED_ERROR' }), 'permission'],
      [Object.assign(new Error('max_statement_time exceeded'), { errno: 1969 }), 'timeout'],
      [Object.assign(new Error('self signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'tls'],
      [new Error('The server does not support SSL connections'), 'tls'],
      [
        Object.assign(new Error('invalid input syntax for type integer: "4111111111111111"'), { code: '22P02' }),
        'other',
      ],
    ];
    for (const [err, cause] of cases) {
      (err as Error).message += ' <driver text>';
      const f = toConnectionFailure(err, ctx);
      assert.ok(f instanceof ConnectionFailure);
      assert.equal(f.cause, cause, (err as Error).message);
      assert.ok(!f.message.includes('<driver text>'), f.message);
    }
    assert.ok(!toConnectionFailure(cases.at(-1)![0], ctx).message.includes('4111111111111111'));
  });
});

describe('connection spec checks', () => {
  it('requires a host and a valid port for network databases, before connecting', () => {
    assert.throws(() => openConnector({ kind: 'postgresql', database: 'x' }), ConnectionSpecError);
    assert.throws(() => openConnector({ kind: 'mysql', database: 'x', host: ' ' }), ConnectionSpecError);
    assert.throws(() => openConnector({ kind: 'mysql', database: 'x', host: 'db', port: 70000 }), ConnectionSpecError);
    assert.throws(() => openConnector({ kind: 'oracle', database: 'x', host: 'db' } as never), ConnectionSpecError);
  });
});
