/**
 * The field page end to end (Debian's Chromium through playwright-core, the real service on a fresh SQLite database):
 * a reviewer decides where the evidence is — Confirm, Change…, Defer, Accept suggestion — and the page shows the new
 * state, its metrics once recomputed; an observer sees no decision; the evidence shows what won and the runners-up with what spoke for them and
 * what cost them; the minibars are coloured by the field's own fit, and not at all for a field rated low.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, createUser, type TestApp } from '../helpers/app.js';
import { createDatasource, importOk, type FieldInput } from '../modules/fields/factories.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations, watchedPage } from './harness.js';

const EMAIL = 'Personal/Contact/Email address';
const LABELS: Record<string, string> = {
  category_anchor: 'Category anchor',
  centroid: 'Level centroid',
  peer_mean: 'Peer mean',
  nearest: 'Nearest field',
  lower_quartile: 'Lower quartile',
  farthest: 'Farthest peer',
};
const TIMESTAMP = 'Technical/Timestamp';

interface ApiField {
  id: string;
  table_name: string;
  field_name: string;
  review_status: string;
  classification_chain_path: string;
  level: string;
  lock_level: string | null;
  suggested_classification: { tag_id: number; chain_path: string; level: string } | null;
  classification_evidence: Array<{ factor: string; score: number; detail: string; for?: string }>;
}
interface ApiMinibar {
  field_id: string;
  severity: 'low' | 'medium' | 'high';
  scores: Record<string, number>;
  unusual_level: { level: string; peers_at_level: number; peers: number; usual_level: string } | null;
}

function catalog(): FieldInput[] {
  const emails = ['email', 'email_address', 'contact_email', 'lead_email', 'owner_email', 'reply_to_email'];
  const times = ['created_at', 'updated_at', 'converted_at', 'deleted_at', 'modified_at'];
  return [
    ...emails.map((f) => ({
      table_name: 'leads',
      field_name: f,
      data_type: 'varchar',
      classification_chain_path: EMAIL,
    })),
    ...times.map((f) => ({
      table_name: 'leads',
      field_name: f,
      data_type: 'timestamp',
      classification_chain_path: TIMESTAMP,
    })),
    // Mislabelled: e-mail addresses tagged as timestamps, each with a suggestion to accept.
    {
      table_name: 'lead_contacts',
      field_name: 'email',
      data_type: 'varchar',
      comment: 'e-mail address of the lead',
      classification_chain_path: TIMESTAMP,
    },
    {
      table_name: 'lead_contacts',
      field_name: 'secondary_email',
      data_type: 'varchar',
      comment: 'another e-mail address of the lead',
      classification_chain_path: TIMESTAMP,
    },
    // Classified by the classifier: the name points to a quantity, the boolean samples decide otherwise.
    {
      table_name: 'stock_moves',
      field_name: 'units_on_hand',
      data_type: 'varchar(5)',
      sample_values: Array.from({ length: 25 }, (_, i) => (i % 3 === 0 ? 'true' : 'false')),
    },
  ];
}

describe('field page [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let source: string;
  let reviewer: { username: string; password: string };
  let observer: { username: string; password: string };
  const contexts: BrowserContext[] = [];
  const byName = new Map<string, ApiField>();

  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const token = await adminToken(t.app);
    source = await createDatasource(t.app, token, 'leads-db');
    await importOk(t.app, token, source, catalog());
    await t.app.services.metricsWorker.drain();
    const listed = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/fields?datasource_id=${source}&limit=100&sort=name`,
        headers: bearer(token),
      })
    ).json<{ items: ApiField[] }>().items;
    for (const f of listed) byName.set(`${f.table_name}.${f.field_name}`, f);
    reviewer = await createUser(t.app, ['operator'], { token, username: 'rita-reviewer' });
    observer = await createUser(t.app, ['observer'], { token, username: 'otto-observer' });
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
  });

  const newPage = (): Promise<{ page: Page; problems: string[] }> =>
    watchedPage(browser, contexts, { viewport: { width: 1400, height: 1000 } });

  async function signIn(page: Page, who: { username: string; password: string }, path: string): Promise<void> {
    await page.goto(base + path);
    await page.getByLabel('Username').fill(who.username);
    await page.getByLabel('Password').fill(who.password);
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

  async function minibars(ids: string[]): Promise<ApiMinibar[]> {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classify/fields/embedding-minibars',
      headers: bearer(await adminToken(t.app)),
      payload: { field_ids: ids },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ items: ApiMinibar[] }>().items;
  }

  async function assertAccessible(page: Page, name: string): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `${name}: ${JSON.stringify(violations, null, 1)}`);
  }

  const known = (name: string): ApiField => {
    const f = byName.get(name);
    assert.ok(f, `${name} was imported`);
    return f;
  };

  const decisions = (page: Page) => page.getByRole('group', { name: 'Decisions' });
  const reviewStatus = (page: Page) => page.locator('.facts .review');

  it('confirms a field from its page, and the page shows it confirmed with its level locked', async () => {
    const f = known('leads.created_at');
    const { page, problems } = await newPage();
    await signIn(page, reviewer, `/fields/${f.id}`);
    await page.locator('table.axes').waitFor();
    assert.equal(await reviewStatus(page).innerText(), 'unreviewed');
    await assertAccessible(page, 'field page with decisions');
    await decisions(page).getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Confirmed leads.created_at.' }).waitFor();
    await reviewStatus(page).filter({ hasText: 'confirmed' }).waitFor();
    await page.getByText('(level locked)').waitFor();
    const after = await apiField(f.id);
    assert.equal(after.review_status, 'confirmed');
    assert.equal(after.lock_level, f.level);
    assert.equal(after.classification_chain_path, f.classification_chain_path);
    assert.deepEqual(problems, []);
  });

  it('changes the tag and level through Change…, with the same tag picker as the queue', async () => {
    const f = known('leads.converted_at');
    const { page, problems } = await newPage();
    await signIn(page, reviewer, `/fields/${f.id}`);
    await page.locator('table.axes').waitFor();
    await decisions(page).getByRole('button', { name: 'Change…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm with another tag or level' });
    const picker = dialog.getByRole('combobox', { name: /^Tag/ });
    await picker.fill('contact email');
    await dialog.getByRole('option', { name: /Personal\/Contact\/Email address/ }).click();
    await dialog.getByLabel('Level').selectOption('L4');
    await assertAccessible(page, 'change dialog');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Confirmed leads.converted_at' }).waitFor();
    await page.locator('.facts dd', { hasText: EMAIL }).waitFor();
    const after = await apiField(f.id);
    assert.equal(after.classification_chain_path, EMAIL);
    assert.equal(after.level, 'L4');
    assert.equal(after.review_status, 'confirmed');
    assert.deepEqual(problems, []);
  });

  it('defers with a required reason, and the page shows it deferred with the reason in its history', async () => {
    const f = known('leads.deleted_at');
    const { page, problems } = await newPage();
    await signIn(page, { username: 'admin', password: ADMIN_PASSWORD }, `/fields/${f.id}`);
    await page.locator('table.axes').waitFor();
    await decisions(page).getByRole('button', { name: 'Defer…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Defer this field' });
    assert.equal(
      await dialog.getByRole('button', { name: 'Defer' }).isDisabled(),
      true,
      'no deferral without a reason',
    );
    await dialog.getByLabel('Reason (required)').fill('Ask the owner whether rows are soft-deleted');
    await assertAccessible(page, 'defer dialog');
    await dialog.getByRole('button', { name: 'Defer' }).click();
    await page.getByRole('status').filter({ hasText: 'Deferred leads.deleted_at.' }).waitFor();
    await reviewStatus(page).filter({ hasText: 'deferred' }).waitFor();
    await page.getByTestId('history').getByText('Ask the owner whether rows are soft-deleted').waitFor();
    assert.equal((await apiField(f.id)).review_status, 'deferred');
    assert.deepEqual(problems, []);
  });

  it('accepts the suggested classification in one action; the suggestion and its button then go', async () => {
    const f = known('lead_contacts.email');
    const s = f.suggested_classification;
    assert.ok(s, 'the mislabelled e-mail has a suggestion');
    const { page, problems } = await newPage();
    await signIn(page, reviewer, `/fields/${f.id}`);
    await page.locator('table.axes').waitFor();
    await page.getByTestId('suggestion').filter({ hasText: s.chain_path }).waitFor();
    await screenshot(page, 'field-decisions');
    const accept = decisions(page).getByRole('button', { name: `Accept suggestion: ${s.chain_path} ${s.level}` });
    await accept.click();
    await page
      .getByRole('status')
      .filter({ hasText: `Confirmed lead_contacts.email as ${s.chain_path} ${s.level}.` })
      .waitFor();
    await reviewStatus(page).filter({ hasText: 'confirmed' }).waitFor();
    assert.equal(await accept.count(), 0, 'no Accept once confirmed');
    assert.equal(await page.getByTestId('suggestion').count(), 0);
    // The metrics follow in the background; the page says so, then shows the new score and severity.
    await page.getByTestId('recomputing').waitFor();
    await t.app.services.metricsWorker.drain();
    await page.getByTestId('recomputing').waitFor({ state: 'detached' });
    await page.locator('.sev-low').waitFor();
    const after = await apiField(f.id);
    assert.equal(after.classification_chain_path, s.chain_path);
    assert.equal(after.level, s.level);
    assert.equal(after.review_status, 'confirmed');
    assert.deepEqual(problems, []);
  });

  it('gives an observer the evidence but no decision', async () => {
    const f = known('lead_contacts.secondary_email');
    const { page, problems } = await newPage();
    await signIn(page, observer, `/fields/${f.id}`);
    await page.locator('table.axes').waitFor();
    await page.getByTestId('read-only').waitFor();
    assert.equal(await decisions(page).count(), 0);
    for (const name of [/^Confirm/, /^Change/, /^Defer/, /^Accept/])
      assert.equal(await page.getByRole('button', { name }).count(), 0, `no ${name} button`);
    await assertAccessible(page, 'observer field page');
    assert.equal((await apiField(f.id)).review_status, 'unreviewed');
    assert.deepEqual(problems, []);
  });

  it('shows what won and the runners-up with what spoke for them and what cost them', async () => {
    const f = known('stock_moves.units_on_hand');
    const lost = f.classification_evidence.filter((e) => e.for !== undefined);
    assert.ok(lost.length > 0, 'the classifier recorded runners-up');
    const { page, problems } = await newPage();
    await signIn(page, reviewer, `/fields/${f.id}`);
    await page.locator('table.axes').waitFor();
    const won = page.getByTestId('evidence-won');
    assert.match(
      await won.locator('caption').innerText(),
      new RegExp(`^Won: ${f.classification_chain_path} ${f.level}`),
    );
    assert.equal(
      await won.locator('tbody tr').count(),
      f.classification_evidence.filter(
        (e) => e.for === undefined && !(e.factor === 'data_type' && e.score < 0 && / rules out /.test(e.detail)),
      ).length,
    );
    const quantity = page
      .getByTestId('evidence-lost')
      .filter({ has: page.locator('caption', { hasText: 'Lost: Business/Products/Quantity' }) });
    await quantity.waitFor();
    // The name spoke for Quantity; the boolean samples cost it the answer.
    await quantity.locator('tr', { hasText: 'Column name' }).filter({ hasText: 'for it' }).waitFor();
    await quantity.locator('tr', { hasText: 'Sample value formats' }).filter({ hasText: 'against it' }).waitFor();
    assert.equal(await page.getByTestId('evidence-lost').count(), new Set(lost.map((e) => e.for)).size);
    await assertAccessible(page, 'field evidence');
    await page.getByRole('heading', { name: 'Metrics' }).evaluate((el) => el.scrollIntoView());
    await screenshot(page, 'field-evidence');
    assert.deepEqual(problems, []);
  });

  it("colours the minibars by the field's own fit (red below 0.10, amber below 0.25, none for a field rated low) and says which are low", async () => {
    const items = await minibars([...byName.values()].map((f) => f.id));
    const min = (m: ApiMinibar) => Math.min(...Object.values(m.scores));
    const lowButWeak = items.find((m) => m.severity === 'low' && min(m) < 0.25);
    const suspicious = items.find((m) => m.severity !== 'low' && min(m) < 0.25);
    assert.ok(lowButWeak, 'a field rated low with an axis below 0.25');
    assert.ok(suspicious, 'a suspicious field with an axis below 0.25');
    const { page, problems } = await newPage();
    await signIn(page, observer, `/fields/${lowButWeak.field_id}`);
    await page.locator('svg.minibars').waitFor();
    assert.equal(
      await page.locator('svg.minibars rect.bar.poor, svg.minibars rect.bar.weak').count(),
      0,
      'a field rated low shows no warning bars',
    );

    await page.goto(`${base}/fields/${suspicious.field_id}`);
    await page.locator('svg.minibars').waitFor();
    for (const [axis, score] of Object.entries(suspicious.scores)) {
      const expected = score < 0.1 ? 'bar poor' : score < 0.25 ? 'bar weak' : 'bar';
      assert.equal(
        await page.locator(`svg.minibars rect[data-axis="${axis}"]`).getAttribute('class'),
        expected,
        `${axis} ${score}`,
      );
    }
    // The page says in words which bars are low, lowest first, and what each one means for this field.
    const low = Object.entries(suspicious.scores)
      .filter(([, score]) => score < 0.25)
      .sort((a, b) => a[1] - b[1]);
    const phrases = await page.getByTestId('low-axes').locator('li').allTextContents();
    assert.equal(phrases.length, low.length, phrases.join(' | '));
    low.forEach(([axis, score], i) =>
      assert.ok(phrases[i]!.startsWith(`${LABELS[axis]} (${score.toFixed(2)}): `), `${phrases[i]} for ${axis}`),
    );
    assert.match(
      await page.locator('.legend').first().innerText(),
      /near 1 it looks like the fields that carry\s+this classification, near 0 like the fields that do not/,
    );

    // A field whose bars are all high says so.
    const fits = items.find((m) => Math.min(...Object.values(m.scores)) >= 0.25);
    assert.ok(fits, 'a field with no low bar');
    await page.goto(`${base}/fields/${fits.field_id}`);
    await page.getByTestId('low-axes').waitFor();
    assert.match(await page.getByTestId('low-axes').innerText(), /^No bar is low/);
    assert.deepEqual(problems, []);
  });
  it('shows a level error on the level bar, in words, with a screenshot', async () => {
    const token = await adminToken(t.app);
    const archive = await createDatasource(t.app, token, 'archive-db');
    // An e-mail address filed at L1 while every other e-mail field is at its tag's level: the tag is right, the level is not.
    await importOk(t.app, token, archive, [
      {
        table_name: 'lead_archive',
        field_name: 'email',
        data_type: 'varchar',
        classification_chain_path: EMAIL,
        level: 'L1',
      },
    ]);
    await t.app.services.metricsWorker.drain();
    const listed = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/fields?datasource_id=${archive}&limit=10`,
        headers: bearer(token),
      })
    ).json<{ items: ApiField[] }>().items;
    const wrongLevel = listed[0]!;
    assert.equal(wrongLevel.level, 'L1');
    const right = known('leads.email');
    assert.notEqual(right.level, 'L1');
    const [bars, rightBars] = await Promise.all([minibars([wrongLevel.id]), minibars([right.id])]);
    // The level bar is low for the field at the wrong level (its neighbours here include the two e-mail fields filed as
    // timestamps, at L1: it is not 0) and high for its twin at the right one.
    assert.ok(bars[0]!.scores.centroid! < 0.25, `centroid ${bars[0]!.scores.centroid}`);
    assert.ok(rightBars[0]!.scores.centroid! > 0.6, `centroid of leads.email ${rightBars[0]!.scores.centroid}`);

    const { page, problems } = await newPage();
    await signIn(page, reviewer, `/fields/${wrongLevel.id}`);
    await page.getByTestId('low-axes').waitFor();
    const text = await page.getByTestId('low-axes').innerText();
    assert.match(text, /Level centroid \(0\.\d\d\): it looks more like fields at other levels than like those at L1/);
    // The four tag bars are low too, and say why in the level's terms, not as a distance.
    assert.equal(bars[0]!.unusual_level?.level, 'L1');
    assert.equal(rightBars[0]!.unusual_level, null);
    assert.match(
      text,
      /Peer mean \(0\.\d\d\): (only \d+ of the \d+ other fields tagged Personal\/Contact\/Email address (is|are) L1|none of the \d+ other fields tagged Personal\/Contact\/Email address is L1); most are L\d/,
    );
    await screenshot(page, 'field-level-error');

    // In the queue, its row's bars say the same (the bars' accessible label carries each score).
    await page.goto(`${base}/queue?q=email`);
    const row = page.locator(`.queue .row[data-field-id="${wrongLevel.id}"]`);
    await row.waitFor();
    const label = (await row.locator('svg.minibars').getAttribute('aria-label')) ?? '';
    const peerMean = Number(/Peer mean (\d\.\d\d)/.exec(label)?.[1]);
    assert.ok(peerMean < 0.25, label);
    await screenshot(page, 'queue-level-error');
    assert.deepEqual(problems, []);
  });
});
