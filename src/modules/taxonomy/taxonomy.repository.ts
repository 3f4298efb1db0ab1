/** All SQL of the taxonomy (tags). */
import type { Insertable } from 'kysely';
import { isUniqueViolation, type Queryable } from '../../db/database.js';
import { getSetting, incrementSetting, putSetting } from '../../db/settings.js';
import type { TagRow, TagsTable } from '../../db/schema.js';
import { conflict } from '../../http/errors.js';

export async function listTags(db: Queryable): Promise<TagRow[]> {
  return db.selectFrom('tags').selectAll().orderBy('id').execute();
}

export async function findTagById(db: Queryable, id: number): Promise<TagRow | undefined> {
  return db.selectFrom('tags').selectAll().where('id', '=', id).executeTakeFirst();
}

const REVISION = 'taxonomy.revision';

/**
 * Identifies the current tags: count and highest id change with every insert (ids are never reused), the revision
 * with every update and delete (bumpRevision, in the same transaction).
 */
export async function tagsVersion(db: Queryable): Promise<string> {
  const row = await db
    .selectFrom('tags')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('max_id')])
    .executeTakeFirstOrThrow();
  return `${Number(row.n)}:${Number(row.max_id ?? 0)}:${(await getSetting(db, REVISION)) ?? '0'}`;
}

/** Counts an update or delete of tags into the version (tagsVersion); serialises concurrent tag edits on its row. */
export async function bumpRevision(db: Queryable, now: Date): Promise<void> {
  await incrementSetting(db, REVISION, now);
}

const DELETED_BUILTINS = 'taxonomy.deleted_builtins';

/** Default-taxonomy chain paths of built-in tags an organisation deleted: never added again. */
export async function deletedBuiltins(db: Queryable): Promise<Set<string>> {
  const stored = await getSetting(db, DELETED_BUILTINS);
  return new Set(stored === undefined ? [] : (JSON.parse(stored) as string[]));
}

export async function rememberDeletedBuiltins(db: Queryable, paths: readonly string[], now: Date): Promise<void> {
  if (paths.length === 0) return;
  const all = await deletedBuiltins(db);
  for (const p of paths) all.add(p);
  await putSetting(db, DELETED_BUILTINS, JSON.stringify([...all].sort()), now);
}

export async function updateTag(
  db: Queryable,
  id: number,
  change: {
    name: string;
    parent_id: number | null;
    chain_path: string;
    default_level: string;
    description: string | null;
    keywords: string;
  },
): Promise<TagRow> {
  try {
    return await db.updateTable('tags').set(change).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A tag with the chain path "${change.chain_path}" already exists`);
    throw error;
  }
}

/** Rewrites the chain paths of a moved or renamed tag's descendants: `old/…` becomes `new/…`. */
export async function renameDescendantPaths(
  db: Queryable,
  descendants: readonly TagRow[],
  oldPrefix: string,
  newPrefix: string,
): Promise<void> {
  for (const tag of descendants) {
    const chainPath = newPrefix + tag.chain_path.slice(oldPrefix.length);
    try {
      await db.updateTable('tags').set({ chain_path: chainPath }).where('id', '=', tag.id).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`A tag with the chain path "${chainPath}" already exists`);
      throw error;
    }
  }
}

/** Deletes the tags, children before their parents (the parent reference is a foreign key). */
export async function deleteTags(db: Queryable, tags: readonly TagRow[]): Promise<void> {
  const deepestFirst = [...tags].sort((a, b) => b.chain_path.split('/').length - a.chain_path.split('/').length);
  for (const tag of deepestFirst) await db.deleteFrom('tags').where('id', '=', tag.id).execute();
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
  await db
    .insertInto('tags')
    .values(row)
    .onConflict((oc) => oc.column('chain_path').doNothing())
    .execute();
  return db.selectFrom('tags').selectAll().where('chain_path', '=', row.chain_path).executeTakeFirstOrThrow();
}
