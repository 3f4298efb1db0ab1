/**
 * `fieldlens audit verify` — recomputes the audit log's hash chain in the configured database
 * (DATABASE_URL, as the service reads it). Exit codes: 0 intact; 1 broken (the first bad seq is named)
 * or the check could not run; 2 usage error.
 */
import { parseArgs } from 'node:util';
import { verifyAuditChain } from '../modules/audit/audit-verify.js';
import { openExistingDatabase } from './existing-database.js';

export interface AuditCommandOutput {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export interface AuditCommandOptions {
  /** Environment to read the configuration from (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

const USAGE = `Usage:
  fieldlens audit verify [--page-size N]

Walks the audit log of the database named by DATABASE_URL in seq order and recomputes every hash.
Exit 0 when the chain is intact; 1 with the first bad seq when it is not, or when the database does not
exist or holds no FieldLens tables (nothing is created or migrated).
`;

/** Runs `fieldlens audit <args>` and resolves to the process exit code. */
export async function runAuditCommand(
  args: string[],
  out: AuditCommandOutput,
  options: AuditCommandOptions = {},
): Promise<number> {
  const [command, ...rest] = args;
  if (command === 'help' || command === '--help' || command === '-h') {
    out.stdout(USAGE);
    return 0;
  }
  if (command !== 'verify') {
    out.stderr(
      command === undefined
        ? `fieldlens audit: a command is required\n${USAGE}`
        : `fieldlens audit: unknown command "${command}"\n${USAGE}`,
    );
    return 2;
  }
  let pageSize = 1000;
  try {
    const { values } = parseArgs({
      args: rest,
      options: { 'page-size': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
    if (values['page-size'] !== undefined) {
      pageSize = Number(values['page-size']);
      if (!/^\d+$/.test(values['page-size']) || pageSize < 1 || pageSize > 100_000)
        throw new Error('--page-size must be a whole number from 1 to 100000');
    }
  } catch (error) {
    out.stderr(`fieldlens audit: ${(error as Error).message.split('\n')[0]}\n`);
    return 2;
  }

  // Reading only: a mistyped DATABASE_URL must fail, not create (and report intact) an empty database.
  const database = await openExistingDatabase('fieldlens audit', options.env ?? process.env, out);
  if (database === undefined) return 1;
  try {
    // eslint-disable-next-line no-restricted-properties -- real elapsed time, printed to the operator
    const started = Date.now();
    const result = await verifyAuditChain(database, { pageSize });
    // eslint-disable-next-line no-restricted-properties -- real elapsed time, printed to the operator
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (result.ok) {
      out.stdout(
        `audit chain intact: ${result.entries} entries${result.headSeq > 0 ? `, seq 1..${result.headSeq}` : ''}, head hash ${result.headHash} (checked in ${seconds} s)\n` +
          'Record the head hash outside this database (ticket, log shipper, signed note) to detect a rewritten chain later.\n',
      );
      return 0;
    }
    out.stderr(
      `audit chain BROKEN at seq ${result.seq}: ${result.reason}\n${result.detail}\n(${result.entries} entries before it verified)\n`,
    );
    return 1;
  } catch (error) {
    out.stderr(`fieldlens audit: the check could not run: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await database.close();
  }
}
