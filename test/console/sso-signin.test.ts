/**
 * "Sign in with SSO" in the console end to end: Chromium (playwright-core) on the real service listening on 127.0.0.1,
 * a real OpenID provider (oidc-provider) in this process with its own sign-in and consent pages, the built console.
 */
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations, watchedPage } from './harness.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('console single sign-on [sqlite]', () => {
  let provider: TestProvider;
  let t: TestApp;
  let passwordOff: TestApp;
  let base: string;
  let passwordOffBase: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    const port = await freePort();
    const passwordOffPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    passwordOffBase = `http://127.0.0.1:${passwordOffPort}`;
    provider = await startTestProvider({
      redirectUri: [`${base}/api/v1/auth/oidc/callback`, `${passwordOffBase}/api/v1/auth/oidc/callback`],
    });
    const env = {
      FIELDLENS_OIDC_ISSUER: provider.issuer,
      FIELDLENS_OIDC_CLIENT_ID: provider.clientId,
      FIELDLENS_OIDC_CLIENT_SECRET: provider.clientSecret,
      FIELDLENS_PUBLIC_URL: base,
      FIELDLENS_OIDC_ROLE_MAP: 'fl-reviewers=operator',
      FIELDLENS_OIDC_NAME: 'Acme SSO',
    };
    t = await buildTestApp('sqlite', { env });
    await t.app.listen({ port, host: '127.0.0.1' });
    passwordOff = await buildTestApp('sqlite', {
      env: { ...env, FIELDLENS_PUBLIC_URL: passwordOffBase, FIELDLENS_PASSWORD_LOGIN: 'off' },
    });
    await passwordOff.app.listen({ port: passwordOffPort, host: '127.0.0.1' });
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
    await passwordOff?.close();
    await provider?.close();
  });

  /** From the console's sign-in page through the provider's own pages, typing `login` there. */
  async function signInWithSso(page: Page, login: string, at = base): Promise<void> {
    await page.goto(`${at}/queue`);
    await page.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  it('offers both ways; the SSO button signs a new user in with the mapped role, and the code leaves the address', async () => {
    provider.accounts.set('rosa', { preferred_username: 'rosa', email: 'rosa@example.com', groups: ['fl-reviewers'] });
    const { page, problems } = await watchedPage(browser, contexts);
    await page.goto(`${base}/queue`);
    await page.getByRole('link', { name: 'Sign in with Acme SSO' }).waitFor();
    assert.equal(await page.getByLabel('Username').count(), 1, 'the password form is offered too');
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'signin-sso');

    await signInWithSso(page, 'rosa');
    await page.getByTestId('who').waitFor();
    assert.match(await page.getByTestId('who').innerText(), /rosa · operator/);
    assert.doesNotMatch(page.url(), /sso_code/, 'the one-use code is gone from the address');
    // A reload keeps the session (the refresh token of the tab), like a password sign-in.
    await page.reload();
    await page.getByTestId('who').waitFor();
    assert.deepEqual(problems, []);
  });

  it('a person in no mapped group is told why, and gets no session', async () => {
    provider.accounts.set('mona', { preferred_username: 'mona', groups: ['marketing'] });
    const { page } = await watchedPage(browser, contexts);
    await signInWithSso(page, 'mona');
    const notice = page.getByTestId('sso-error');
    await notice.waitFor();
    assert.match(await notice.innerText(), /no group that FieldLens gives a role to/);
    assert.equal(await page.getByTestId('who').count(), 0);
    assert.doesNotMatch(page.url(), /sso_error/);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'signin-sso-no-role');
  });

  it('with password login off the sign-in page and the session-ended dialog offer only the SSO button', async () => {
    const { page, problems } = await watchedPage(browser, contexts);
    await page.goto(`${passwordOffBase}/queue`);
    await page.getByRole('link', { name: 'Sign in with Acme SSO' }).waitFor();
    assert.equal(await page.getByLabel('Username').count(), 0);
    assert.equal(await page.getByLabel('Password').count(), 0);

    provider.accounts.set('sam', { preferred_username: 'sam', groups: ['fl-reviewers'] });
    await signInWithSso(page, 'sam', passwordOffBase);
    await page.getByTestId('who').waitFor();
    // Past the refresh token's absolute lifetime the session is over: the dialog offers single sign-on only.
    passwordOff.clock.advance(8 * 24 * 3600 * 1000);
    // The page's next call (the queue's, or this navigation's) finds the session over.
    await page
      .getByRole('link', { name: 'Overview' })
      .click({ timeout: 2_000 })
      .catch(() => undefined);
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.getByRole('link', { name: 'Sign in with Acme SSO' }).waitFor();
    assert.equal(await dialog.getByLabel('Password').count(), 0);
    assert.deepEqual(await seriousViolations(page), []);
    // The provider still knows the browser (its session and the grant): straight back, signed in again.
    await dialog.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
    await page.getByTestId('who').waitFor();
    assert.match(await page.getByTestId('who').innerText(), /sam · operator/);
    assert.deepEqual(problems, []);
  });
});
