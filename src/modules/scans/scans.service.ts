/**
 * Scans of data sources' databases: asking for one (one queued or running scan per data source, enforced by the
 * database), reading and listing them, cancelling, the periodic schedule, and the counts for monitoring. The work
 * itself is done by the scan worker (scan-worker.ts, scan-runner.ts) on any instance.
 */
import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { ScanRow } from '../../db/schema.js';
import type { Caller } from '../../http/access.js';
import { AppError, conflict, notFound } from '../../http/errors.js';
import { SYSTEM_ACTOR, type Actor, type AuditService } from '../audit/audit.service.js';
import type { DatasourcesService } from '../datasources/datasources.service.js';
import type { LicenseService } from '../license/license.service.js';
import { parseNotes } from './scan-notes.js';
import * as repo from './scans.repository.js';
import type { ScanListQuery, ScanListResponse, ScanPhase, ScanResponse } from './scans.schemas.js';

/** What scans need of a data source (the datasources module owns connections and their secrets). */
export type ScanTargets = Pick<DatasourcesService, 'getScanTarget' | 'listScheduledScans'>;

export function toScanResponse(row: ScanRow): ScanResponse {
  const active = row.status === 'queued' || row.status === 'running';
  return {
    id: row.id,
    datasource_id: row.datasource_id,
    status: row.status,
    phase: (active && row.cancel_requested === 1 ? 'cancelling' : row.phase) as ScanPhase,
    progress: {
      tables_done: row.tables_done,
      tables_total: row.tables_total,
      fields_done: row.fields_done,
      fields_total: row.fields_total,
    },
    counts: {
      new: row.count_new,
      changed: row.count_changed,
      removed: row.count_removed,
      unchanged: row.count_unchanged,
      classified: row.count_classified,
    },
    notes: parseNotes(row.notes),
    error: row.error,
    requested_by: row.requested_by,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

/** The counts of a scan as audit entries carry them. */
export function scanCounts(row: ScanRow): Record<string, number> {
  return {
    new: row.count_new,
    changed: row.count_changed,
    removed: row.count_removed,
    unchanged: row.count_unchanged,
    classified: row.count_classified,
    tables: row.tables_done,
    fields: row.fields_done,
  };
}

/** Who a scan acts for in the audit log: the user who asked for it, or the system for a periodic scan. */
export function scanActor(row: ScanRow): Actor {
  return row.requested_by === null
    ? SYSTEM_ACTOR
    : { id: row.requested_by, username: row.requested_by_name, requestId: null };
}

function encodeScanCursor(row: ScanRow): string {
  return encodeCursor({ c: row.created_at, i: row.id });
}

function decodeScanCursor(cursor: string): { created_at: string; id: string } {
  return decodeCursor(cursor, ({ c, i }) =>
    typeof c === 'string' && typeof i === 'string' && c.length <= 64 && i.length <= 64
      ? { created_at: c, id: i }
      : undefined,
  );
}

export class ScansService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      datasources: ScanTargets;
      license: Pick<LicenseService, 'getStatus'>;
    },
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /**
   * Queues a scan of a data source: 404 unknown, 409 for a sample data source or one without a connection, 403 when
   * the license is not active, 409 when one is already queued or running.
   */
  async requestScan(caller: Caller, datasourceId: string): Promise<ScanResponse> {
    const target = await this.deps.datasources.getScanTarget(datasourceId);
    if (target.datasource.is_sample === 1) throw conflict('A sample data source has no database to scan');
    if (target.connection === null)
      throw conflict('The data source has no connection to scan: set one with PATCH /api/v1/datasources/{id}');
    const license = await this.deps.license.getStatus();
    if (license.computed_status !== 'active')
      throw new AppError('license_inactive', `Scans need an active license; it is ${license.computed_status}`);
    const row = this.newScan(datasourceId, caller);
    await this.db.transaction().execute(async (trx) => {
      await repo.insertScan(trx, row);
      await this.deps.audit.record(trx, caller, {
        action: 'scan.requested',
        targetType: 'scan',
        targetId: row.id,
        details: { datasource_id: datasourceId, datasource: target.datasource.name },
      });
    });
    return this.getScan(row.id);
  }

  /** One scan, or 404. */
  async getScan(id: string): Promise<ScanResponse> {
    const row = await repo.findScan(this.db, id);
    if (!row) throw notFound('Scan');
    return toScanResponse(row);
  }

  /** A data source's scans, newest first, paginated; 404 for an unknown data source. */
  async listScans(datasourceId: string, query: ScanListQuery): Promise<ScanListResponse> {
    await this.deps.datasources.getScanTarget(datasourceId);
    const after = query.cursor === undefined ? undefined : decodeScanCursor(query.cursor);
    const rows = await repo.listScans(this.db, datasourceId, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toScanResponse),
      next_cursor: rows.length > query.limit && last ? encodeScanCursor(last) : null,
    };
  }

  /**
   * Cancels a scan: a queued one at once; a running one is marked and its worker stops within seconds, keeping what
   * it wrote (whole tables) and removing nothing. 404 unknown, 409 when it has already finished.
   */
  async cancelScan(caller: Caller, id: string): Promise<ScanResponse> {
    await this.db.transaction().execute(async (trx) => {
      const row = await repo.lockScan(trx, id);
      if (!row) throw notFound('Scan');
      if (row.status === 'queued') {
        await repo.updateScan(trx, id, {
          status: 'cancelled',
          phase: 'done',
          cancel_requested: 1,
          finished_at: this.deps.clock.now().toISOString(),
        });
        await this.deps.audit.record(trx, caller, {
          action: 'scan.cancelled',
          targetType: 'scan',
          targetId: id,
          details: { datasource_id: row.datasource_id, ...scanCounts(row) },
        });
      } else if (row.status === 'running') {
        if (row.cancel_requested === 1) return;
        await repo.updateScan(trx, id, { cancel_requested: 1 });
        await this.deps.audit.record(trx, caller, {
          action: 'scan.cancel_requested',
          targetType: 'scan',
          targetId: id,
          details: { datasource_id: row.datasource_id },
        });
      } else {
        throw conflict(`The scan has already finished (${row.status})`);
      }
    });
    return this.getScan(id);
  }

  /**
   * Queues a scan of every data source with a scan interval whose last scan started at least that long ago and that
   * has none queued or running. Serialised across instances by a lock and re-checked inside it, so two instances
   * never queue two. Answers the ids queued.
   */
  async queueDueScans(): Promise<string[]> {
    const scheduled = await this.deps.datasources.listScheduledScans();
    if (scheduled.length === 0) return [];
    const license = await this.deps.license.getStatus();
    if (license.computed_status !== 'active') return [];
    return this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.scans.schedule');
      const now = this.deps.clock.now();
      const queued: string[] = [];
      for (const { datasourceId, scanIntervalHours } of scheduled) {
        if (await repo.hasActiveScan(trx, datasourceId)) continue;
        const last = await repo.latestScan(trx, datasourceId);
        if (last && now.getTime() - Date.parse(last.created_at) < scanIntervalHours * 3_600_000) continue;
        const row = this.newScan(datasourceId, null);
        await repo.insertScan(trx, row);
        await this.deps.audit.record(trx, SYSTEM_ACTOR, {
          action: 'scan.requested',
          targetType: 'scan',
          targetId: row.id,
          details: { datasource_id: datasourceId, periodic: true, scan_interval_hours: scanIntervalHours },
        });
        queued.push(row.id);
      }
      return queued;
    });
  }

  /** Scans by status (Prometheus). */
  async countByStatus(): Promise<Map<string, number>> {
    return repo.countByStatus(this.db);
  }

  private newScan(datasourceId: string, caller: Caller | null) {
    return {
      id: randomUUID(),
      datasource_id: datasourceId,
      status: 'queued' as const,
      phase: 'queued',
      requested_by: caller?.id ?? null,
      requested_by_name: caller?.username ?? null,
      created_at: this.deps.clock.now().toISOString(),
    };
  }
}
