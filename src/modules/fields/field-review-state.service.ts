/**
 * The review columns of `fields`, as the review module reads and writes them inside its own transactions (it holds
 * the rules: who may decide, what a decision means, the audit entry).
 */
import type { Tx } from '../../db/database.js';
import * as repo from './fields.repository.js';

export type { ReviewState } from './fields.repository.js';

export class FieldReviewState {
  /** Reads and row-locks the review state of the fields, in id order, until `trx` ends; unknown ids are left out. */
  async lockReviewStates(trx: Tx, ids: readonly string[]): Promise<repo.ReviewState[]> {
    return repo.lockReviewStates(trx, ids);
  }

  /**
   * Sets the confirmed, locked classification of fields that share one target (tag, level); a field whose label changes
   * is queued for the classifier to measure its label gap again.
   */
  async confirmFields(
    trx: Tx,
    ids: readonly string[],
    change: { tag_id: number; level: string; reviewed_at: string; reviewed_by: string },
  ): Promise<void> {
    await repo.confirmFields(trx, ids, change);
    await repo.enqueueUnknownLabelGaps(trx, ids, change.reviewed_at);
  }

  /** Marks one field deferred with the reviewer's reason; classification and lock stay as they are. */
  async deferField(
    trx: Tx,
    id: string,
    change: { reason: string; reviewed_at: string; reviewed_by: string },
  ): Promise<void> {
    await repo.deferField(trx, id, change);
  }
}
