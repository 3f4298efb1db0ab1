/**
 * The interactive API docs at /docs in a real browser, under the service's Content-Security-Policy: the page renders
 * the operations and the browser reports no policy violation (a blocked inline style or script is a console error a
 * user sees, and a sign that part of the page does not work).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser } from './harness.js';

let t: TestApp;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let base: string;

before(async () => {
  t = await buildTestApp('sqlite');
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  ({ browser, close: closeBrowser } = await launchBrowser());
});
after(async () => {
  await closeBrowser();
  await t.close();
});

it('renders the API docs at /docs with no Content-Security-Policy violation', async () => {
  const page = await browser.newPage();
  // Recorded in the page from its first script on, so violations during the first render are caught too.
  // (Strings, not functions: the tests are type-checked without the DOM library.)
  await page.addInitScript(`
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.sourceFile + ':' + e.lineNumber));
  `);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${base}/docs/`);
  await page.locator('.opblock').first().waitFor();
  assert.ok((await page.locator('.opblock').count()) > 10, 'the operations are listed');
  const violations = (await page.evaluate('window.cspViolations')) as string[];
  assert.deepEqual(violations, []);
  assert.deepEqual(
    errors.filter((e) => /Content Security Policy/i.test(e)),
    [],
  );
  await page.close();
});
