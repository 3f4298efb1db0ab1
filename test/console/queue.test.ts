/**
 * The review queue in Chromium against the real service, on SQLite and PostgreSQL: the grid shows exactly the list
 * the API gave for the filters on screen, after narrowing by every filter; no action reaches a row that is not shown;
 * the keys do what the page says; decided rows update at once; the lock is an SVG icon, not an emoji. Then the
 * changed-since-last-scan view after a rescan, and the sample data hidden once a real source exists (with its toggle).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, createUser, type TestApp } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { createDatasource, importOk, manyFields, type FieldInput } from '../modules/fields/factories.js';
import { createScannable, scanNow, sqliteScanDir } from '../modules/scans/helpers.js';
import {
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  seriousViolations,
  waitInPage,
  watchedPage,
} from './harness.js';

const EMAIL = 'Personal/Contact/Email address';
const TIMESTAMP = 'Technical/Timestamp';

interface ApiField {
  id: string;
  datasource_id: string;
  scan_change: 'new' | 'changed' | 'reclassified' | null;
  table_name: string;
  field_name: string;
  review_status: string;
  level: string;
  classification_tag_id: number;
  classification_chain_path: string;
  severity: string | null;
  suggested_classification: { tag_id: number; chain_path: string; level: string } | null;
}

function crmCatalog(): FieldInput[] {
  const emails = ['email', 'email_address', 'contact_email', 'user_email', 'billing_email', 'work_email'];
  const times = ['created_at', 'updated_at', 'deleted_at', 'modified_at', 'inserted_at', 'processed_at'];
  return [
    ...emails.map((f, i) => ({
      table_name: `users_${i % 2}`,
      field_name: f,
      data_type: 'varchar',
      classification_chain_path: EMAIL,
    })),
    ...times.map((f, i) => ({
      table_name: `events_${i % 2}`,
      field_name: f,
      data_type: 'timestamp',
      classification_chain_path: TIMESTAMP,
    })),
    // Mislabelled: e-mail columns tagged as timestamps, the queue's top suspects, with a suggestion.
    {
      table_name: 'crm_contact',
      field_name: 'email',
      data_type: 'varchar',
      comment: 'e-mail address of the contact',
      classification_chain_path: TIMESTAMP,
    },
    {
      table_name: 'crm_contact',
      field_name: 'secondary_email',
      data_type: 'varchar',
      comment: 'another e-mail address of the contact',
      classification_chain_path: TIMESTAMP,
    },
  ];
}

describeEachDatabase('review queue in the browser', (kind) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let crm: string;
  let leads: string;
  let reviewer: { username: string; password: string };
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const token = await adminToken(t.app);
    crm = await createDatasource(t.app, token, 'crm');
    await importOk(t.app, token, crm, crmCatalog());
    const bulk = await createDatasource(t.app, token, 'warehouse');
    // More rows than a screenful, in two tags, so the first list draws a window that a narrowed list is shorter than.
    await importOk(t.app, token, bulk, [...manyFields(90, 'wh'), ...manyFields(30, 'ts', TIMESTAMP)]);
    leads = await createDatasource(t.app, token, 'leads');
    const emails = ['email', 'email_address', 'contact_email', 'lead_email', 'owner_email', 'reply_to_email'];
    await importOk(t.app, token, leads, [
      ...emails.map((f) => ({
        table_name: 'leads',
        field_name: f,
        data_type: 'varchar',
        classification_chain_path: EMAIL,
      })),
      ...['created_at', 'updated_at', 'converted_at'].map((f) => ({
        table_name: 'leads',
        field_name: f,
        data_type: 'timestamp',
        classification_chain_path: TIMESTAMP,
      })),
      // Mislabelled: an e-mail address tagged as a timestamp, with a suggestion.
      {
        table_name: 'lead_contacts',
        field_name: 'email',
        data_type: 'varchar',
        comment: 'e-mail address of the lead',
        classification_chain_path: TIMESTAMP,
      },
    ]);
    await t.app.services.metricsWorker.drain();
    reviewer = await createUser(t.app, ['operator'], { token, username: 'rita-reviewer' });
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
  });

  const newPage = (): Promise<{ page: Page; problems: string[] }> => watchedPage(browser, contexts);

  async function signIn(page: Page, where: string): Promise<void> {
    await page.goto(base + where);
    await page.getByLabel('Username').fill(reviewer.username);
    await page.getByLabel('Password').fill(reviewer.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
  }

  async function apiField(id: string): Promise<ApiField> {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fields/${id}`,
      headers: bearer(await adminToken(t.app)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<ApiField>();
  }

  async function apiList(query: string): Promise<ApiField[]> {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fields?${query}`,
      headers: bearer(await adminToken(t.app)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ items: ApiField[] }>().items;
  }

  const isListCall = (r: Response) => new URL(r.url()).pathname === '/api/v1/fields' && r.request().method() === 'GET';

  /** Does `change` and returns the list the API answered for it, with the query the page sent. */
  async function listAfter(
    page: Page,
    change: () => Promise<void>,
  ): Promise<{ items: ApiField[]; query: URLSearchParams }> {
    const [response] = await Promise.all([page.waitForResponse(isListCall, { timeout: 10_000 }), change()]);
    assert.equal(response.status(), 200);
    return {
      items: ((await response.json()) as { items: ApiField[] }).items,
      query: new URL(response.url()).searchParams,
    };
  }

  /** What the grid shows: the rows drawn (place and field id) and the size it announces; null while a list loads. */
  async function shown(
    page: Page,
  ): Promise<{ rowcount: number; drawn: Array<[number, string]>; selected: number } | { empty: true } | null> {
    // A string, evaluated in the page (the tests are compiled without the DOM's types).
    return page.evaluate(`(() => {
      const grid = document.querySelector('.queue[role="grid"]');
      if (!grid) return document.querySelector('p.empty') ? { empty: true } : null;
      if (grid.getAttribute('aria-busy') === 'true') return null;
      const drawn = [...grid.querySelectorAll('.row[data-field-id]')].map((r) => [Number(r.dataset.index), r.dataset.fieldId]);
      const count = document.querySelector('[data-testid="selected-count"]')?.textContent ?? '0';
      return { rowcount: Number(grid.getAttribute('aria-rowcount')), drawn, selected: Number.parseInt(count, 10) };
    })()`);
  }

  /** The grid shows exactly `items`: its size, and every drawn row is the item at that place (the window from the top). */
  async function assertShows(page: Page, items: ApiField[], what: string): Promise<void> {
    let last: Awaited<ReturnType<typeof shown>> = null;
    const expected = (s: NonNullable<typeof last>) => {
      if (items.length === 0) return 'empty' in s;
      if ('empty' in s) return false;
      return (
        s.rowcount === items.length + 1 &&
        s.drawn.length > 0 &&
        s.drawn.length <= items.length &&
        s.drawn.every(([i, id], n) => i === n && items[i]?.id === id)
      );
    };
    for (let tries = 0; tries < 100; tries++) {
      last = await shown(page);
      if (last && expected(last)) break;
      await page.waitForTimeout(50);
    }
    assert.ok(
      last && expected(last),
      `${what}: the grid shows ${JSON.stringify(last)}, the API listed ${items.length}: ${JSON.stringify(items.slice(0, 30).map((f) => f.id))}`,
    );
    // Everything the list holds is drawn when it fits the window.
    if (items.length > 0 && items.length <= 20 && last && !('empty' in last))
      assert.equal(last.drawn.length, items.length, what);
  }

  const rows = (page: Page) => page.locator('.queue .row[data-field-id]');
  // A select's accessible name is its label followed by the chosen option: matched by its start.
  const filter = (page: Page, label: string) =>
    page
      .getByRole('form', { name: 'Queue filters' })
      .getByRole(label === 'Search' ? 'searchbox' : 'combobox', { name: new RegExp(`^${label}\\b`) });

  it('shows exactly the list the API gave after narrowing by every filter, order and page size', async () => {
    const { page, problems } = await newPage();
    const first = await listAfter(page, () => signIn(page, '/queue'));
    assert.equal(first.items.length, 100, 'the default page of 100 unreviewed fields');
    const emailLevel = (await apiList(`tag_id=${(await apiList('q=email_address'))[0]?.classification_tag_id}`))[0]
      ?.level as string;
    await assertShows(page, first.items, 'unfiltered');

    const steps: Array<[string, string, () => Promise<void>]> = [
      [
        'datasource_id',
        crm,
        () =>
          filter(page, 'Data source')
            .selectOption({ label: 'crm' })
            .then(() => undefined),
      ],
      [
        'datasource_id',
        '',
        () =>
          filter(page, 'Data source')
            .selectOption({ label: 'All' })
            .then(() => undefined),
      ],
      [
        'level',
        emailLevel,
        () =>
          filter(page, 'Level')
            .selectOption(emailLevel)
            .then(() => undefined),
      ],
      [
        'tag_id',
        '',
        () =>
          filter(page, 'Tag')
            .selectOption({ label: EMAIL })
            .then(() => undefined),
      ],
      [
        'level',
        '',
        () =>
          filter(page, 'Level')
            .selectOption({ label: 'All' })
            .then(() => undefined),
      ],
      [
        'tag_id',
        '',
        () =>
          filter(page, 'Tag')
            .selectOption({ label: 'All' })
            .then(() => undefined),
      ],
      [
        'severity',
        'high',
        () =>
          filter(page, 'Severity')
            .selectOption('high')
            .then(() => undefined),
      ],
      [
        'severity',
        'low',
        () =>
          filter(page, 'Severity')
            .selectOption('low')
            .then(() => undefined),
      ],
      [
        'severity',
        '',
        () =>
          filter(page, 'Severity')
            .selectOption('')
            .then(() => undefined),
      ],
      // Typed, not submitted: the search narrows as the reviewer types.
      ['q', 'email', () => filter(page, 'Search').pressSequentially('email', { delay: 30 })],
      [
        'review_status',
        'any',
        () =>
          filter(page, 'Review status')
            .selectOption('any')
            .then(() => undefined),
      ],
      [
        'sort',
        'name',
        () =>
          filter(page, 'Order')
            .selectOption({ label: 'Name' })
            .then(() => undefined),
      ],
      [
        'sort',
        'updated_at',
        () =>
          filter(page, 'Order')
            .selectOption({ label: 'Newest change' })
            .then(() => undefined),
      ],
      ['q', '', () => filter(page, 'Search').fill('')],
      [
        'limit',
        '50',
        () =>
          filter(page, 'Rows')
            .selectOption('50')
            .then(() => undefined),
      ],
      [
        'review_status',
        'confirmed',
        () =>
          filter(page, 'Review status')
            .selectOption('confirmed')
            .then(() => undefined),
      ],
    ];
    const sizes: number[] = [];
    for (const [param, value, change] of steps) {
      const { items, query } = await listAfter(page, change).catch((e: unknown) => {
        throw new Error(`${param}=${value}: ${String(e)} (at ${page.url()})`);
      });
      if (value !== '' && param !== 'review_status') assert.equal(query.get(param), value, `${param} sent`);
      if (param === 'tag_id' && value === '' && query.has('tag_id')) {
        for (const f of items) assert.equal(f.classification_chain_path, EMAIL);
      }
      await assertShows(page, items, `${param}=${value || query.get(param) || '(cleared)'}`);
      sizes.push(items.length);
      if (param === 'q' && value === 'email') {
        await screenshot(page, 'queue-narrowed');
        assert.deepEqual(await seriousViolations(page), [], 'narrowed queue');
      }
    }
    console.log(`# list sizes after each step: ${sizes.join(', ')}`);
    // The narrowing really narrowed (a grid that kept its old rows would fail above, not here).
    assert.ok(
      sizes.some((n) => n > 0 && n < 20),
      JSON.stringify(sizes),
    );
    assert.ok(sizes.includes(0) || sizes.some((n) => n < 100), JSON.stringify(sizes));
    assert.deepEqual(problems, []);
  });

  it('acts only on rows on screen: Select page, narrow, Confirm selected confirms the rows still shown and no other', async () => {
    const { page, problems } = await newPage();
    const all = await listAfter(page, () => signIn(page, `/queue?datasource_id=${crm}`));
    await assertShows(page, all.items, 'crm');
    assert.equal(all.items.length, 14);
    await page.getByRole('button', { name: 'Select page' }).click();
    await page.getByText('14 selected').waitFor();

    const narrowed = await listAfter(page, () =>
      filter(page, 'Tag')
        .selectOption({ label: TIMESTAMP })
        .then(() => undefined),
    );
    await assertShows(page, narrowed.items, 'tag=timestamp');
    assert.equal(narrowed.items.length, 8);
    // The ticks of the rows no longer shown are gone; the eight shown keep theirs.
    await page.getByText('8 selected').waitFor();
    assert.equal(await rows(page).locator('input[type="checkbox"]:checked').count(), 8);

    await page.getByTestId('batch-confirm').click();
    await page.getByRole('status').filter({ hasText: 'Confirmed 8, skipped 0, errors 0' }).waitFor();
    const shownIds = new Set(narrowed.items.map((f) => f.id));
    for (const f of all.items)
      assert.equal(
        (await apiField(f.id)).review_status,
        shownIds.has(f.id) ? 'confirmed' : 'unreviewed',
        `${f.table_name}.${f.field_name}`,
      );
    assert.deepEqual(problems, []);
  });

  it('takes no decision on the old rows while a narrowed list loads', async () => {
    const { page, problems } = await newPage();
    const all = await listAfter(page, () => signIn(page, `/queue?datasource_id=${crm}`));
    await assertShows(page, all.items, 'crm');
    const target = all.items[0] as ApiField;
    // Hold the next list answer until the test lets it through.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === '/api/v1/fields' && url.searchParams.has('severity'),
      async (route) => {
        await held;
        await route.continue();
      },
    );
    await filter(page, 'Severity').selectOption('high');
    await page.locator('.queue.stale[aria-busy="true"]').waitFor();
    const calls: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && /confirm|defer/.test(r.url())) calls.push(new URL(r.url()).pathname);
    });
    await page
      .locator(`.queue .row[data-field-id="${target.id}"]`)
      .getByRole('button', { name: /^Confirm / })
      .click();
    await page.locator(`.queue .row[data-field-id="${target.id}"]`).getByRole('checkbox').click();
    assert.equal(await page.getByRole('button', { name: 'Select page' }).isDisabled(), true);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('c');
    release();
    await page.locator('.queue[aria-busy="false"], p.empty').first().waitFor();
    assert.deepEqual(calls, [], 'no decision was sent');
    assert.equal((await apiField(target.id)).review_status, 'unreviewed');
    assert.equal(await page.getByTestId('selected-count').innerText(), '0 selected');
    await page.unroute(() => true);
    assert.deepEqual(problems, []);
  });

  it('keys as documented: j/k move the focus, Enter opens the current field, ? lists the keys', async () => {
    const { page, problems } = await newPage();
    const all = await listAfter(page, () => signIn(page, `/queue?datasource_id=${crm}&review_status=any&sort=name`));
    await assertShows(page, all.items, 'crm by name');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await page.locator('.queue .row.active[data-index="1"]').waitFor();
    // Focus follows the current row once the row has rendered (an effect after the render that marks it): wait for it,
    // a loaded machine can take a frame longer.
    await waitInPage(page, "document.activeElement?.dataset.index === '1'");
    assert.equal(await page.evaluate('document.activeElement?.dataset.index'), '1', 'the current row has the focus');

    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    for (const key of ['j', 'k', 'Enter', 'c', 'a', 'd', 'x', '?'])
      await dialog.locator('kbd', { hasText: new RegExp(`^${key.replace('?', '\\?')}$`) }).waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'keys dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // From anywhere on the page (not only with the row focused), Enter opens the current row.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/fields/${(all.items[1] as ApiField).id}`);
    assert.deepEqual(problems, []);
  });

  it('updates a decided row at once: after Accept no old score, severity, suggestion or Accept button; a lock icon drawn in SVG', async () => {
    const [field] = await apiList(`datasource_id=${leads}&q=lead_contacts&sort=name`);
    assert.ok(field?.suggested_classification, 'the mislabelled lead e-mail has a suggestion');
    const { page, problems } = await newPage();
    const all = await listAfter(page, () => signIn(page, `/queue?datasource_id=${leads}&q=lead_contacts`));
    await assertShows(page, all.items, 'lead_contacts');
    const row = page.locator(`.queue .row[data-field-id="${field.id}"]`);
    await row.locator('svg.minibars').waitFor();
    await row.getByRole('button', { name: /^Accept suggestion for/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Confirmed lead_contacts.${field.field_name}` })
      .waitFor();
    await row.getByText('confirmed', { exact: true }).waitFor();
    await row.locator('.path', { hasText: field.suggested_classification.chain_path }).waitFor();
    assert.equal(
      await row.getByRole('button', { name: /^Accept suggestion/ }).count(),
      0,
      'no Accept on a decided row',
    );
    assert.equal(await row.locator('.suggestion').count(), 0, 'no suggestion on a decided row');
    assert.equal(await row.locator('svg.minibars').count(), 0, 'no old minibars');
    assert.equal(await row.locator('.sev').count(), 0, 'no old severity');
    assert.equal((await row.locator('.num').innerText()).trim(), '–', 'no old score');
    assert.equal((await apiField(field.id)).classification_chain_path, field.suggested_classification.chain_path);
    // The lock is an SVG with a name, and no row shows an emoji (Debian's Chromium draws them as empty boxes).
    await row.locator('.lock svg[role="img"][aria-label="locked"]').waitFor();
    const text = await page.locator('.queue').innerText();
    assert.doesNotMatch(text, /\p{Extended_Pictographic}/u);
    assert.deepEqual(await seriousViolations(page), [], 'decided row');
    assert.deepEqual(problems, []);
  });
});

describeEachDatabase('review queue views in the browser', (kind) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let dir: string;
  let sample: string;
  let scanned: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    dir = sqliteScanDir();
    t = await buildTestApp(kind, { env: { FIELDLENS_SCAN_SQLITE_DIR: dir } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const token = await adminToken(t.app);
    // A stand-in for the built-in sample catalog: its fields would top the queue.
    sample = await createDatasource(t.app, token, 'Sample shop');
    await importOk(t.app, token, sample, [
      {
        table_name: 'shop_customers',
        field_name: 'email',
        data_type: 'varchar',
        comment: 'customer e-mail address',
        classification_chain_path: TIMESTAMP,
      },
      {
        table_name: 'shop_customers',
        field_name: 'created_at',
        data_type: 'timestamp',
        classification_chain_path: TIMESTAMP,
      },
    ]);
    await t.database.db.updateTable('datasources').set({ is_sample: 1 }).where('id', '=', sample).execute();
    // The reviewer's own source, scanned, changed, scanned again.
    const file = path.join(dir, 'people.db');
    const src = new BetterSqlite(file);
    src.exec(`
      create table people (id integer primary key, email text, note text, city text, contact text, info text);
      insert into people values (1, 'a@example.com', 'hello there', 'Paris', 'hello there', 'hello there');
    `);
    src.close();
    scanned = await createScannable(t.app, token, { kind: 'sqlite', database: file }, { name: 'hr' });
    assert.equal((await scanNow(t.app, token, scanned)).status, 'succeeded');
    const db = new BetterSqlite(file);
    db.exec(`
      delete from people;
      insert into people values (1, '2024-01-02', '2024-01-04', 'Paris', 'jane.doe@example.com', '+44 20 7946 0958');
      alter table people add column iban text;
    `);
    db.close();
    t.clock.advance(1000);
    assert.equal((await scanNow(t.app, token, scanned)).status, 'succeeded');
    await t.app.services.metricsWorker.drain();
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const isListCall = (r: Response) => new URL(r.url()).pathname === '/api/v1/fields' && r.request().method() === 'GET';

  async function listAfter(
    page: Page,
    change: () => Promise<unknown>,
  ): Promise<{ items: ApiField[]; query: URLSearchParams }> {
    const [response] = await Promise.all([page.waitForResponse(isListCall, { timeout: 10_000 }), change()]);
    assert.equal(response.status(), 200);
    return {
      items: ((await response.json()) as { items: ApiField[] }).items,
      query: new URL(response.url()).searchParams,
    };
  }

  /** The field ids drawn, in order, once the grid shows `count` rows (all fit the window here). */
  async function drawnIds(page: Page, count: number): Promise<string[]> {
    await page.locator(`.queue[aria-busy="false"][aria-rowcount="${count + 1}"]`).waitFor();
    return page
      .locator('.queue .row[data-field-id]')
      .evaluateAll((rs) => rs.map((r) => r.getAttribute('data-field-id') as string));
  }

  async function apiList(query: string): Promise<ApiField[]> {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fields?${query}`,
      headers: bearer(await adminToken(t.app)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ items: ApiField[] }>().items;
  }

  it('hides the sample data once a real source exists, with a visible toggle; shows what the last scan changed', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

    const first = await listAfter(page, async () => {
      await page.goto(base + '/queue');
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    });
    assert.equal(first.query.get('include_sample'), 'false', 'a real source exists: the sample data is left out');
    assert.ok(first.items.length > 0 && first.items.every((f) => f.datasource_id === scanned));
    assert.deepEqual(
      await drawnIds(page, first.items.length),
      first.items.map((f) => f.id),
    );
    const toggle = page.getByRole('checkbox', { name: 'Show sample data' });
    assert.equal(await toggle.isChecked(), false);

    const withSample = await listAfter(page, () => toggle.check());
    assert.equal(withSample.query.get('include_sample'), 'true');
    assert.ok(withSample.items.some((f) => f.datasource_id === sample));
    assert.deepEqual(
      await drawnIds(page, withSample.items.length),
      withSample.items.map((f) => f.id),
    );
    await listAfter(page, () => toggle.uncheck());

    const changed = await listAfter(page, () =>
      page.getByRole('combobox', { name: /^View\b/ }).selectOption({ label: 'Changed since last scan' }),
    );
    assert.equal(changed.query.get('changed'), 'last_scan');
    const expected = await apiList(
      'changed=last_scan&review_status=unreviewed&include_sample=false&sort=risk&limit=100',
    );
    assert.deepEqual(
      changed.items.map((f) => f.id),
      expected.map((f) => f.id),
    );
    assert.deepEqual(
      new Set(expected.map((f) => f.scan_change)),
      new Set(['new', 'changed', 'reclassified']),
      'the fixture has each kind of change',
    );
    const ids = await drawnIds(page, expected.length);
    assert.deepEqual(
      ids,
      expected.map((f) => f.id),
    );
    // Each row says what the scan did to it.
    for (const f of expected) {
      const label = f.scan_change === 'reclassified' ? 're-classified' : String(f.scan_change);
      await page.locator(`.queue .row[data-field-id="${f.id}"] .change`, { hasText: label }).waitFor();
    }
    // The view combines with the order: newest change first.
    const newest = await listAfter(page, () =>
      page.getByRole('combobox', { name: /^Order\b/ }).selectOption({ label: 'Newest change' }),
    );
    assert.equal(newest.query.get('sort'), 'updated_at');
    assert.equal(newest.query.get('changed'), 'last_scan');
    assert.deepEqual(
      await drawnIds(page, newest.items.length),
      newest.items.map((f) => f.id),
    );
    await listAfter(page, () =>
      page.getByRole('combobox', { name: /^Order\b/ }).selectOption({ label: 'Risk (most suspicious first)' }),
    );
    await drawnIds(page, expected.length);
    assert.deepEqual(await seriousViolations(page), [], 'changed-since-scan view');
    await screenshot(page, 'queue-changed-since-scan');
    assert.deepEqual(problems, []);
  });
});
