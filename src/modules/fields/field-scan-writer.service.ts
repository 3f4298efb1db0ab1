/**
 * The fields as a scan compares and writes them: the baseline of a data source's fields, the scanned columns
 * embedded and classified outside any transaction, then written (or removed when gone) inside the scan's own.
 */
import type { Tx } from '../../db/database.js';
import type { NewFieldRow } from '../../db/schema.js';
import { compareKeys, FieldPreparer, type FieldPreparerDeps } from './field-preparation.js';
import * as repo from './fields.repository.js';
import type { ImportFieldItem } from './fields.schemas.js';

export type { RemovedFieldRow, ScanBaselineRow } from './fields.repository.js';

/** A column a scan found, with its sampled values: held in memory only, never stored (only their format is). */
export interface ScannedColumn {
  table_name: string;
  field_name: string;
  data_type: string | null;
  comment: string | null;
  sample_values: string[];
  /** The names of all the columns of its table (one array per table): the classifier reads them as context. */
  table_columns?: readonly string[];
}

/** Scanned columns embedded and classified, ready to be written by `applyScan` in a short transaction. */
export interface PreparedScan {
  readonly rows: readonly NewFieldRow[];
}

export class FieldScanWriter {
  private readonly preparer: FieldPreparer;

  constructor(private readonly deps: FieldPreparerDeps) {
    this.preparer = new FieldPreparer(deps);
  }

  /** Every field of a data source as a scan compares it with the columns it finds. */
  async scanBaseline(datasourceId: string): Promise<repo.ScanBaselineRow[]> {
    return repo.listScanBaseline(this.deps.database.db, datasourceId);
  }

  /**
   * Embeds and classifies new or changed scanned columns, outside any transaction (the samples stay in memory); rules
   * scoped to data sources apply when `datasourceId` is given.
   */
  async prepareScanFields(columns: readonly ScannedColumn[], datasourceId = ''): Promise<PreparedScan> {
    const items: ImportFieldItem[] = columns.map((c) => ({
      table_name: c.table_name,
      field_name: c.field_name,
      data_type: c.data_type,
      comment: c.comment,
      sample_values: c.sample_values,
    }));
    return { rows: (await this.preparer.prepare(datasourceId, items, (i) => columns[i]?.table_columns)).rows };
  }

  /**
   * Writes prepared scanned columns of a data source inside the caller's transaction: new ones are inserted, changed
   * ones updated; a confirmed, locked or import-given classification is kept, any other is replaced by the new one and
   * the field goes back to `unreviewed`. Each written field records that scan `scanId` made it new, changed or
   * re-classified it (the "changed since the last scan" view). 404 when the data source is gone.
   */
  async applyScan(trx: Tx, datasourceId: string, prepared: PreparedScan, scanId: string): Promise<void> {
    const rows = prepared.rows.map((row) => ({ ...row, datasource_id: datasourceId })).sort(compareKeys);
    const ids = await repo.upsertScannedFields(trx, rows, scanId);
    await repo.enqueueUnknownLabelGaps(trx, ids, this.deps.clock.now().toISOString());
  }

  /** Deletes fields of a data source whose columns a scan no longer found; answers them with their last classification. */
  async removeScannedFields(trx: Tx, datasourceId: string, ids: readonly string[]): Promise<repo.RemovedFieldRow[]> {
    return repo.deleteScannedFields(trx, datasourceId, ids);
  }
}
