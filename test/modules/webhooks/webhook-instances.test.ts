/**
 * Two instances (child processes) on one PostgreSQL database deliver one event stream: both take deliveries, and when
 * one is killed with SIGKILL in the middle of its attempts, the other delivers what it held once the lease runs out
 * (60 s) — no event lost, and no event answered twice. PostgreSQL only (SQLite is one instance by design).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { cliDatabaseUrl, createTestDatabase } from '../../helpers/databases.js';

const ADMIN_PASSWORD = 'webhook-instances-passphrase-01';
const EVENTS = 24;

interface Instance {
  child: ChildProcessByStdio<null, Readable, Readable>;
  port: number;
  exited: Promise<unknown>;
}

async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/webhook-instance.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start: ${err}`)), 60_000);
    const check = () => {
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', check);
    child.on('exit', () => reject(new Error(`instance exited: ${err}`)));
  });
  return { child, port, exited };
}

async function call(
  port: number,
  method: string,
  url: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A receiver that holds every request until released, and records which were answered and which the sender dropped. */
async function holdingReceiver() {
  const held: Array<{ id: string; response: http.ServerResponse }> = [];
  const answered: string[] = [];
  const dropped: string[] = [];
  let holding = true;
  const answer = (id: string, response: http.ServerResponse) => {
    response.on('finish', () => answered.push(id));
    response.writeHead(200).end();
  };
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      response.on('close', () => {
        if (!response.writableFinished) dropped.push(id);
      });
      if (holding) held.push({ id, response });
      else answer(id, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    held,
    answered,
    dropped,
    release() {
      holding = false;
      for (const h of held.splice(0)) if (!h.response.destroyed) answer(h.id, h.response);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe(
  'webhook delivery by two instances [postgres]',
  { skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set (see README: Tests)' },
  () => {
    it(
      'loses no event and answers none twice when one instance is killed mid-delivery',
      { timeout: 180_000 },
      async () => {
        const testDatabase = await createTestDatabase('postgres');
        const receiver = await holdingReceiver();
        const instances: Instance[] = [];
        const database = testDatabase.open();
        try {
          const env = {
            DATABASE_URL: cliDatabaseUrl(testDatabase),
            FIELDLENS_ADMIN_PASSWORD: ADMIN_PASSWORD,
            FIELDLENS_SAMPLE_DATA: 'off',
            FIELDLENS_SECRET_KEY: randomBytes(32).toString('base64'),
            FIELDLENS_JWT_SECRET: randomBytes(32).toString('base64'),
            FIELDLENS_WEBHOOK_ALLOW_HTTP: 'on',
            FIELDLENS_WEBHOOK_ALLOW_PRIVATE: 'on',
            FIELDLENS_RATE_LIMIT_PER_ADDRESS: '0',
            FIELDLENS_RATE_LIMIT_PER_USER: '0',
            LOG_LEVEL: 'warn',
          };
          instances.push(await startInstance(env));
          instances.push(await startInstance(env));
          const [a, b] = instances as [Instance, Instance];

          const token = String(
            (
              await call(a.port, 'POST', '/api/v1/auth/login', undefined, {
                username: 'admin',
                password: ADMIN_PASSWORD,
              })
            ).json.access_token,
          );
          // Queued while the webhook is disabled, then enabled: both instances' workers find the whole stream at once.
          const created = await call(a.port, 'POST', '/api/v1/webhooks', token, {
            url: receiver.url,
            events: ['scan.finished'],
            enabled: false,
          });
          assert.equal(created.status, 201);
          const id = String(created.json.id);
          for (let i = 0; i < EVENTS; i++)
            assert.equal(
              (await call(i % 2 === 0 ? a.port : b.port, 'POST', `/api/v1/webhooks/${id}/test`, token)).status,
              202,
            );
          assert.equal((await call(b.port, 'PATCH', `/api/v1/webhooks/${id}`, token, { enabled: true })).status, 200);

          await until('every event held by the receiver', () => receiver.held.length === EVENTS, 30_000);
          const claimants = await database.db
            .selectFrom('webhook_deliveries')
            .select('claimed_by')
            .distinct()
            .execute();
          assert.equal(claimants.length, 2, 'both instances took part of the stream');

          a.child.kill('SIGKILL');
          await a.exited;
          await until("the killed instance's connections dropped", () => receiver.dropped.length > 0, 10_000);
          const droppedByKill = [...receiver.dropped];
          assert.ok(
            droppedByKill.length > 0 && droppedByKill.length < EVENTS,
            `${droppedByKill.length} attempts cut by the kill`,
          );
          receiver.release();

          // The survivor delivers its own at once and the dead instance's after their lease (60 s) runs out.
          await until(
            'every delivery delivered',
            async () =>
              (
                await database.db
                  .selectFrom('webhook_deliveries')
                  .select('id')
                  .where('status', '<>', 'delivered')
                  .execute()
              ).length === 0,
            120_000,
          );
          const ids = (await database.db.selectFrom('webhook_deliveries').select('id').execute())
            .map((r) => r.id)
            .sort();
          assert.equal(ids.length, EVENTS);
          assert.deepEqual([...new Set(receiver.answered)].sort(), ids, 'no event lost');
          assert.equal(receiver.answered.length, EVENTS, 'no event answered twice');
          for (const cut of droppedByKill)
            assert.ok(receiver.answered.includes(cut), `${cut}, cut by the kill, was delivered by the survivor`);
        } finally {
          for (const i of instances) i.child.kill('SIGKILL');
          await Promise.all(instances.map((i) => i.exited));
          await database.close();
          await receiver.close();
          await testDatabase.dispose();
        }
      },
    );
  },
);
