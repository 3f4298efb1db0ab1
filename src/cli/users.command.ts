/**
 * `fieldlens users reset-password USERNAME [--password-stdin]` — the recovery path for a lost password (the first
 * admin's generated password printed on a start that then failed, say). Sets a new password in the configured
 * database, ends the user's sessions and failed-login lock, and writes `user.password_reset` to the audit log.
 * Without --password-stdin a random password is generated and printed once; with it, the first line of stdin is the
 * password (the same rules as the API: 12–256 characters, not a common password).
 * Exit codes: 0 done; 1 failed (unknown user, refused password, database missing); 2 usage error.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { systemClock, type Clock } from '../clock.js';
import { AppError } from '../http/errors.js';
import { AuditService, SYSTEM_ACTOR } from '../modules/audit/audit.service.js';
import { sessionAdmin } from '../modules/auth/auth.service.js';
import { resetUserPassword } from '../modules/users/users.service.js';
import { openExistingDatabase, type CommandOutput } from './existing-database.js';

export interface UsersCommandOptions {
  /** Environment to read the configuration from (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Reads all of stdin (for --password-stdin; default: the process's stdin). */
  readStdin?: () => Promise<string>;
  clock?: Clock;
}

const USAGE = `Usage:
  fieldlens users reset-password USERNAME [--password-stdin]

Sets a new password for USERNAME in the database named by DATABASE_URL, ends all of the user's sessions and
its failed-login lock, and records user.password_reset in the audit log. Without --password-stdin a random
password is generated and printed once; with it, the first line of stdin is the new password.
On SQLite, run it while the service is stopped (or restart the service afterwards) so that the running
service forgets the user's old sessions at once.
`;

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs `fieldlens users <args>` and resolves to the process exit code. */
export async function runUsersCommand(
  args: string[],
  out: CommandOutput,
  options: UsersCommandOptions = {},
): Promise<number> {
  const [command, ...rest] = args;
  if (command === 'help' || command === '--help' || command === '-h') {
    out.stdout(USAGE);
    return 0;
  }
  if (command !== 'reset-password') {
    out.stderr(
      command === undefined
        ? `fieldlens users: a command is required\n${USAGE}`
        : `fieldlens users: unknown command "${command}"\n${USAGE}`,
    );
    return 2;
  }
  let username: string;
  let fromStdin: boolean;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { 'password-stdin': { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 1 || !positionals[0]) throw new Error('exactly one USERNAME is required');
    username = positionals[0];
    fromStdin = values['password-stdin'] === true;
  } catch (error) {
    out.stderr(`fieldlens users: ${(error as Error).message.split('\n')[0]}\n${USAGE}`);
    return 2;
  }

  let password: string;
  if (fromStdin) {
    const input = await (options.readStdin ?? readProcessStdin)();
    password = input.split(/\r?\n/)[0] ?? '';
    if (password === '') {
      out.stderr('fieldlens users: --password-stdin read no password\n');
      return 1;
    }
  } else {
    password = randomBytes(18).toString('base64url');
  }

  const database = await openExistingDatabase('fieldlens users', options.env ?? process.env, out);
  if (database === undefined) return 1;
  try {
    const clock = options.clock ?? systemClock;
    const user = await resetUserPassword(
      { database, clock, audit: new AuditService(database, clock), auth: sessionAdmin(clock) },
      SYSTEM_ACTOR,
      username,
      password,
    );
    out.stdout(
      fromStdin
        ? `The password of "${user.username}" was reset; its sessions were ended.\n`
        : `The password of "${user.username}" was reset; its sessions were ended. New password (shown once): ${password}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      out.stderr(`fieldlens users: ${error.code === 'not_found' ? `no user named "${username}"` : error.detail}\n`);
      return 1;
    }
    out.stderr(`fieldlens users: the reset could not run: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await database.close();
  }
}
