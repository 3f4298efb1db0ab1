/** Small key/value settings shared by all instances and modules (signing key, trial start, clock high-water mark, first-start markers): infrastructure, like the work queue. */
import { sql } from 'kysely';
import type { Queryable } from './database.js';

export async function getSetting(db: Queryable, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Stores the value unless the key exists; returns the value that is stored (first writer wins across instances). */
export async function putSettingIfAbsent(db: Queryable, key: string, value: string, now: Date): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key, value, updated_at: now.toISOString() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await getSetting(db, key);
  if (stored === undefined) throw new Error(`setting ${key} vanished after insert`);
  return stored;
}

export async function putSetting(db: Queryable, key: string, value: string, now: Date): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value, updated_at: now.toISOString() })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: now.toISOString() }))
    .execute();
}

/**
 * Raises the stored value to `value` unless it is already greater in string order (ISO-8601 UTC times compare in
 * time order): monotonic across instances, a lagging writer never lowers it.
 */
export async function raiseSetting(db: Queryable, key: string, value: string, now: Date): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value, updated_at: now.toISOString() })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({ value, updated_at: now.toISOString() }).where('settings.value', '<', value),
    )
    .execute();
}

/** Adds one to an integer setting (0 when absent), atomically: concurrent writers each count (the row is locked). */
export async function incrementSetting(db: Queryable, key: string, now: Date): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value: '1', updated_at: now.toISOString() })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        value: sql<string>`cast(cast(settings.value as integer) + 1 as text)`,
        updated_at: now.toISOString(),
      }),
    )
    .execute();
}
