import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { buildTestApp, problem } from '../helpers/app.js';
import { createTestDatabase, databaseKinds } from '../helpers/databases.js';

/** A TCP proxy in front of PostgreSQL that the test can cut and restore (the shared server keeps running). */
async function startProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      open = true;
    },
    async close() {
      this.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

for (const kind of databaseKinds().filter((k) => k === 'postgres')) {
  describe(`database outage [${kind}]`, () => {
    it('answers 503 while PostgreSQL connections are cut and recovers without a restart', async () => {
      const url = new URL(process.env.TEST_DATABASE_URL ?? '');
      const proxy = await startProxy({ host: url.hostname, port: Number(url.port || 5432) });
      const viaProxy = new URL(url.toString());
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      const db = await createTestDatabase(kind);
      const t = await buildTestApp(kind, { testDatabase: db, databaseUrl: viaProxy.toString() });
      try {
        assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);

        proxy.cut();
        const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 503);
        assert.equal(problem(ready).code, 'unavailable');
        const login = await t.app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username: 'admin', password: 'whatever-password' },
        });
        assert.equal(login.statusCode, 503);
        assert.equal(problem(login).code, 'unavailable');
        assert.equal(login.headers['retry-after'], '5');
        assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process stays up');

        proxy.restore();
        let recovered = 0;
        for (let attempt = 0; attempt < 20 && recovered !== 200; attempt += 1) {
          recovered = (await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode;
          if (recovered !== 200) await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(recovered, 200);
      } finally {
        await t.close();
        await db.dispose();
        await proxy.close();
      }
    });
  });
}

/** Starts test/fixtures/slow-server.ts and answers its port once it listens. */
async function startSlowServer(env: Record<string, string>): Promise<{
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  port: number;
  exited: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  printed: (line: string) => Promise<void>;
}> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/slow-server.ts'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 30_000);
    child.stdout.on('data', () => {
      const match = /LISTENING (\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
  const printed = (line: string) =>
    new Promise<void>((resolve) => {
      const check = (): void => {
        if (stdout.includes(line)) resolve();
      };
      child.stdout.on('data', check);
      check();
    });
  return { child, port, exited, stdout: () => stdout, stderr: () => stderr, printed };
}

/** Sends one GET through `agent` (false: a connection of its own); `sent` resolves once the request has left. */
function send(port: number, path: string, agent: http.Agent | false) {
  let markSent: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const answer = new Promise<string>((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    req.on('finish', markSent);
    req.on('error', (error: NodeJS.ErrnoException) => {
      markSent();
      resolve(error.code ?? error.message);
    });
  });
  return { sent, answer };
}

/** One request on a connection of its own; resolves with the status and body, or the socket error's code. */
function request(
  port: number,
  path: string,
): Promise<{ status: number; body: string; contentType?: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, contentType: res.headers['content-type'] }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

describe('graceful shutdown', () => {
  it('SIGTERM with 60 requests in flight: /readyz 503 at once, no new connections after the grace period, all 60 answered 200, exit 0', async () => {
    const server = await startSlowServer({
      FIELDLENS_SHUTDOWN_GRACE_MS: '4000',
      FIELDLENS_SHUTDOWN_TIMEOUT_MS: '60000',
    });
    const { child, port } = server;
    try {
      const before = await request(port, '/readyz');
      assert.ok('status' in before && before.status === 200, 'ready before the signal');
      const inFlight = Array.from({ length: 60 }, () => request(port, '/slow?hold=1'));
      for (let seen = 0; seen < 60; await new Promise((r) => setTimeout(r, 50))) {
        const answer = await request(port, '/slow/in-flight');
        seen = 'body' in answer ? Number(answer.body) : 0;
      }

      child.kill('SIGTERM');
      // The signal reaches the child's event loop a moment later: poll until readiness turns (it must, while the
      // server still accepts connections).
      let ready = await request(port, '/readyz');
      for (let attempt = 0; attempt < 100 && 'status' in ready && ready.status === 200; attempt += 1) {
        await new Promise((r) => setTimeout(r, 20));
        ready = await request(port, '/readyz');
      }
      assert.ok('status' in ready, `readyz answered during the grace period: ${JSON.stringify(ready)}`);
      assert.equal(ready.status, 503);
      assert.match(String(ready.contentType), /^application\/problem\+json/);
      assert.equal((JSON.parse(ready.body) as { code: string }).code, 'unavailable');

      // After the grace period the listening socket is closed: a new connection is refused…
      let refused: string | undefined;
      for (let attempt = 0; attempt < 200 && refused === undefined; attempt += 1) {
        const answer = await request(port, '/healthz');
        if ('error' in answer) refused = answer.error;
        else await new Promise((r) => setTimeout(r, 50));
      }
      // Refused, or reset when the attempt landed in the kernel's accept queue just as the listening socket closed:
      // either way the server takes no new connection (the 60 accepted ones are all answered below).
      assert.ok(refused === 'ECONNREFUSED' || refused === 'ECONNRESET', `a new connection was ${refused ?? 'served'}`);
      assert.equal(child.exitCode, null, 'the server waits for the requests it accepted');

      // …while every request accepted before it is finished.
      child.stdin.write('release\n');
      const answers = await Promise.all(inFlight);
      assert.deepEqual(
        answers.map((a) => ('status' in a ? `${a.status} ${a.body}` : a.error)),
        Array.from({ length: 60 }, () => '200 finished'),
      );
      assert.equal(await server.exited, 0, server.stderr());
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a busy event loop at the end of the grace period: requests already sent on new and on idle keep-alive connections are all answered, exit 0', async () => {
    // The grace period ends while a request blocks the event loop; meanwhile clients open new connections (the
    // kernel accepts them into the listening socket's queue) and send on idle keep-alive connections (the bytes wait
    // in the socket buffers). Closing the listener or the "idle" connections at that moment would reset them all.
    const server = await startSlowServer({
      FIELDLENS_SHUTDOWN_GRACE_MS: '500',
      FIELDLENS_SHUTDOWN_TIMEOUT_MS: '60000',
    });
    const { child, port } = server;
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 10 });
    try {
      const warm = await Promise.all(Array.from({ length: 10 }, () => send(port, '/healthz', keepAlive).answer));
      assert.deepEqual(
        warm,
        Array.from({ length: 10 }, () => '200 {"status":"ok"}'),
      );

      child.kill('SIGTERM');
      let ready = await request(port, '/readyz');
      for (let attempt = 0; attempt < 100 && 'status' in ready && ready.status === 200; attempt += 1) {
        await new Promise((r) => setTimeout(r, 20));
        ready = await request(port, '/readyz');
      }
      assert.ok('status' in ready && ready.status === 503, 'draining');

      const busy = send(port, '/busy?ms=3000', false);
      await server.printed('BUSY START');
      const fresh = Array.from({ length: 20 }, () => send(port, '/healthz', false));
      const reused = Array.from({ length: 10 }, () => send(port, '/healthz', keepAlive));
      await Promise.all([...fresh, ...reused].map((r) => r.sent));
      assert.ok(
        !server.stdout().includes('BUSY END'),
        'the 30 requests were sent while the event loop was blocked, past the grace period',
      );

      assert.equal(await busy.answer, '200 done');
      assert.deepEqual(
        await Promise.all([...fresh, ...reused].map((r) => r.answer)),
        Array.from({ length: 30 }, () => '200 {"status":"ok"}'),
      );
      assert.equal(await server.exited, 0, server.stderr());
    } finally {
      keepAlive.destroy();
      child.kill('SIGKILL');
    }
  });

  it('SIGTERM during a slow request lets it finish, then exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/slow-server.ts'], {
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 30_000);
        child.stdout.on('data', () => {
          const match = /LISTENING (\d+)/.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(Number(match[1]));
          }
        });
      });
      const received = new Promise<void>((resolve) => {
        const check = (): void => {
          if (stdout.includes('RECEIVED /slow')) resolve();
        };
        child.stdout.on('data', check);
        check();
      });
      const slow = fetch(`http://127.0.0.1:${port}/slow`).then(async (r) => ({
        status: r.status,
        body: await r.text(),
      }));
      // Signalled once the server has the request in hand, not after a guessed delay.
      await received;
      child.kill('SIGTERM');
      const response = await slow;
      assert.equal(response.status, 200);
      assert.equal(response.body, 'finished');
      assert.equal(await exited, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
