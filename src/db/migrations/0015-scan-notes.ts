import type { Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * What a scan could not take whole (the scans module), and what it has written so far by table identity:
 * - `scans.notes`: JSON (bounded lists and totals) of tables not sampled and why, tables and columns skipped for names
 *   the catalog cannot hold (over 128 characters, control or bidirectional-override characters), and comments and
 *   types that were cut; shown in the scan resource.
 * - `scan_tables`: the tables (by the name their fields get) a scan has written, each in the transaction of its batch.
 *   A scan taken over resumes by these names, not by a position in a new listing: a table that appeared meanwhile is
 *   scanned, and progress never counts a table twice. Names are at most 128 characters (longer ones are skipped).
 */
export const scanNotes: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('scans').addColumn('notes', 'text').execute();
    await db.schema
      .createTable('scan_tables')
      .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id').onDelete('cascade'))
      .addColumn('table_name', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('scan_tables_pk', ['scan_id', 'table_name'])
      .execute();
  },
});
