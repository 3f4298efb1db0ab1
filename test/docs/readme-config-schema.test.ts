// The README's configuration table and the declared environment (src/config-env.ts) list the same variables with the
// same defaults: a variable added, removed or given a new default in the schema fails here until the README says so.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { configVariables } from '../../src/config-env.js';

/** Variable → its Default cell, from the README's "## Configuration" table (a row may name several variables). */
function documentedDefaults(): Map<string, string> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  assert.ok(section, 'README has no "## Configuration" section');
  const defaults = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\| ([^|]+) \| ([^|]+) \|/.exec(line);
    if (!cells) continue;
    const names = [...(cells[1] as string).matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] as string);
    if (names.length === 0) continue;
    const cell = (cells[2] as string).trim();
    // `A`, `B` | `1`, `2`: one default each; `A`, `B` | — : the same for all.
    const parts = names.length > 1 ? cell.split(', ') : [cell];
    names.forEach((name, i) => {
      assert.ok(!defaults.has(name), `${name} is in the README table twice`);
      defaults.set(name, parts.length === names.length ? (parts[i] as string) : cell);
    });
  }
  return defaults;
}

/** The Default cell the README should show for a variable of the schema. */
function expectedDefault(schema: { default?: unknown; defaultText?: string }): string {
  if (schema.defaultText !== undefined) return schema.defaultText;
  if (schema.default === undefined) return '—';
  return `\`${typeof schema.default === 'boolean' ? (schema.default ? 'on' : 'off') : String(schema.default)}\``;
}

test('the README configuration table lists exactly the declared variables, with their defaults', () => {
  const documented = documentedDefaults();
  const declared = configVariables();
  assert.ok(declared.length >= 40, `only ${declared.length} variables declared`);
  assert.deepEqual(
    [...documented.keys()].sort(),
    declared.map(([name]) => name).sort(),
    'the README table and src/config-env.ts name different variables',
  );
  for (const [name, schema] of declared)
    assert.equal(documented.get(name), expectedDefault(schema), `the README's default of ${name}`);
});
