/**
 * The catalog as other modules read it, read-only: the metrics' pages and rows of it, names and review bases; the
 * aggregate counts of the inventory report and the review progress; the fields a classification rule could take.
 */
import type { Database, Tx } from '../../db/database.js';
import * as repo from './fields.repository.js';

export type { CatalogFieldRow, InventoryCell } from './fields.repository.js';

export class FieldCatalogReader {
  constructor(private readonly deps: { database: Database }) {}

  private get db() {
    return this.deps.database.db;
  }

  /** How many fields the catalog holds. */
  async countFields(): Promise<number> {
    return repo.countFields(this.db);
  }

  /** One page of the catalog (id, tag, level, review status, embedding) in id order, after `afterId`. */
  async catalogPage(afterId: string | null, limit: number): Promise<repo.CatalogFieldRow[]> {
    return repo.listCatalogFields(this.db, afterId, limit);
  }

  /** The catalog rows of the given fields that exist, as `db` (a transaction, maybe) sees them. */
  async catalogRows(ids: readonly string[], trx?: Tx): Promise<repo.CatalogFieldRow[]> {
    return repo.findCatalogFields(trx ?? this.db, ids);
  }

  /** Which of the given ids name a field. */
  async existingIds(ids: readonly string[], trx?: Tx): Promise<Set<string>> {
    return repo.existingFieldIds(trx ?? this.db, ids);
  }

  /** `table.field` and data source name of the given fields that exist. */
  async fieldNames(ids: readonly string[]): Promise<Map<string, { name: string; datasource: string }>> {
    return repo.findFieldNames(this.db, ids);
  }

  /** When each field was last reviewed and a digest of what it is itself (names, type, comment, value formats). */
  async reviewBases(ids: readonly string[]): Promise<Map<string, { reviewedAt: string | null; self: string }>> {
    return repo.findReviewBases(this.db, ids);
  }

  /** The fields confirmed now, counted by the UTC day of their confirmation (YYYY-MM-DD). */
  async confirmedByDay(): Promise<Array<{ day: string; n: number }>> {
    return repo.countConfirmedByDay(this.db);
  }

  /** The catalog counted by data source and level (fields, confirmed, deferred, high risk), from one aggregate query. */
  async countByDatasourceAndLevel(): Promise<repo.InventoryCell[]> {
    return repo.countByDatasourceAndLevel(this.db);
  }

  /** The catalog counted by tag and level, from one aggregate query. */
  async countByTag(): Promise<Array<{ tag_id: number; level: string; fields: number }>> {
    return repo.countByTag(this.db);
  }

  /** A page of the fields a classification rule could take (the classifier decides them), in id order. */
  async ruleCandidates(query: repo.RuleCandidateQuery): Promise<repo.RuleCandidateRow[]> {
    return repo.listRuleCandidates(this.db, query);
  }

  /** The fields a rule preview lists, with their table, name and current classification. */
  async ruleCandidateDetails(
    ids: readonly string[],
  ): Promise<Array<{ id: string; table_name: string; field_name: string; chain_path: string; level: string }>> {
    return repo.findRuleCandidateDetails(this.db, ids);
  }

  /** Every declared type in the catalog, once. */
  async declaredDataTypes(): Promise<string[]> {
    return repo.listDeclaredDataTypes(this.db);
  }
}
