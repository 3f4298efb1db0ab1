/** All SQL of the taxonomy (tags). Tags are never updated or deleted, only added. */
import type { Insertable } from 'kysely';
import { isUniqueViolation, type Queryable } from '../../db/database.js';
import type { TagRow, TagsTable } from '../../db/schema.js';
import { conflict } from '../../http/errors.js';

export async function listTags(db: Queryable): Promise<TagRow[]> {
  return db.selectFrom('tags').selectAll().orderBy('id').execute();
}

export async function findTagById(db: Queryable, id: number): Promise<TagRow | undefined> {
  return db.selectFrom('tags').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Identifies the current set of tags: as tags are only ever added, count + highest id change with every change. */
export async function tagsVersion(db: Queryable): Promise<string> {
  const row = await db
    .selectFrom('tags')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('max_id')])
    .executeTakeFirstOrThrow();
  return `${Number(row.n)}:${Number(row.max_id ?? 0)}`;
}

export async function insertTag(db: Queryable, row: Insertable<TagsTable>): Promise<TagRow> {
  try {
    return await db.insertInto('tags').values(row).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A tag with the chain path "${row.chain_path}" already exists`);
    throw error;
  }
}

/** Inserts the tag unless its chain path exists (another instance was first); returns the stored row. */
export async function insertTagIfAbsent(db: Queryable, row: Insertable<TagsTable>): Promise<TagRow> {
  await db.insertInto('tags').values(row).onConflict((oc) => oc.column('chain_path').doNothing()).execute();
  return db.selectFrom('tags').selectAll().where('chain_path', '=', row.chain_path).executeTakeFirstOrThrow();
}
