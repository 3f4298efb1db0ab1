import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './index.js';

/**
 * What the last scan did to each field, for the queue's "changed since the last scan" view (`GET /fields?changed=last_scan`):
 * - `fields.last_scan_id`: the scan that last created or rewrote the field (null: never written by a scan);
 * - `fields.scan_change`: what that scan did — `new` (created it), `changed` (its column's type, comment or value
 *   format changed), `reclassified` (changed, and its classification with it).
 * A field is in the view when its `last_scan_id` is the last finished scan of its data source. Neither column is in the
 * change-log triggers: they do not affect the metrics.
 */
export const fieldScanChange: MigrationFactory = () => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('fields').addColumn('last_scan_id', 'text').execute();
    await db.schema.alterTable('fields').addColumn('scan_change', 'text').execute();
    await sql`create index fields_last_scan_idx on fields (last_scan_id)`.execute(db);
  },
});
