/**
 * The API tokens page as a person uses it (Debian's Chromium through playwright-core, the real service on SQLite):
 * create a token limited to one permission, see and copy its secret once, find it listed without the secret and with
 * its last use, look at another user's tokens as an admin, and revoke with a confirmation. Checked with axe. Writes
 * the screenshot test/console/screenshots/tokens.png.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, bearer, buildTestApp, createUser, type TestApp } from '../helpers/app.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations, watchedPage } from './harness.js';

describe('console API tokens page [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
  });

  async function assertAccessible(page: Page, where: string): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `${where}: ${JSON.stringify(violations, null, 1)}`);
  }

  const useToken = (token: string) => t.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(token) });

  it('creates a token, shows and copies it once, lists it without the secret, and revokes it after a confirmation', async () => {
    const { page, problems } = await watchedPage(browser, contexts);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.goto(`${base}/tokens`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await page.getByText('You have no API tokens.').waitFor();
    assert.equal(await page.getByRole('link', { name: 'API tokens' }).getAttribute('aria-current'), 'page');
    await assertAccessible(page, 'empty tokens page');

    await page.getByLabel('Name', { exact: true }).fill('nightly scanner');
    await page.getByLabel('Expires in (days, 1–365)').fill('30');
    await page.getByLabel('Only these:').check();
    await page.getByLabel('field:read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByTestId('new-token-value');
    await shown.waitFor();
    const secret = (await shown.innerText()).trim();
    assert.match(secret, /^flk_[0-9A-Za-z]{32}$/);
    await page.getByText('you will not see it again').waitFor();
    await page.getByRole('button', { name: 'Copy token' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await assertAccessible(page, 'new token shown');
    await screenshot(page, 'tokens');

    // The secret works, as that token's permission only.
    assert.equal((await useToken(secret)).statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(secret) })).statusCode,
      403,
    );

    // Shown once: after Done, or on a reload, the page no longer has it; the list shows what identifies it.
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByTestId('new-token').count(), 0);
    await page.reload();
    const table = page.getByRole('table', { name: 'API tokens' });
    await table.waitFor();
    const row = table.getByRole('row', { name: /nightly scanner/ });
    const text = await row.innerText();
    assert.match(text, new RegExp(`${secret.slice(0, 10)}…`));
    assert.match(text, /field:read/);
    assert.doesNotMatch(text, /never/, 'used once: its last use is shown');
    assert.ok(!(await page.content()).includes(secret.slice(10)), 'the secret is nowhere on the page');

    // An admin looks at another user's tokens.
    const rita = await createUser(t.app, ['operator'], { username: 'rita-scripts' });
    const ritas = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: bearer(rita.token),
      payload: { name: 'rita export', expires_in_days: 5 },
    });
    assert.equal(ritas.statusCode, 201);
    await page.reload();
    await page.getByLabel('Tokens of').selectOption({ label: 'rita-scripts' });
    await table.getByRole('row', { name: /rita export/ }).waitFor();
    assert.match(await table.getByRole('row', { name: /rita export/ }).innerText(), /all of the user's/);
    await assertAccessible(page, "another user's tokens");
    await page.getByLabel('Tokens of').selectOption({ label: 'admin (you)' });
    await row.waitFor();

    // Revoking asks first; Cancel changes nothing.
    await row.getByRole('button', { name: /Revoke/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the token nightly scanner?' });
    await dialog.waitFor();
    await assertAccessible(page, 'revoke confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await useToken(secret)).statusCode, 200);
    await row.getByRole('button', { name: /Revoke/ }).click();
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText('Revoked the token nightly scanner.').waitFor();
    await page.getByText('You have no API tokens.').waitFor();
    assert.equal((await useToken(secret)).statusCode, 401);
    assert.deepEqual(problems, []);
  });
});
