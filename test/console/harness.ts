/**
 * The browser harness of the console tests: builds the console when its build is missing or older than its sources,
 * starts Debian's Chromium through playwright-core (no browser download), checks pages with axe-core, writes screenshots.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WEB = path.join(ROOT, 'web');
const BUILT = path.join(WEB, 'dist', 'index.html');
export const SCREENSHOTS = path.join(ROOT, 'test', 'console', 'screenshots');

function newestMtime(target: string): number {
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** Runs the console build when web/dist is missing or older than any source of it (a few seconds). */
export function ensureConsoleBuilt(): void {
  const sources = ['src', 'public', 'index.html', 'vite.config.ts']
    .map((p) => path.join(WEB, p))
    .filter((p) => fs.existsSync(p));
  const newest = Math.max(...sources.map(newestMtime));
  if (fs.existsSync(BUILT) && fs.statSync(BUILT).mtimeMs >= newest) return;
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      path.join(WEB, 'vite.config.ts'),
      '--logLevel',
      'warn',
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<{ browser: Browser; close(): Promise<void> }> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium) or set CHROMIUM_PATH`);
  // playwright-core gives every launch a fresh, temporary profile (user-data dir) and removes it on close.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // The machine's network is closed: without these Chromium keeps trying Google's services.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

/**
 * A page in a context of its own (pushed onto `contexts`, for the suite to close), collecting every
 * Content-Security-Policy violation and page error in `problems`: a test ends by asserting that none happened.
 */
export async function watchedPage(
  browser: Browser,
  contexts: BrowserContext[],
  options: { viewport?: { width: number; height: number }; acceptDownloads?: boolean } = {},
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1400, height: 900 },
    acceptDownloads: options.acceptDownloads ?? true,
  });
  contexts.push(context);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return { page, problems };
}

const AXE_SOURCE = fs.readFileSync(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations on the page as it is now (evaluated through DevTools: CSP does not apply). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`,
  )) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/**
 * Waits until `expression` (page script, a string: tests are type-checked without the DOM library) is truthy in the
 * page. Playwright evaluates a string predicate with `eval` again on every poll, which the console's CSP
 * (`script-src 'self'`) refuses after the first, synchronous check: the wait then failed only when the condition was
 * not already true (a loaded machine). Wrapped in a function, the page evaluates it once and polls the function.
 */
export async function waitInPage(page: Page, expression: string, timeout = 5000): Promise<void> {
  await page.waitForFunction(`() => (${expression})`, undefined, { timeout });
}
