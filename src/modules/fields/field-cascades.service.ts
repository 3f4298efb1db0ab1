/**
 * What another module's deletion does to the fields, inside that module's transaction: a deleted data source takes
 * its fields with it; a deleted tag's fields move to its replacement (counted first, for the confirmation).
 */
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/database.js';
import * as repo from './fields.repository.js';

export class FieldCascades {
  constructor(private readonly deps: { clock: Clock }) {}

  /** Deletes every field of a data source inside the caller's transaction; returns how many. */
  async deleteFieldsOfDatasource(trx: Tx, datasourceId: string): Promise<number> {
    return repo.deleteFieldsOfDatasource(trx, datasourceId);
  }

  /** How many fields carry one of the tags as their classification, and how many as their suggestion. */
  async countFieldsOfTags(trx: Tx, tagIds: readonly number[]): Promise<{ classified: number; suggested: number }> {
    return repo.countFieldsOfTags(trx, tagIds);
  }

  /**
   * Moves the fields classified with (or suggested) one of the tags to another tag, keeping their level and review
   * state, in the caller's transaction (a tag deleted with a replacement; null: no field carries them, and suggestions
   * naming them are dropped). The change log recomputes their metrics.
   */
  async moveFieldsToTag(trx: Tx, fromTagIds: readonly number[], toTagId: number | null): Promise<number> {
    return repo.moveFieldsToTag(trx, fromTagIds, toTagId, this.deps.clock.now().toISOString());
  }
}
