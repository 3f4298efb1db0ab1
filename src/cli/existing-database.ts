/**
 * The configured database (DATABASE_URL, as the service reads it) for the operator commands that work on a running
 * installation: it must exist and hold FieldLens's tables. Nothing is created or migrated, so a mistyped URL is an
 * error, not a new empty database.
 */
import { ConfigError, loadConfig } from '../config.js';
import { assertMigrated, openDatabase, type Database } from '../db/database.js';

export interface CommandOutput {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** Opens the existing database, or writes why it cannot to stderr (prefixed with `command`) and answers undefined. */
export async function openExistingDatabase(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  out: CommandOutput,
): Promise<Database | undefined> {
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      out.stderr(`${command}: ${error.message}\n`);
      return undefined;
    }
    throw error;
  }
  let database: Database;
  try {
    database = openDatabase(config.database, { poolSize: 2, mustExist: true });
  } catch (error) {
    out.stderr(`${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
  try {
    await assertMigrated(database);
    return database;
  } catch (error) {
    out.stderr(`${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    await database.close();
    return undefined;
  }
}
