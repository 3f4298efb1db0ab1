/**
 * The scan worker, on every instance: claims a queued scan (or one whose instance died: its heartbeat is older than
 * a minute) from the `scans` table, runs it (scan-runner.ts) while heart-beating, and records how it ended with its
 * audit entry in the same transaction. Also queues the periodic scans that are due. One scan at a time per instance.
 *
 * Cancel: the heartbeat reads the cancel flag every few seconds; the statement running on the source is cancelled
 * (Connector.cancel) and the run stops. Shutdown: the run stops the same way and gives its claim back, so another
 * instance (or this one after a restart) resumes it.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Rounds } from '../../background/rounds.js';
import type { Clock } from '../../clock.js';
import {
  ConnectionFailure,
  ConnectionSpecError,
  openConnector,
  type Connector,
  type ConnectorOptions,
} from '../../connectors/index.js';
import type { Database } from '../../db/database.js';
import type { ScanRow, ScansTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { WebhookEvents } from '../webhooks/webhooks.service.js';
import { ScanRun, ScanStopped, type FieldsForScans } from './scan-runner.js';
import * as repo from './scans.repository.js';
import { scanActor, scanCounts, type ScansService, type ScanTargets } from './scans.service.js';
import type { Updateable } from 'kysely';

/** A scan claimed this many times without finishing (its instances kept dying) is failed instead of tried again. */
export const MAX_SCAN_ATTEMPTS = 3;

export interface ScanWorkerOptions {
  /** How often a running scan's heartbeat is written and its cancel flag read (default 5 s). */
  heartbeatMs?: number;
  /** A running scan whose heartbeat is older than this was left by a dead instance and is taken over (default 60 s). */
  staleAfterMs?: number;
  /** How often the periodic schedule is checked (default 60 s). */
  scheduleEveryMs?: number;
  /** Options for the connectors (the SQLite scan folder, timeouts). */
  connector?: ConnectorOptions;
}

export interface ScanWorkerDeps {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  audit: AuditService;
  fields: FieldsForScans;
  datasources: Pick<ScanTargets, 'getScanTarget'>;
  scans: Pick<ScansService, 'queueDueScans'>;
  /** scan.finished and scan.failed go out through it, in the finishing transaction. */
  webhooks?: WebhookEvents;
  options?: ScanWorkerOptions;
}

export class ScanWorker {
  readonly id = randomUUID();
  private readonly rounds: Rounds;
  private readonly heartbeatMs: number;
  private readonly staleAfterMs: number;
  private readonly scheduleEveryMs: number;
  private lastSchedule = 0;
  private current: AbortController | undefined;

  constructor(private readonly deps: ScanWorkerDeps) {
    this.rounds = new Rounds('scans', deps.log, (background) => this.round(background));
    this.heartbeatMs = deps.options?.heartbeatMs ?? 5000;
    this.staleAfterMs = deps.options?.staleAfterMs ?? 60_000;
    this.scheduleEveryMs = deps.options?.scheduleEveryMs ?? 60_000;
  }

  start(intervalMs = 1000): void {
    this.rounds.start(intervalMs);
  }

  /** Stops claiming, stops the scan in progress between two tables and gives it back for another instance. */
  async stop(): Promise<void> {
    this.current?.abort('shutdown');
    await this.rounds.stop();
  }

  /** Queues due periodic scans, then runs scans until none is left to claim (tests, benchmarks). */
  async drain(): Promise<void> {
    await this.rounds.runNow();
  }

  private async round(background: boolean): Promise<void> {
    // eslint-disable-next-line no-restricted-properties -- real time: how often due scans are scheduled
    const now = Date.now();
    if (!background || now - this.lastSchedule >= this.scheduleEveryMs) {
      this.lastSchedule = now;
      await this.deps.scans.queueDueScans();
    }
    while (!this.rounds.stopped) {
      const scan = await this.claim();
      if (!scan) return;
      await this.runClaimed(scan);
    }
  }

  private async claim(): Promise<ScanRow | undefined> {
    const now = this.deps.clock.now();
    const staleBefore = new Date(now.getTime() - this.staleAfterMs).toISOString();
    return this.deps.database.db.transaction().execute(async (trx) => {
      const scan = await repo.claimScan(trx, this.id, now.toISOString(), staleBefore);
      if (!scan) return undefined;
      const details = {
        datasource_id: scan.datasource_id,
        attempt: scan.attempts,
        ...(scan.attempts > 1 ? { resumed_after_tables: scan.tables_done } : {}),
      };
      await this.deps.audit.record(trx, scanActor(scan), {
        action: scan.attempts > 1 ? 'scan.resumed' : 'scan.started',
        targetType: 'scan',
        targetId: scan.id,
        details,
      });
      return scan;
    });
  }

  private async runClaimed(scan: ScanRow): Promise<void> {
    if (scan.attempts > MAX_SCAN_ATTEMPTS) {
      await this.finish(
        scan,
        'failed',
        `interrupted: the instances running this scan stopped ${MAX_SCAN_ATTEMPTS} times before it finished`,
      );
      return;
    }
    const controller = new AbortController();
    this.current = controller;
    const heartbeat = setInterval(() => void this.heartbeat(scan, controller), this.heartbeatMs);
    heartbeat.unref();
    let connector: Connector | undefined;
    try {
      const target = await this.deps.datasources.getScanTarget(scan.datasource_id);
      if (target.connection === null) throw new ConnectionSpecError('the data source has no connection any more');
      connector = openConnector(target.connection, this.deps.options?.connector ?? {});
      // Cancel, a lost claim and shutdown stop the statement running on the source now, not after it ends.
      const open = connector;
      const stopSource = (): void => void open.cancel();
      if (controller.signal.aborted) stopSource();
      else controller.signal.addEventListener('abort', stopSource, { once: true });
      const run = new ScanRun(this.deps, scan, this.id, connector, controller.signal);
      await run.run();
      await this.finish(scan, 'succeeded', null, run.noteTotals);
    } catch (error) {
      // A source read that failed because the run was stopped is the stop, not a failure of the source.
      const stopped =
        controller.signal.aborted && !(error instanceof ScanStopped)
          ? new ScanStopped((controller.signal.reason as ScanStopped['reason'] | undefined) ?? 'shutdown')
          : error;
      await this.ended(scan, stopped);
    } finally {
      clearInterval(heartbeat);
      if (this.current === controller) this.current = undefined;
      await connector?.close();
    }
  }

  /** Writes the heartbeat; aborts the run when the scan was cancelled or taken over. A database hiccup is retried next beat. */
  private async heartbeat(scan: ScanRow, controller: AbortController): Promise<void> {
    if (controller.signal.aborted) return;
    try {
      const result = await repo.updateClaimed(this.deps.database.db, scan.id, this.id, {
        heartbeat_at: this.deps.clock.now().toISOString(),
      });
      if (result === undefined) controller.abort('lost');
      else if (result.cancel) controller.abort('cancel');
    } catch (error) {
      this.deps.log.warn({ err: error, scan: scan.id }, 'scan heartbeat failed');
    }
  }

  private async ended(scan: ScanRow, error: unknown): Promise<void> {
    if (error instanceof ScanStopped) {
      if (error.reason === 'cancel') await this.finish(scan, 'cancelled', null);
      else if (error.reason === 'shutdown') await this.release(scan);
      else this.deps.log.info({ scan: scan.id }, 'scan taken over by another instance (or deleted); this run stopped');
      return;
    }
    if (error instanceof ConnectionFailure) {
      await this.finish(scan, 'failed', `${error.cause}: ${error.detail}`);
      return;
    }
    if (error instanceof ConnectionSpecError) {
      await this.finish(scan, 'failed', `connection refused before trying it: ${error.message}`);
      return;
    }
    if (error instanceof AppError && error.code === 'not_found') {
      // The data source was deleted while the scan ran: its scans went with it.
      this.deps.log.info({ scan: scan.id }, 'scan stopped: its data source was deleted');
      return;
    }
    if (error instanceof AppError) {
      // E.g. the stored password cannot be decrypted with the configured key: the detail says what to do.
      await this.finish(scan, 'failed', error.detail);
      return;
    }
    // A failure of the app's own database or a bug: logged here (never with sample values: none are in app errors).
    this.deps.log.error({ err: error, scan: scan.id }, 'scan failed');
    await this.finish(scan, 'failed', 'internal error while scanning (see the service log)').catch((e: unknown) =>
      this.deps.log.warn(
        { err: e, scan: scan.id },
        'could not record the failed scan; another instance will take it over',
      ),
    );
  }

  /** Ends the scan with its audit entry in one transaction (fenced: nothing happens when the claim was lost). */
  private async finish(
    scan: ScanRow,
    status: 'succeeded' | 'failed' | 'cancelled',
    error: string | null,
    notes?: ScanRun['noteTotals'],
  ): Promise<void> {
    const change: Updateable<ScansTable> = {
      status,
      phase: 'done',
      error,
      finished_at: this.deps.clock.now().toISOString(),
      heartbeat_at: null,
    };
    await this.deps.database.db.transaction().execute(async (trx) => {
      const result = await repo.updateClaimed(trx, scan.id, this.id, change);
      if (result === undefined) return;
      await repo.forgetWrittenTables(trx, scan.id);
      const row = (await repo.findScan(trx, scan.id)) as ScanRow;
      // Only the totals that are not zero: the entry names what the scan could not take whole.
      const noted = Object.fromEntries(Object.entries(notes ?? {}).filter(([, n]) => n > 0));
      const action = status === 'succeeded' ? 'scan.finished' : status === 'failed' ? 'scan.failed' : 'scan.cancelled';
      await this.deps.audit.record(trx, scanActor(row), {
        action,
        targetType: 'scan',
        targetId: scan.id,
        details: { datasource_id: scan.datasource_id, ...scanCounts(row), ...noted, ...(error ? { error } : {}) },
      });
      if (status !== 'cancelled') {
        await this.deps.webhooks?.emit(trx, [
          {
            type: action as 'scan.finished' | 'scan.failed',
            data: {
              scan_id: scan.id,
              datasource_id: scan.datasource_id,
              ...scanCounts(row),
              ...(error ? { error } : {}),
            },
          },
        ]);
      }
    });
  }

  /** Gives a scan back on shutdown: claimable at once, and this attempt does not count. */
  private async release(scan: ScanRow): Promise<void> {
    await repo.releaseClaim(this.deps.database.db, scan.id, this.id);
  }
}
