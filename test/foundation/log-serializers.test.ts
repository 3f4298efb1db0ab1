import assert from 'node:assert/strict';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { CENSORED, LOG_SERIALIZERS, SECRET_FIELDS } from '../../src/http/log-serializers.js';

/** A real pino logger with the app's serializers, its lines parsed. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      callback();
    },
  });
  return { log: pino({ serializers: LOG_SERIALIZERS }, stream), lines };
}

const serialize = (key: string, value: unknown): unknown => {
  const serializer = LOG_SERIALIZERS[key];
  assert.ok(serializer, key);
  return serializer(value);
};

describe('log serializers', () => {
  it('censor secret fields at the top level, in body, payload and req.body, and secret headers', async () => {
    const { log, lines } = capture();
    const secrets = { password: 's1', current_password: 's2', access_token: 's3', refresh_token: 's4', token: 's8' };
    const censored = Object.fromEntries(SECRET_FIELDS.map((field) => [field, CENSORED]));
    log.info(
      {
        ...secrets,
        username: 'kept',
        body: { ...secrets, username: 'kept' },
        payload: { ...secrets },
        req: {
          method: 'POST',
          body: { ...secrets },
          headers: { authorization: 'Bearer s5', cookie: 's6', accept: 'kept' },
        },
        headers: { authorization: 'Bearer s7', 'content-type': 'kept' },
      },
      'probe',
    );
    await new Promise((resolve) => setImmediate(resolve));
    const line = lines[0];
    assert.ok(line);
    assert.equal(line.username, 'kept');
    for (const field of SECRET_FIELDS) assert.equal(line[field], CENSORED, field);
    assert.deepEqual(line.body, { ...censored, username: 'kept' });
    assert.deepEqual(line.payload, censored);
    assert.deepEqual(line.req, {
      method: 'POST',
      body: censored,
      headers: { authorization: CENSORED, cookie: CENSORED, accept: 'kept' },
    });
    assert.deepEqual(line.headers, { authorization: CENSORED, 'content-type': 'kept' });
    assert.ok(!/"s[1-8]"|Bearer/.test(JSON.stringify(line)));
  });

  it('hand back the very object when it holds no secret, and never change the logged object', () => {
    const body = { username: 'alice', email: 'a@example.com' };
    assert.equal(serialize('body', body), body);
    assert.equal(serialize('payload', body), body);
    const headers = { accept: 'application/json' };
    assert.equal(serialize('headers', headers), headers);
    const accessLine = { method: 'GET', url: '/api/v1/auth/me', remoteAddress: '10.0.0.7' };
    assert.equal(serialize('req', accessLine), accessLine, 'the access line passes through untouched');
    const res = { statusCode: 200 };
    assert.equal(serialize('res', res), res);
    for (const value of [undefined, null, 'text', 42, ['password']]) assert.equal(serialize('body', value), value);

    const withSecret = { username: 'alice', password: 'hunter2-hunter2' };
    assert.deepEqual(serialize('body', withSecret), { username: 'alice', password: CENSORED });
    assert.equal(withSecret.password, 'hunter2-hunter2', "a copy is censored, the caller's object is not");
    const request = { url: '/x', headers: { authorization: 'Bearer t' } };
    assert.deepEqual(JSON.parse(JSON.stringify(serialize('req', request))), {
      url: '/x',
      headers: { authorization: CENSORED },
    });
    assert.equal(request.headers.authorization, 'Bearer t');
  });

  it('summarise a live request without its headers or body, and a live reply by its status', () => {
    const raw = new IncomingMessage(new Socket());
    raw.method = 'POST';
    raw.url = '/api/v1/auth/login';
    raw.headers = { authorization: 'Bearer secret-header', cookie: 'sid=secret-cookie', 'accept-version': '1' };
    const live = Object.assign(raw, { ip: '192.0.2.9', host: 'fieldlens.example', body: { password: 'secret-body' } });
    const summary = serialize('req', live);
    assert.deepEqual(summary, {
      method: 'POST',
      url: '/api/v1/auth/login',
      version: '1',
      host: 'fieldlens.example',
      remoteAddress: '192.0.2.9',
      remotePort: undefined,
    });
    assert.ok(!JSON.stringify(summary).includes('secret'));
    class Reply {
      statusCode = 204;
      headers = { 'set-cookie': 'secret' };
    }
    assert.deepEqual(serialize('res', new Reply()), { statusCode: 204 });
  });
});
