/** All SQL of the review workflow: the review columns of `fields` (classification, lock, status). */
import type { Tx } from '../../db/database.js';
import type { FieldRow } from '../../db/schema.js';

export type ReviewState = Pick<FieldRow, 'id' | 'tag_id' | 'level' | 'locked' | 'review_status' | 'review_reason'>;

/**
 * Reads the review state of the fields and row-locks them until the transaction ends (a no-op UPDATE …
 * RETURNING takes the row locks on PostgreSQL; SQLite serialises writers anyway), so the "before" that
 * the audit entry records is the state this transaction replaces.
 */
export async function lockReviewStates(trx: Tx, ids: readonly string[]): Promise<ReviewState[]> {
  const states: ReviewState[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await trx
      .updateTable('fields')
      .set((eb) => ({ review_status: eb.ref('review_status') }))
      .where('id', 'in', chunk)
      .returning(['id', 'tag_id', 'level', 'locked', 'review_status', 'review_reason'])
      .execute();
    states.push(...rows);
  }
  return states;
}

/** Sets the confirmed classification of fields that share one target (tag, level), locked. */
export async function confirmFields(
  trx: Tx,
  ids: readonly string[],
  change: { tag_id: number; level: string; reviewed_at: string; reviewed_by: string },
): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await trx
      .updateTable('fields')
      .set({
        tag_id: change.tag_id,
        level: change.level,
        locked: 1,
        review_status: 'confirmed',
        review_reason: null,
        reviewed_at: change.reviewed_at,
        reviewed_by: change.reviewed_by,
        updated_at: change.reviewed_at,
      })
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
  }
}

/** Marks one field deferred with the reviewer's reason; classification and lock stay as they are. */
export async function deferField(trx: Tx, id: string, change: { reason: string; reviewed_at: string; reviewed_by: string }): Promise<void> {
  await trx
    .updateTable('fields')
    .set({
      review_status: 'deferred',
      review_reason: change.reason,
      reviewed_at: change.reviewed_at,
      reviewed_by: change.reviewed_by,
      updated_at: change.reviewed_at,
    })
    .where('id', '=', id)
    .execute();
}
