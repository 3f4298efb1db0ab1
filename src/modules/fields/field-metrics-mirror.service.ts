/**
 * The metrics' writes to `fields`, inside the metrics writer's transaction: the outlier score and severity mirrored
 * onto the field rows, so the list sorts and filters by them.
 */
import type { Tx } from '../../db/database.js';
import * as repo from './fields.repository.js';

export type { OutlierMirror } from './fields.repository.js';

export class FieldMetricsMirror {
  /**
   * Locks the fields the metrics writer is about to store, in id order, skipping any a writer holds (PostgreSQL), and
   * answers the ids it holds; a skipped field is being changed and becomes stale again through that change.
   */
  async lockForMetrics(trx: Tx, ids: readonly string[]): Promise<Set<string>> {
    return repo.lockForMetrics(trx, ids);
  }

  /**
   * Mirrors outlier score and severity onto the field rows (locked with lockForMetrics in the same transaction);
   * answers the unreviewed fields whose severity became `high` by it (a finding.high_risk each).
   */
  async setOutlierScores(trx: Tx, rows: readonly repo.OutlierMirror[]): Promise<string[]> {
    const becameHigh = await repo.becomingHighRisk(trx, rows);
    await repo.setOutlierScores(trx, rows);
    return becameHigh;
  }
}
