// Which addresses a webhook may reach (SSRF): pure checks, and the resolution a delivery re-does before each attempt.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkWebhookUrl,
  embeddedIPv4,
  nonPublicKind,
  WebhookUrlRefused,
} from '../../../src/modules/webhooks/webhook-address.js';
import { nextAttemptDelayMs, RETRY_DELAYS_S } from '../../../src/modules/webhooks/webhook-worker.js';
import { sendWebhook, signWebhook } from '../../../src/modules/webhooks/webhook-sender.js';
import { startReceiver } from './receiver.js';

const CLOSED = { allowHttp: false, allowPrivate: false };

describe('webhook addresses', () => {
  it('refuses every non-public range, IPv4 and IPv6, and IPv4 carried in IPv6', () => {
    for (const a of [
      '127.0.0.1',
      '127.8.9.10',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '169.254.1.1',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
      '240.0.0.1',
      '192.0.2.5',
      '198.18.0.1',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::ffff:10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '::127.0.0.1',
      '0:0:0:0:0:ffff:c0a8:0101',
    ]) {
      assert.ok(nonPublicKind(a) !== undefined, `${a} must be refused`);
    }
  });

  it('allows public addresses', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:81a::200e',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(nonPublicKind(a), undefined, `${a} is public`);
    }
  });

  it('reads the IPv4 address inside mapped, compatible and NAT64 IPv6 forms', () => {
    assert.equal(embeddedIPv4('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(embeddedIPv4('::ffff:169.254.169.254'), '169.254.169.254');
    assert.equal(embeddedIPv4('64:ff9b::0a00:0001'), '10.0.0.1');
    assert.equal(embeddedIPv4('2606:4700::1111'), undefined);
    assert.equal(embeddedIPv4('::1'), undefined);
  });

  it('refuses a name when any address it resolves to is not public (rebinding staged with two answers)', async () => {
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    await assert.rejects(checkWebhookUrl('https://rebind.example/hook', CLOSED, resolve), WebhookUrlRefused);
  });

  it('checks again at each delivery: a name that now resolves to a private address is refused, and the checked address is the one connected to', async () => {
    let answer = '93.184.216.34';
    const resolve = async () => [{ address: answer, family: 4 }];
    const target = await checkWebhookUrl('https://hooks.example/x', CLOSED, resolve);
    assert.equal(target.address, '93.184.216.34');
    answer = '10.0.0.7';
    await assert.rejects(checkWebhookUrl('https://hooks.example/x', CLOSED, resolve), /10\.0\.0\.7, a private address/);
    assert.equal(
      (await checkWebhookUrl('https://hooks.example/x', { allowHttp: false, allowPrivate: true }, resolve)).address,
      '10.0.0.7',
    );
  });

  it('refuses http unless allowed, credentials in the URL, and names that do not resolve', async () => {
    await assert.rejects(checkWebhookUrl('http://93.184.216.34/x', CLOSED), /https/);
    assert.equal(
      (await checkWebhookUrl('http://93.184.216.34/x', { allowHttp: true, allowPrivate: false })).address,
      '93.184.216.34',
    );
    await assert.rejects(checkWebhookUrl('https://u:p@93.184.216.34/x', CLOSED), /user name or password/);
    await assert.rejects(checkWebhookUrl('ftp://93.184.216.34/x', CLOSED), /https/);
    await assert.rejects(
      checkWebhookUrl('https://nowhere.invalid/x', CLOSED, async () => {
        throw new Error('ENOTFOUND');
      }),
      /does not resolve/,
    );
  });
});

describe('webhook retry schedule and signature', () => {
  it('waits 10 s to 15 s before the first retry, then growing delays capped at 4 h (+ jitter)', () => {
    assert.equal(
      nextAttemptDelayMs(1, () => 0),
      10_000,
    );
    assert.equal(
      nextAttemptDelayMs(1, () => 1),
      15_000,
    );
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map((n) => nextAttemptDelayMs(n, () => 0));
    assert.deepEqual(
      delays,
      [10, 30, 120, 600, 1800, 3600, 7200, 14_400, 14_400, 14_400].map((s) => s * 1000),
    );
    assert.equal(RETRY_DELAYS_S.at(-1), 14_400);
  });

  it('signs "<id>.<timestamp>.<body>" with the secret\'s bytes (the Standard Webhooks test vector)', () => {
    // From the Standard Webhooks specification's reference libraries.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const signature = signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('webhook sender', () => {
  it('connects to the checked address, never resolving the name again (DNS rebinding)', async () => {
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url).port;
      // A name nothing resolves: the request can only arrive through the pinned address.
      const result = await sendWebhook({
        target: { url: new URL(`http://rebound.invalid:${port}/pinned`), address: '127.0.0.1', family: 4 },
        id: 'msg_1',
        timestamp: 1,
        body: '{}',
        secret: 'whsec_AAAA',
      });
      assert.deepEqual(result, { ok: true, statusCode: 204, error: null });
      assert.equal(receiver.received[0]?.path, '/pinned');
      assert.equal(
        receiver.received[0]?.headers.host,
        `rebound.invalid:${port}`,
        "the Host header (and TLS name) stay the URL's",
      );
    } finally {
      await receiver.close();
    }
  });
});
