/**
 * The operator commands on an installed database: `audit verify` never creates a database, `users reset-password`
 * recovers a lost password (audited, sessions ended).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { runAuditCommand } from '../../src/cli/audit.command.js';
import { runUsersCommand } from '../../src/cli/users.command.js';
import { ADMIN_PASSWORD, bearer, buildTestApp, login, problem, type TestApp } from '../helpers/app.js';
import { cliDatabaseUrl, describeEachDatabase } from '../helpers/databases.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function audit(env: Record<string, string>): Promise<Run> {
  const out = { stdout: '', stderr: '' };
  const code = await runAuditCommand(
    ['verify'],
    { stdout: (s) => (out.stdout += s), stderr: (s) => (out.stderr += s) },
    { env },
  );
  return { code, ...out };
}

async function users(args: string[], env: Record<string, string>, stdin?: string): Promise<Run> {
  const out = { stdout: '', stderr: '' };
  const code = await runUsersCommand(
    args,
    { stdout: (s) => (out.stdout += s), stderr: (s) => (out.stderr += s) },
    {
      env,
      ...(stdin === undefined ? {} : { readStdin: async () => stdin }),
    },
  );
  return { code, ...out };
}

describe('fieldlens audit verify with a mistyped DATABASE_URL', () => {
  it('SQLite: a file that does not exist is an error, and is not created', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-missing-'));
    try {
      const file = path.join(dir, 'typo', 'fieldlnes.db');
      const result = await audit({ DATABASE_URL: `sqlite:${file}` });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /does not exist/);
      assert.doesNotMatch(result.stdout, /intact/);
      assert.equal(fs.existsSync(file), false, 'no database file was created');
      assert.equal(fs.existsSync(path.dirname(file)), false, 'no folder was created');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SQLite: an empty file or a file that is no SQLite database is named as such and left exactly as it was', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-notdb-'));
    try {
      for (const [name, content] of [
        ['empty.db', ''],
        ['notes.txt', 'not a database at all\n'],
        ['backup.db', 'SQLite format 2\0 almost but not quite a header'],
      ] as const) {
        const file = path.join(dir, name);
        fs.writeFileSync(file, content);
        const result = await audit({ DATABASE_URL: `sqlite:${file}` });
        assert.equal(result.code, 1, name);
        assert.match(result.stderr, new RegExp(`${name.replace('.', '\\.')} is (empty|not a SQLite database)`), name);
        assert.doesNotMatch(result.stdout, /intact/, name);
        assert.equal(fs.readFileSync(file, 'utf8'), content, `${name} is unchanged`);
        assert.equal(fs.existsSync(`${file}-wal`), false, `${name}: no WAL file`);
        assert.equal(fs.existsSync(`${file}-shm`), false, `${name}: no shared-memory file`);
      }
      assert.deepEqual(fs.readdirSync(dir).sort(), ['backup.db', 'empty.db', 'notes.txt']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("SQLite: another application's database is an error and keeps its journal mode (not switched to WAL)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-foreign-'));
    try {
      const file = path.join(dir, 'other-app.db');
      const other = new BetterSqlite3(file);
      other.exec('create table notes (id integer primary key, body text)');
      other.close();
      const before = fs.readFileSync(file);
      const result = await audit({ DATABASE_URL: `sqlite:${file}` });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /no FieldLens tables/);
      const reopened = new BetterSqlite3(file, { readonly: true });
      assert.equal(reopened.pragma('journal_mode', { simple: true }), 'delete');
      reopened.close();
      assert.deepEqual(fs.readFileSync(file), before, 'the file is unchanged');
      assert.deepEqual(fs.readdirSync(dir), ['other-app.db']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  if (process.env.TEST_DATABASE_URL) {
    it('PostgreSQL: an unknown database is an error naming it', async () => {
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = '/fieldlens_no_such_database';
      const result = await audit({ DATABASE_URL: url.toString() });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /fieldlens_no_such_database/);
      assert.doesNotMatch(result.stdout, /intact/);
    });
  }
});

describeEachDatabase('fieldlens users reset-password', (kind) => {
  let t: TestApp;
  let env: Record<string, string>;
  before(async () => {
    t = await buildTestApp(kind);
    env = { DATABASE_URL: cliDatabaseUrl(t.testDatabase) };
  });
  after(async () => t.close());

  it('prints a new random password once, ends the sessions, clears the lock, and is audited', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    // Used once before the reset: on SQLite the running instance now remembers the user's row for this token.
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(session.access_token) })).statusCode,
      200,
    );
    for (let i = 0; i < 10; i++)
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'admin', password: `wrong-guess-number-${i}-xx` },
      });
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username: 'admin', password: ADMIN_PASSWORD },
        })
      ).statusCode,
      429,
    );

    const result = await users(['reset-password', 'admin'], env);
    assert.equal(result.code, 0, result.stderr);
    const password = /New password \(shown once\): (\S+)/.exec(result.stdout)?.[1];
    assert.ok(password && password.length >= 12, result.stdout);

    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/auth/refresh',
          payload: { refresh_token: session.refresh_token },
        })
      ).statusCode,
      401,
    );
    // The running instance sees the other process's write at once (SQLite: through the database's change counter),
    // so the old access token is refused without a restart.
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(session.access_token) })).statusCode,
      401,
    );
    const old = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: ADMIN_PASSWORD },
    });
    assert.equal(old.statusCode, 401, 'the old password is gone and the lock was cleared');
    const fresh = await login(t.app, 'admin', password);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(fresh.access_token) })).statusCode,
      200,
    );

    const entries = await t.database.db
      .selectFrom('audit_log')
      .select(['details', 'actor_username'])
      .where('action', '=', 'user.password_reset')
      .execute();
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.actor_username, 'system');
    assert.doesNotMatch(entries[0]!.details, new RegExp(password), 'the password is not audited');
  });

  it('--password-stdin sets the given password and does not print it', async () => {
    const chosen = 'a chosen recovery passphrase 42';
    const result = await users(['reset-password', 'ADMIN', '--password-stdin'], env, `${chosen}\n`);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /passphrase/);
    await login(t.app, 'admin', chosen);
  });

  it('refuses an unknown user, a weak password and bad usage', async () => {
    const unknown = await users(['reset-password', 'nobody'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no user named "nobody"/);
    const weak = await users(['reset-password', 'admin', '--password-stdin'], env, 'password123\n');
    assert.equal(weak.code, 1);
    assert.match(weak.stderr, /password/);
    assert.equal((await users(['reset-password'], env)).code, 2);
    assert.equal((await users(['frobnicate'], env)).code, 2);
    const missing = await users(['reset-password', 'admin'], { DATABASE_URL: 'sqlite:/nonexistent/fieldlens.db' });
    assert.equal(missing.code, 1);
    assert.equal(fs.existsSync('/nonexistent/fieldlens.db'), false);
    // The API still answers as before: a wrong password is 401.
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'not-the-password-at-all' },
    });
    assert.equal(problem(wrong).code, 'invalid_credentials');
  });
});
