// `npm run bench` lists the benchmarks with the first line of their own description; `npm run bench -- NAME [args…]`
// runs one (the rest of the arguments go to it). Each benchmark documents its knobs at its top and prints its figures;
// the latest figures live in docs/benchmarks.md with the machine they ran on.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

interface Bench {
  name: string;
  file: string;
  summary: string;
}

/** The first sentence-like line of a file's leading comment (`//` or `/** … *\/`), without its marker. */
function summaryOf(file: string): string {
  for (const raw of fs.readFileSync(file, 'utf8').split('\n').slice(0, 12)) {
    const line = raw.replace(/^\s*(\/\/|\/\*\*|\*)\s?/, '').trim();
    if (line !== '' && !line.startsWith('*/')) return line;
  }
  return '';
}

function benches(): Bench[] {
  const found: Bench[] = [];
  for (const entry of fs.readdirSync(HERE, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts') && entry.name !== 'run.ts')
      found.push({ name: entry.name.slice(0, -3), file: path.join(HERE, entry.name), summary: '' });
    // A folder with a run.ts of its own is one benchmark (bench/quality).
    else if (entry.isDirectory() && fs.existsSync(path.join(HERE, entry.name, 'run.ts')))
      found.push({ name: entry.name, file: path.join(HERE, entry.name, 'run.ts'), summary: '' });
  }
  for (const b of found) b.summary = summaryOf(b.file);
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

const [name, ...rest] = process.argv.slice(2);
const all = benches();
if (name === undefined || name === '--list' || name === '--help') {
  process.stdout.write('Benchmarks (npm run bench -- NAME [args]; knobs at the top of each file):\n\n');
  const width = Math.max(...all.map((b) => b.name.length));
  for (const b of all) process.stdout.write(`  ${b.name.padEnd(width)}  ${b.summary}\n`);
  process.exit(0);
}
const bench = all.find((b) => b.name === name);
if (!bench) {
  process.stderr.write(`bench: no benchmark named ${JSON.stringify(name)}; \`npm run bench\` lists them\n`);
  process.exit(2);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', bench.file, ...rest], { stdio: 'inherit' });
process.exit(result.status ?? 1);
