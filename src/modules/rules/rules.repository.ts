/** All SQL of the `classification_rules` table. */
import type { Insertable, Updateable } from 'kysely';
import { isUniqueViolation, type Queryable, type Tx } from '../../db/database.js';
import type { ClassificationRuleRow, ClassificationRulesTable } from '../../db/schema.js';
import { getSetting, incrementSetting } from '../../db/settings.js';
import { conflict } from '../../http/errors.js';

const REVISION = 'rules.revision';

export async function listRules(db: Queryable): Promise<ClassificationRuleRow[]> {
  return db
    .selectFrom('classification_rules')
    .selectAll()
    .orderBy('priority', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findRule(db: Queryable, id: string): Promise<ClassificationRuleRow | undefined> {
  return db.selectFrom('classification_rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countRules(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('classification_rules')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const uniqueName = async <T>(name: string | undefined, write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A rule named "${name ?? ''}" already exists`);
    throw error;
  }
};

export async function insertRule(trx: Tx, row: Insertable<ClassificationRulesTable>): Promise<ClassificationRuleRow> {
  return uniqueName(row.name, () =>
    trx.insertInto('classification_rules').values(row).returningAll().executeTakeFirstOrThrow(),
  );
}

export async function updateRule(
  trx: Tx,
  id: string,
  change: Updateable<ClassificationRulesTable>,
): Promise<ClassificationRuleRow> {
  return uniqueName(change.name, () =>
    trx.updateTable('classification_rules').set(change).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),
  );
}

export async function deleteRule(trx: Tx, id: string): Promise<void> {
  await trx.deleteFrom('classification_rules').where('id', '=', id).execute();
}

/** Identifies the current rules: a revision counted up by every change (in the changing transaction). */
export async function rulesVersion(db: Queryable): Promise<string> {
  return (await getSetting(db, REVISION)) ?? '0';
}

export async function bumpRevision(trx: Tx, now: Date): Promise<void> {
  await incrementSetting(trx, REVISION, now);
}

export async function countRulesOfTags(db: Queryable, tagIds: readonly number[]): Promise<number> {
  if (tagIds.length === 0) return 0;
  const row = await db
    .selectFrom('classification_rules')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tag_id', 'in', tagIds)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function moveRulesToTag(
  trx: Tx,
  fromTagIds: readonly number[],
  toTagId: number,
  now: string,
): Promise<number> {
  if (fromTagIds.length === 0) return 0;
  const result = await trx
    .updateTable('classification_rules')
    .set({ tag_id: toTagId, updated_at: now })
    .where('tag_id', 'in', fromTagIds)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
