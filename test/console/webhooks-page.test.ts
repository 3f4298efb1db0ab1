/**
 * The webhooks page as an admin uses it (Debian's Chromium through playwright-core, the real service on SQLite with
 * its workers running and a real receiver on 127.0.0.1): create with events, the secret shown once, a test event the
 * receiver verifies with that secret, the delivery log, disable and delete; an observer sees no page; checked with axe.
 * Writes the screenshot docs/console/webhooks.png shows.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, buildTestApp, createUser, type TestApp } from '../helpers/app.js';
import { startReceiver, verifySignature, type Receiver } from '../modules/webhooks/receiver.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations, watchedPage } from './harness.js';

describe('console webhooks page [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let receiver: Receiver;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp('sqlite', {
      workers: true,
      env: {
        FIELDLENS_SECRET_KEY: randomBytes(32).toString('base64'),
        FIELDLENS_WEBHOOK_ALLOW_HTTP: 'on',
        FIELDLENS_WEBHOOK_ALLOW_PRIVATE: 'on',
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    receiver = await startReceiver();
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await receiver?.close();
    await t?.close();
  });

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.goto(`${base}/webhooks`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('creates a webhook, shows its secret once, sends a verified test event, shows the log, disables and deletes', async () => {
    const { page, problems } = await watchedPage(browser, contexts);
    page.on('dialog', (d) => void d.accept());
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current'), 'page');
    await page.getByText('No webhooks yet.').waitFor();

    await page.getByLabel('URL (https)').fill(`${receiver.url}/console`);
    await page.getByLabel(/A field was confirmed/).check();
    await page.getByLabel(/An unreviewed field became high risk/).uncheck();
    await page.getByLabel('Description (optional)').fill('Data-protection channel');
    await page.getByRole('button', { name: 'Create webhook' }).click();

    const secretBox = page.getByLabel('Secret', { exact: true });
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const row = page.locator('tbody tr', { hasText: `${receiver.url}/console` });
    await row.waitFor();
    assert.match(await row.innerText(), /scan\.failed, field\.confirmed/);
    assert.match(await row.innerText(), /enabled/);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'webhooks-secret');

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await secretBox.waitFor({ state: 'detached' });
    assert.ok(!(await page.content()).includes(secret), 'the secret is gone from the page');
    await page.reload();
    await row.waitFor();
    assert.ok(!(await page.content()).includes(secret), 'and not shown again');

    await row.getByRole('button', { name: /Send test/ }).click();
    for (let i = 0; i < 100 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(receiver.received.length, 1, 'the worker delivered the test event');
    const got = receiver.received[0]!;
    assert.ok(verifySignature(secret, got.headers, got.body), 'signed with the secret the page showed');
    assert.equal((JSON.parse(got.body) as { type: string }).type, 'webhook.test');

    const log = page.getByRole('region', { name: /Deliveries to/ });
    await log.waitFor();
    for (let i = 0; i < 20; i++) {
      await log.getByRole('button', { name: 'Refresh deliveries' }).click();
      if (await log.locator('tbody tr', { hasText: 'delivered' }).count()) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const delivered = log.locator('tbody tr', { hasText: 'webhook.test' });
    assert.match(await delivered.innerText(), /delivered\s+1\s+HTTP 204/);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'webhooks');

    await row.getByRole('button', { name: /Disable/ }).click();
    await row.getByText('disabled', { exact: true }).waitFor();
    await row.getByRole('button', { name: /Delete/ }).click();
    await page.getByText('No webhooks yet.').waitFor();
    assert.deepEqual(problems, []);
  });

  it('shows an observer no webhooks link and no page', async () => {
    const observer = await createUser(t.app, ['observer']);
    const { page, problems } = await watchedPage(browser, contexts);
    await signIn(page, observer.username, observer.password);
    await page
      .getByText(/webhook:write/)
      .first()
      .waitFor();
    assert.equal(await page.getByRole('link', { name: 'Webhooks' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Create webhook' }).count(), 0);
    assert.deepEqual(problems, []);
  });
});
