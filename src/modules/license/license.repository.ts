/**
 * License storage: the `licenses` table (one row per imported license, at most one active) and the
 * license's own keys in `settings` (trial start, clock high-water mark).
 */
import type { Queryable, Tx } from '../../db/database.js';
import type { LicenseRow } from '../../db/schema.js';
import { putSetting, raiseSetting } from '../../db/settings.js';

export const TRIAL_STARTED_AT_KEY = 'license.trial_started_at';
export const CLOCK_HIGH_WATER_MARK_KEY = 'license.clock_high_water_mark';

/** What the service needs on every refresh, read in one round trip: the active license's id and the high-water mark. */
export interface LicensePointer {
  license_id: string | null;
  high_water_mark: string | null;
}

export async function readLicensePointer(db: Queryable): Promise<LicensePointer> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('licenses')
        .select('license_id')
        .where('active', '=', 1)
        .orderBy('imported_at', 'desc')
        .limit(1)
        .as('license_id'),
      eb.selectFrom('settings').select('value').where('key', '=', CLOCK_HIGH_WATER_MARK_KEY).as('high_water_mark'),
    ])
    .executeTakeFirst();
  return { license_id: row?.license_id ?? null, high_water_mark: row?.high_water_mark ?? null };
}

export async function findLicense(db: Queryable, licenseId: string): Promise<LicenseRow | undefined> {
  return db.selectFrom('licenses').selectAll().where('license_id', '=', licenseId).executeTakeFirst();
}

/** Makes `row` the only active license (re-importing the same license_id replaces its row). */
export async function activateLicense(trx: Tx, row: Omit<LicenseRow, 'active'>): Promise<void> {
  await trx.updateTable('licenses').set({ active: 0 }).where('active', '=', 1).execute();
  await trx
    .insertInto('licenses')
    .values({ ...row, active: 1 })
    .onConflict((oc) =>
      oc.column('license_id').doUpdateSet({
        file_text: row.file_text,
        payload: row.payload,
        imported_at: row.imported_at,
        imported_by: row.imported_by,
        active: 1,
      }),
    )
    .execute();
}

/**
 * Raises the clock high-water mark to `at` unless it is already later (ISO-8601 UTC strings of
 * `toISOString` compare in time order). Monotonic across instances: a lagging clock never lowers it.
 */
export async function raiseHighWaterMark(db: Queryable, at: string): Promise<void> {
  await raiseSetting(db, CLOCK_HIGH_WATER_MARK_KEY, at, new Date(at));
}

/** Sets the clock high-water mark to `at`, lower or not (the operator's recovery from a far-future clock). */
export async function setHighWaterMark(db: Queryable, at: string): Promise<void> {
  await putSetting(db, CLOCK_HIGH_WATER_MARK_KEY, at, new Date(at));
}
