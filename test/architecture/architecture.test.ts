/**
 * docs/architecture.md is the map of the code: these tests derive from the code what the map claims (which module
 * writes which table, which files know the database dialect, that no runtime import goes round in a circle) and
 * compare. When one fails, fix the code or the map, not the test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((f) => {
    const rel = `${dir}/${f}`;
    return statSync(path.join(root, rel)).isDirectory() ? sourceFiles(rel) : rel.endsWith('.ts') ? [rel] : [];
  });
}
/** Code that runs in the service: everything under src/ but the migrations (they create the tables). */
const files = sourceFiles('src').filter((f) => !f.includes('/migrations/'));
const text = new Map(files.map((f) => [f, readFileSync(path.join(root, f), 'utf8')]));

/** The tables of the database, as db/schema.ts declares them. */
const tables = new Set(
  [...(text.get('src/db/schema.ts') as string).matchAll(/^export interface DB \{([\s\S]*?)^\}/gm)].flatMap((m) =>
    [...(m[1] as string).matchAll(/^\s+([a-z_]+):/gm)].map((t) => t[1] as string),
  ),
);

/** Who a file writes as: its module (`src/modules/<m>/…`), else its own path under src/. */
function ownerOf(file: string): string {
  const m = /^src\/modules\/([^/]+)\//.exec(file);
  return m ? (m[1] as string) : file.slice('src/'.length);
}

test('every table is written only by the module the architecture document names as its owner', () => {
  assert.ok(tables.size >= 10, `tables read from db/schema.ts: ${[...tables].join(', ')}`);
  // The document's table: | `module` | `table`, `table` | what it does |
  const owners = new Map<string, string>();
  for (const row of doc.matchAll(/^\| `([^`]+)` \| ([^|]+) \|/gm)) {
    for (const t of (row[2] as string).matchAll(/`([a-z_]+)`/g))
      owners.set(t[1] as string, (row[1] as string).replace(/\.ts$/, '.ts'));
  }
  const writers = new Map<string, Set<string>>();
  const write = (table: string, file: string): void => {
    if (!tables.has(table)) return;
    const set = writers.get(table) ?? new Set<string>();
    set.add(ownerOf(file));
    writers.set(table, set);
  };
  for (const [file, src] of text) {
    for (const m of src.matchAll(/\.(?:insertInto|updateTable|deleteFrom|replaceInto)\(\s*'([a-z_]+)'/g))
      write(m[1] as string, file);
    for (const m of src.matchAll(/\b(?:insert\s+into|update|delete\s+from)\s+([a-z_]+)\b/gi))
      write((m[1] as string).toLowerCase(), file);
  }
  const wrong: string[] = [];
  for (const [table, by] of writers) {
    const owner = owners.get(table);
    if (owner === undefined) wrong.push(`${table}: written by ${[...by].join(', ')}, but the document names no owner`);
    else for (const w of by) if (w !== owner) wrong.push(`${table}: owned by ${owner}, also written by ${w}`);
  }
  for (const table of tables) if (!owners.has(table)) wrong.push(`${table}: no owner in docs/architecture.md`);
  assert.deepEqual(wrong, []);
});

test('the files that know the database dialect are the ones the architecture document lists', () => {
  const knows = files
    .filter(
      (f) =>
        f !== 'src/db/database.ts' &&
        /\bisPostgres\(|\bDialectKind\b|\.kind === 'postgres'|database\.kind === 'sqlite'/.test(text.get(f) as string),
    )
    .sort();
  const section = /## Where the dialect shows\n([\s\S]*?)(?:\n## |$)/.exec(doc);
  assert.ok(section, 'docs/architecture.md has a "Where the dialect shows" section');
  const listed = [...(section[1] as string).matchAll(/^- `(src\/[^`]+)`/gm)].map((m) => m[1] as string).sort();
  assert.deepEqual(knows, listed);
});

test('no runtime import cycle in src (type-only imports do not count)', () => {
  const graph = new Map<string, string[]>();
  for (const [file, src] of text) {
    const deps: string[] = [];
    for (const m of src.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\s+from\s+)?'(\.{1,2}\/[^']+)'/gm)) {
      const target = path.posix.normalize(
        path.posix.join(path.posix.dirname(file), (m[1] as string).replace(/\.js$/, '.ts')),
      );
      if (text.has(target)) deps.push(target);
    }
    graph.set(file, deps);
  }
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, trail: string[]): void => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(f)), f].join(' → '));
      return;
    }
    state.set(f, 'open');
    for (const d of graph.get(f) ?? []) visit(d, [...trail, f]);
    state.set(f, 'done');
  };
  for (const f of graph.keys()) visit(f, []);
  assert.deepEqual(cycles, []);
});
