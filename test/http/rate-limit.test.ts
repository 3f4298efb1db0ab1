import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig, ConfigError } from '../../src/config.js';
import { bearer, buildTestApp, createUser, problem } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';

describeEachDatabase('rate limits', (kind) => {
  it('limits requests per client address: 429 rate_limited with Retry-After, probes exempt, another address unaffected', async () => {
    const t = await buildTestApp(kind, {
      env: {
        FIELDLENS_RATE_LIMIT_PER_ADDRESS: '5',
        FIELDLENS_RATE_LIMIT_PER_USER: '0',
        FIELDLENS_RATE_LIMIT_WINDOW: '600',
      },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1)
        statuses.push((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me' })).statusCode);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
      const limited = await t.app.inject({ method: 'GET', url: '/api/v1/fields' });
      assert.equal(limited.statusCode, 429);
      assert.equal(problem(limited).code, 'rate_limited');
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 600, `Retry-After ${String(limited.headers['retry-after'])}`);
      // Also before the token is looked at and for paths no route serves (a scanner gets nothing for free).
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/nothing' })).statusCode, 429);

      for (let i = 0; i < 10; i += 1) {
        assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
        assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      }
      const elsewhere = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', remoteAddress: '10.1.2.3' });
      assert.equal(elsewhere.statusCode, 401, 'another client address has its own budget');
    } finally {
      await t.close();
    }
  });

  it('limits requests per authenticated user, whatever address they come from; other users unaffected', async () => {
    const t = await buildTestApp(kind, {
      env: {
        FIELDLENS_RATE_LIMIT_PER_ADDRESS: '0',
        FIELDLENS_RATE_LIMIT_PER_USER: '4',
        FIELDLENS_RATE_LIMIT_WINDOW: '600',
      },
    });
    try {
      // Creating the users spends the admin's budget, not theirs.
      const alice = await createUser(t.app, ['observer']);
      const bob = await createUser(t.app, ['observer']);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        statuses.push(
          (
            await t.app.inject({
              method: 'GET',
              url: '/api/v1/auth/me',
              headers: bearer(alice.token),
              remoteAddress: `10.0.0.${i + 1}`,
            })
          ).statusCode,
        );
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
      const limited = await t.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(alice.token) });
      assert.equal(problem(limited).code, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) >= 1);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(bob.token) })).statusCode,
        200,
      );
      // Requests without a valid token are not counted against any user.
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me' })).statusCode, 401);
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('rate limits by default', (kind) => {
  it('limit a client address to 3000 and a user to 1200 requests a window when nothing is set', async () => {
    // Empty values are unset: the production defaults apply (the test helper otherwise sets high limits). A long
    // window, so a slow machine cannot see it reset in the middle: the counts are what is checked.
    const t = await buildTestApp(kind, {
      env: {
        FIELDLENS_RATE_LIMIT_PER_ADDRESS: '',
        FIELDLENS_RATE_LIMIT_PER_USER: '',
        FIELDLENS_RATE_LIMIT_WINDOW: '3600',
      },
    });
    try {
      assert.deepEqual(t.config.rateLimit, { windowMs: 3_600_000, perAddress: 3000, perUser: 1200 });
      const alice = await createUser(t.app, ['observer']);
      const byUser: number[] = [];
      for (let i = 0; i < 1201; i += 1) {
        byUser.push(
          (
            await t.app.inject({
              method: 'GET',
              url: '/api/v1/auth/me',
              headers: bearer(alice.token),
              remoteAddress: `10.9.${i % 200}.${Math.floor(i / 200) + 1}`,
            })
          ).statusCode,
        );
      }
      assert.deepEqual(
        [byUser.filter((s) => s === 200).length, byUser.at(-1)],
        [1200, 429],
        'the 1201st request of one user is refused',
      );

      const byAddress: number[] = [];
      for (let i = 0; i < 3001; i += 1)
        byAddress.push(
          (await t.app.inject({ method: 'GET', url: '/api/v1/nothing', remoteAddress: '10.8.0.1' })).statusCode,
        );
      assert.deepEqual(
        [byAddress.filter((s) => s !== 429).length, byAddress.at(-1)],
        [3000, 429],
        'the 3001st request of one address is refused',
      );
    } finally {
      await t.close();
    }
  });
});

it('reads the rate limits from the environment and refuses nonsense', () => {
  const config = loadConfig({
    FIELDLENS_RATE_LIMIT_PER_ADDRESS: '100',
    FIELDLENS_RATE_LIMIT_PER_USER: '50',
    FIELDLENS_RATE_LIMIT_WINDOW: '10',
  });
  assert.deepEqual(config.rateLimit, { windowMs: 10_000, perAddress: 100, perUser: 50 });
  assert.throws(() => loadConfig({ FIELDLENS_RATE_LIMIT_PER_USER: '-1' }), ConfigError);
  assert.throws(() => loadConfig({ FIELDLENS_RATE_LIMIT_WINDOW: '0' }), ConfigError);
  // Defaults a deployment can keep (1,000,000 a minute was no limit at all); high limits are set explicitly.
  assert.deepEqual(loadConfig({}).rateLimit, { windowMs: 60_000, perAddress: 3000, perUser: 1200 });
  assert.deepEqual(
    loadConfig({ FIELDLENS_RATE_LIMIT_PER_ADDRESS: '1000000000', FIELDLENS_RATE_LIMIT_PER_USER: '0' }).rateLimit,
    { windowMs: 60_000, perAddress: 1_000_000_000, perUser: 0 },
  );
});
