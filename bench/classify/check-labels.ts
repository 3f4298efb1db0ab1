// Checks labelled files without classifying anything: every line parses, every leaf is a default leaf. Prints the
// fields per file and how many are labelled personal or secret. For labellers, who must not see the classifier's
// answers while they label (`npx tsx bench/classify/check-labels.ts bench/classify/fresh/*.txt`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLabelled } from './sets.js';

let failed = false;
for (const file of process.argv.slice(2)) {
  try {
    const fields = parseLabelled(readFileSync(file, 'utf8'), path.basename(file), 'note');
    const tables = new Set(fields.map((f) => f.input.table_name));
    const sensitive = fields.filter((f) => f.sensitive).length;
    console.log(`${path.basename(file)}: ${fields.length} fields in ${tables.size} tables, ${sensitive} personal or secret`);
  } catch (err) {
    failed = true;
    console.error((err as Error).message);
  }
}
process.exitCode = failed ? 1 : 0;
