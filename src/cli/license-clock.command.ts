/**
 * `fieldlens license reset-clock` — the recovery from a clock that once ran far ahead. The service keeps the latest
 * time it has seen (clock-rollback protection); after a far-future excursion that time stays ahead, so the license reads
 * expired and imports are refused. Once every instance's clock is right again, this lowers the stored time to now and
 * records `license.clock_reset` in the audit log. Exit codes: 0 done (or nothing to reset); 1 failed.
 */
import { systemClock, type Clock } from '../clock.js';
import { AuditService, SYSTEM_ACTOR } from '../modules/audit/audit.service.js';
import { resetClockHighWaterMark } from '../modules/license/license.service.js';
import { openExistingDatabase, type CommandOutput } from './existing-database.js';

export async function resetLicenseClock(
  out: CommandOutput,
  options: { env?: Readonly<Record<string, string | undefined>>; clock?: Clock } = {},
): Promise<number> {
  const database = await openExistingDatabase('fieldlens license', options.env ?? process.env, out);
  if (database === undefined) return 1;
  try {
    const clock = options.clock ?? systemClock;
    const result = await resetClockHighWaterMark(
      { database, clock, audit: new AuditService(database, clock) },
      SYSTEM_ACTOR,
    );
    out.stdout(
      result.changed
        ? `The latest time seen was lowered from ${result.previous} to ${result.current} (audit entry license.clock_reset).\n`
        : `Nothing to reset: the latest time seen (${result.previous ?? 'none'}) is not ahead of this clock (${clock.now().toISOString()}).\n`,
    );
    return 0;
  } catch (error) {
    out.stderr(
      `fieldlens license: the reset could not run: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  } finally {
    await database.close();
  }
}
