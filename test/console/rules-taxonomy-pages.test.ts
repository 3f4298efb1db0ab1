/**
 * The Rules and Taxonomy pages as a person uses them (Debian's Chromium through playwright-core, the real service on
 * SQLite): a rule created with its live preview (the count checked against the API), a pattern RE2 refuses named next
 * to its field, disable, reorder, delete; the field page naming the rule that decided a field; the tag tree's counts,
 * rename, a move refused as a cycle, a new default level, delete refused without a replacement then done with one
 * (the fields moved, checked through the API); an observer sees both pages without a single edit control. Checked with
 * axe. Writes the screenshots docs/console/rules.png and docs/console/taxonomy.png show.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, createUser, json, type TestApp } from '../helpers/app.js';
import { createDatasource, importOk } from '../modules/fields/factories.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations, watchedPage } from './harness.js';

interface RuleItem {
  id: string;
  name: string;
  priority: number;
  enabled: boolean;
}
interface TagItem {
  id: number;
  name: string;
  parent_id: number | null;
  chain_path: string;
  default_level: string;
}

describe('console rules and taxonomy pages [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let token: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let crm: string;
  let observer: { username: string; password: string };
  let owner: { username: string; password: string };
  const contexts: BrowserContext[] = [];

  const api = async <T>(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object): Promise<T> => {
    const response = await t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return json<T>(response);
  };
  const rules = async () => (await api<{ items: RuleItem[] }>('GET', '/api/v1/classification/rules')).items;
  const tags = async () => (await api<{ items: TagItem[] }>('GET', '/api/v1/classification/tags')).items;
  const tagByPath = async (path: string) => (await tags()).find((x) => x.chain_path === path);

  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    token = await adminToken(t.app);
    crm = await createDatasource(t.app, token, 'CRM');
    // Fields the classifier decides (no classification given): what a rule may take.
    await importOk(t.app, token, crm, [
      { table_name: 'kunden', field_name: 'treuekarte_nr', data_type: 'text' },
      { table_name: 'mitglieder', field_name: 'treuekarte_nummer', data_type: 'varchar(20)' },
      { table_name: 'filialen', field_name: 'treuekarte_id', data_type: 'integer' },
      { table_name: 'kunden', field_name: 'nachname', data_type: 'text' },
    ]);
    // A taxonomy of the organisation's own, with fields an import classified.
    const loyalty = await api<TagItem>('POST', '/api/v1/classification/tags', { name: 'Loyalty', default_level: 'L2' });
    await api<TagItem>('POST', '/api/v1/classification/tags', {
      name: 'Card',
      parent_id: loyalty.id,
      default_level: 'L3',
    });
    await api<TagItem>('POST', '/api/v1/classification/tags', { name: 'Legacy', default_level: 'L1' });
    await importOk(t.app, token, crm, [
      { table_name: 'alt', field_name: 'code_a', data_type: 'text', classification_chain_path: 'Legacy', level: 'L1' },
      { table_name: 'alt', field_name: 'code_b', data_type: 'text', classification_chain_path: 'Legacy', level: 'L2' },
    ]);
    observer = await createUser(t.app, ['observer'], { token, username: 'olga-observer' });
    owner = await createUser(t.app, ['classifier_owner'], { token, username: 'cora-owner' });
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
  });

  async function signIn(
    page: Page,
    path: string,
    heading: string,
    user = { username: 'admin', password: ADMIN_PASSWORD },
  ): Promise<void> {
    await page.goto(`${base}${path}`);
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  async function assertAccessible(page: Page): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations, null, 1));
  }

  async function pickTag(
    page: Page,
    scope: ReturnType<Page['locator']> | Page,
    label: string,
    words: string,
    option: string,
  ): Promise<void> {
    const input = scope.getByRole('combobox', { name: label, exact: true });
    await input.fill(words);
    await scope.getByRole('option', { name: new RegExp(`^${option.replace(/[/]/g, '\\/')} `) }).click();
    assert.equal(await input.inputValue(), option);
  }

  it('creates a rule with a live preview, names a refused pattern, and disables, reorders and deletes rules', async () => {
    const { page, problems } = await watchedPage(browser, contexts);
    await signIn(page, '/rules', 'Classification rules');
    await page.getByTestId('no-rules').waitFor();
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Name', { exact: true }).fill('loyalty card');
    await pickTag(page, page, 'Tag', 'loyalty card', 'Loyalty/Card');
    await page.getByLabel('Column name pattern').fill('^treuekarte');
    // The live preview: the count is the API's answer for the same rule.
    const expected = await api<{ matched: number }>('POST', '/api/v1/classification/rules/preview', {
      rule: { name: 'x', tag_id: (await tagByPath('Loyalty/Card'))!.id, match: { column_name: '^treuekarte' } },
    });
    assert.equal(expected.matched, 3);
    await page
      .getByTestId('preview-count')
      .filter({ hasText: '3 fields in the catalog would be decided by this rule' })
      .waitFor();
    assert.deepEqual((await page.locator('.preview-items tbody tr td:nth-child(2)').allInnerTexts()).sort(), [
      'treuekarte_id',
      'treuekarte_nr',
      'treuekarte_nummer',
    ]);
    await page.getByRole('group', { name: 'Type families' }).getByLabel('text', { exact: true }).check();
    const narrowed = await api<{ matched: number; items: Array<{ field_name: string }> }>(
      'POST',
      '/api/v1/classification/rules/preview',
      {
        rule: {
          name: 'x',
          tag_id: (await tagByPath('Loyalty/Card'))!.id,
          match: { column_name: '^treuekarte', data_type_family: ['text'] },
        },
      },
    );
    assert.deepEqual(
      narrowed.items.map((i) => i.field_name).sort(),
      ['treuekarte_nr', 'treuekarte_nummer'],
      'text and varchar are of the text family',
    );
    await page
      .getByTestId('preview-count')
      .filter({ hasText: /^2 fields in the catalog/ })
      .waitFor();

    // A backreference cannot run in linear time: RE2 refuses it, and the page says so next to the field.
    await page.getByLabel('Table name pattern').fill('(kunden)\\1');
    const refusal = page.getByTestId('rule-table-error');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /cannot be run in linear time/);
    assert.equal(await page.getByLabel('Table name pattern').getAttribute('aria-invalid'), 'true');
    await assertAccessible(page);
    await screenshot(page, 'rules-refused');
    await page.getByLabel('Table name pattern').fill('');
    await page
      .getByTestId('preview-count')
      .filter({ hasText: /^2 fields/ })
      .waitFor();
    await screenshot(page, 'rules-form');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('Created rule loyalty card').waitFor();
    assert.deepEqual(
      (await rules()).map((r) => [r.name, r.priority, r.enabled]),
      [['loyalty card', 0, true]],
    );

    // A second rule of the same priority is tried after the older one; "up" puts it first. (The test clock stands
    // still: a second later, so "older" is not left to the ids.)
    t.clock.set(new Date(t.clock.now().getTime() + 1000));
    await api('POST', '/api/v1/classification/rules', {
      name: 'member numbers',
      tag_id: (await tagByPath('Loyalty'))!.id,
      match: { table_name: '^mitglieder$' },
    });
    await page.reload();
    await page.locator('tr[data-rule="member numbers"]').waitFor();
    assert.deepEqual(await page.locator('table.rules tbody th').allInnerTexts(), ['loyalty card', 'member numbers']);
    assert.match(
      await page.locator('tr[data-rule="loyalty card"]').innerText(),
      /Loyalty\/Card\s+tag default \(L3\)[\s\S]*column name matches \/\^treuekarte\/ and type is text[\s\S]*every data source/,
    );
    await page.getByRole('button', { name: 'Move member numbers up' }).click();
    await page.getByText('Moved member numbers up.').waitFor();
    assert.deepEqual(await page.locator('table.rules tbody th').allInnerTexts(), ['member numbers', 'loyalty card']);
    assert.deepEqual(
      (await rules()).map((r) => r.name),
      ['member numbers', 'loyalty card'],
      'the order the server tries them in',
    );

    // Edit: the form opens with the rule as it is; a typed priority and a level are saved, the rest kept.
    await page.getByRole('button', { name: 'Edit member numbers' }).click();
    const edit = page.getByRole('form', { name: 'Edit rule member numbers' });
    assert.equal(await edit.getByLabel('Table name pattern').inputValue(), '^mitglieder$');
    assert.equal(await edit.getByRole('combobox', { name: 'Tag', exact: true }).inputValue(), 'Loyalty');
    await edit
      .getByTestId('preview-count')
      .filter({ hasText: /^1 field in the catalog/ })
      .waitFor();
    await edit.getByLabel('Priority (higher is tried first)').fill('7');
    await edit.getByLabel('Level').selectOption('L4');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Saved rule member numbers').waitFor();
    const edited = (
      await api<{ items: Array<RuleItem & { level: string | null; match: object }> }>(
        'GET',
        '/api/v1/classification/rules',
      )
    ).items.find((r) => r.name === 'member numbers');
    assert.deepEqual([edited?.priority, edited?.level, edited?.match], [7, 'L4', { table_name: '^mitglieder$' }]);
    assert.match(await page.locator('tr[data-rule="member numbers"]').innerText(), /^7\s/);

    // The field page says which rule decided a field (a field imported now is decided by the rules at once).
    const { field_ids } = await importOk(t.app, token, crm, [
      { table_name: 'kasse', field_name: 'treuekarte_code', data_type: 'text' },
    ]);
    await page.goto(`${base}/fields/${field_ids[0]}`);
    const decided = page.getByTestId('decided-by-rule');
    await decided.waitFor();
    assert.equal((await decided.innerText()).trim(), 'Decided by rule loyalty card');
    await decided.getByRole('link', { name: 'loyalty card' }).click();
    await page.getByRole('heading', { name: 'Classification rules', level: 1 }).waitFor();
    await page.locator('tr.highlight[data-rule="loyalty card"]').waitFor();

    await page.getByRole('checkbox', { name: /rule loyalty card/ }).uncheck();
    await page.getByText('Disabled loyalty card.').waitFor();
    assert.equal((await rules()).find((r) => r.name === 'loyalty card')?.enabled, false);
    await assertAccessible(page);
    await screenshot(page, 'rules');

    await page.getByRole('button', { name: 'Delete loyalty card' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete rule loyalty card?' });
    await dialog.waitFor();
    await assertAccessible(page);
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Deleted loyalty card.').waitFor();
    assert.deepEqual(
      (await rules()).map((r) => r.name),
      ['member numbers'],
    );
    await assertAccessible(page);
    assert.deepEqual(problems, []);
  });

  it('shows the tag tree with counts, and renames, moves (a cycle refused), re-levels and deletes with a replacement', async () => {
    const { page, problems } = await watchedPage(browser, contexts);
    await signIn(page, '/taxonomy', 'Taxonomy');
    await page.getByRole('button', { name: 'Expand all' }).click();
    const legacyRow = page.locator('.tag-row[data-tag="Legacy"]');
    assert.match(await legacyRow.getByTestId('tag-counts').innerText(), /^2 fields \(L1 1, L2 1\)$/);

    await page.locator('.tag-row[data-tag="Loyalty/Card"]').getByRole('button', { name: 'Card' }).click();
    const panel = page.getByRole('complementary', { name: 'Loyalty/Card' });
    await panel.getByLabel('Name', { exact: true }).fill('Karte');
    await panel.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Renamed Loyalty/Card to Karte.').waitFor();
    assert.ok(await tagByPath('Loyalty/Karte'), 'renamed through the API');

    const karte = page.getByRole('complementary', { name: 'Loyalty/Karte' });
    await karte.getByLabel('Default level').selectOption('L4');
    await karte.getByRole('button', { name: 'Change default level' }).click();
    await page.getByText('The default level of Loyalty/Karte is now L4.').waitFor();
    assert.equal((await tagByPath('Loyalty/Karte'))?.default_level, 'L4');

    // Loyalty under its own child: refused as a cycle, explained, nothing changed.
    await page.locator('.tag-row[data-tag="Loyalty"]').getByRole('button', { name: 'Loyalty', exact: true }).click();
    const loyalty = page.getByRole('complementary', { name: 'Loyalty' });
    await pickTag(page, loyalty, 'New parent (empty: the root)', 'Loyalty Karte', 'Loyalty/Karte');
    await loyalty.getByRole('button', { name: 'Move under this parent' }).click();
    const hint = loyalty.getByTestId('tag-problem-hint');
    await hint.waitFor();
    assert.match(await hint.innerText(), /would make a cycle/);
    assert.equal(await loyalty.locator('[data-code="unprocessable"]').count(), 1);
    assert.equal((await tagByPath('Loyalty'))?.parent_id, null, 'not moved');
    await assertAccessible(page);

    // Delete Legacy: without a replacement the server refuses (fields use it), with one its fields move.
    const legacyIds = (
      await t.database.db
        .selectFrom('fields')
        .innerJoin('tags', 'tags.id', 'fields.tag_id')
        .select('fields.id')
        .where('tags.chain_path', '=', 'Legacy')
        .execute()
    ).map((r) => r.id);
    assert.equal(legacyIds.length, 2);
    await legacyRow.getByRole('button', { name: 'Legacy' }).click();
    await page.getByRole('complementary', { name: 'Legacy' }).getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Legacy?' });
    await dialog.getByRole('button', { name: 'Delete without a replacement' }).click();
    await dialog.getByTestId('tag-problem-hint').waitFor();
    assert.match(await dialog.getByTestId('tag-problem-hint').innerText(), /still classifies fields/);
    assert.ok(await tagByPath('Legacy'), 'a refused delete changes nothing');
    await pickTag(page, dialog, 'Replacement tag', 'Loyalty Karte', 'Loyalty/Karte');
    await assertAccessible(page);
    await dialog.getByRole('button', { name: 'Delete and move the fields' }).click();
    await page.getByText('Deleted Legacy; its fields and rules moved to Loyalty/Karte.').waitFor();
    assert.equal(await tagByPath('Legacy'), undefined);
    for (const id of legacyIds) {
      const moved = await api<{ classification_chain_path: string; level: string }>('GET', `/api/v1/fields/${id}`);
      assert.equal(moved.classification_chain_path, 'Loyalty/Karte', 'the field moved to the replacement');
    }
    // Karte's count is the inventory's: the two moved fields, plus the field the first test's rule decided (until the
    // background re-evaluation hands it back to the classifier).
    const report = await api<{
      by_tag: Array<{ chain_path: string; fields: number; by_level: Record<string, number> }>;
    }>('GET', '/api/v1/reports/inventory');
    const karteCount = report.by_tag.find((c) => c.chain_path === 'Loyalty/Karte');
    assert.ok(
      karteCount && karteCount.fields >= 2 && karteCount.by_level.L1 === 1 && karteCount.by_level.L2 === 1,
      JSON.stringify(karteCount),
    );
    const words = Object.entries(karteCount.by_level)
      .filter(([, n]) => n > 0)
      .map(([level, n]) => `${level} ${n}`)
      .join(', ');
    await page
      .locator('.tag-row[data-tag="Loyalty/Karte"]')
      .getByTestId('tag-counts')
      .filter({ hasText: `${karteCount.fields} fields (${words})` })
      .waitFor();
    await assertAccessible(page);
    // The picture for the docs: the organisation's branch open, its tag chosen.
    await page.getByRole('button', { name: 'Collapse all' }).click();
    await page.getByRole('button', { name: 'Expand Loyalty' }).click();
    await page.locator('.tag-row[data-tag="Loyalty/Karte"]').getByRole('button', { name: 'Karte' }).click();
    await page.getByRole('complementary', { name: 'Loyalty/Karte' }).waitFor();
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'taxonomy');
    assert.deepEqual(problems, []);
  });

  it('shows an observer both pages without a single edit control', async () => {
    const { page, problems } = await watchedPage(browser, contexts);
    await signIn(page, '/rules', 'Classification rules', observer);
    await page.getByTestId('rules-readonly').waitFor();
    await page.locator('tr[data-rule="member numbers"]').waitFor();
    assert.equal(
      await page.locator('section').getByRole('button').count(),
      0,
      'no New rule, Edit, Delete, order buttons',
    );
    assert.equal(await page.locator('table.rules input').count(), 0, 'no enable toggle');
    await assertAccessible(page);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Taxonomy' }).click();
    await page.getByTestId('taxonomy-readonly').waitFor();
    await page.getByRole('button', { name: 'Expand all' }).click();
    await page.locator('.tag-row[data-tag="Loyalty/Karte"]').getByRole('button', { name: 'Karte' }).click();
    const panel = page.getByRole('complementary', { name: 'Loyalty/Karte' });
    await panel.getByTestId('tag-levels').waitFor();
    assert.equal(await panel.getByRole('button').count(), 0, 'no Rename, Move, Delete');
    assert.equal(await panel.locator('input, select').count(), 0);
    await assertAccessible(page);
    assert.deepEqual(problems, []);
  });

  it('gives a classifier_owner (taxonomy:write without admin rights) the edit controls', async () => {
    const { page, problems } = await watchedPage(browser, contexts);
    await signIn(page, '/rules', 'Classification rules', owner);
    await page.getByRole('button', { name: 'New rule' }).waitFor();
    await page.getByRole('button', { name: 'Edit member numbers' }).waitFor();
    assert.equal(await page.getByTestId('rules-readonly').count(), 0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Taxonomy' }).click();
    await page.getByRole('button', { name: 'Loyalty', exact: true }).click();
    await page.getByRole('complementary', { name: 'Loyalty' }).getByRole('button', { name: 'Delete…' }).waitFor();
    assert.deepEqual(problems, []);
  });
});
