// The README's configuration table is what an operator reads: it must name every variable the service reads, and no
// variable it does not read.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Variables the service reads: `env.NAME`, `env['NAME']` and names given as strings to the config's readers. */
function variablesRead(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(path.join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv(?:\.|\[['"`])([A-Z][A-Z0-9_]+)/g)) names.add(m[1] as string);
    for (const m of text.matchAll(/['"`]((?:FIELDLENS_[A-Z0-9_]+)|DATABASE_URL|LOG_LEVEL|PORT|HOST)['"`]/g))
      names.add(m[1] as string);
  }
  return names;
}

function variablesDocumented(): Set<string> {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  assert.ok(section, 'README has no "## Configuration" section');
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    const first = /^\| ([^|]+) \|/.exec(line)?.[1];
    if (!first) continue;
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1] as string);
  }
  return names;
}

test('the README configuration table names exactly the variables the service reads', () => {
  const read = variablesRead();
  const documented = variablesDocumented();
  assert.ok(
    read.size >= 25,
    `found only ${read.size} variables in src/: the pattern no longer matches the config's readers`,
  );
  assert.deepEqual(
    [...read].filter((n) => !documented.has(n)).sort(),
    [],
    'read by the service but missing from the README table',
  );
  assert.deepEqual([...documented].filter((n) => !read.has(n)).sort(), [], 'in the README table but read nowhere');
});
