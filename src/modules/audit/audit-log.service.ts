/**
 * Reading the audit log: the filtered list (newest first, keyset cursor), the streamed export
 * (oldest first, feature `audit_export`) and the chain check. Nothing here changes an entry.
 */
import type { Database } from '../../db/database.js';
import { AppError } from '../../http/errors.js';
import type { LicenseGate } from '../license/license.gate.js';
import { csvHeader, csvRow, ndjsonLine, toEntryResponse, type ExportFormat } from './audit-export.js';
import {
  countActionsByDay,
  listEntriesNewestFirst,
  listEntriesOldestFirst,
  readHead,
  type AuditFilters,
} from './audit.repository.js';
import { verifyAuditChain, type ChainVerification, type VerifyOptions } from './audit-verify.js';

export type AuditEntryResponse = ReturnType<typeof toEntryResponse>;

export interface AuditQuery {
  action?: string;
  actor_id?: string;
  actor?: string;
  target_id?: string;
  target?: string;
  since?: string;
  until?: string;
}

export const EXPORT_PAGE_SIZE = 1000;

function encodeCursor(seq: number): string {
  return Buffer.from(`seq:${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = /^seq:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1]) {
    throw new AppError('validation_failed', 'The cursor is not one this service issued', {
      errors: [{ path: '/query/cursor', message: 'is invalid' }],
    });
  }
  return Number(match[1]);
}

function toFilters(query: AuditQuery): AuditFilters {
  // Stored timestamps are toISOString() text, so bounds are normalised to the same form to compare as text.
  const instant = (value: string | undefined, name: string) => {
    if (value === undefined) return undefined;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) {
      throw new AppError('validation_failed', `${name} is not a valid timestamp`, {
        errors: [{ path: `/query/${name}`, message: 'is invalid' }],
      });
    }
    return date.toISOString();
  };
  const filters: AuditFilters = {};
  if (query.action !== undefined) Object.assign(filters, actionFilter(query.action));
  if (query.actor_id !== undefined) filters.actorId = query.actor_id;
  if (query.actor !== undefined) filters.actorName = query.actor;
  if (query.target_id !== undefined) filters.targetId = query.target_id;
  if (query.target !== undefined) filters.targetName = query.target;
  const since = instant(query.since, 'since');
  const until = instant(query.until, 'until');
  if (since !== undefined) filters.since = since;
  if (until !== undefined) filters.until = until;
  return filters;
}

/**
 * `field.confirmed` is exact; `field.*` (a trailing `*`) is every action starting with `field.`. Nothing else is a
 * wildcard: `%` and `_` are literal, and a `*` anywhere but at the end is refused rather than guessed at.
 */
export function actionFilter(action: string): Pick<AuditFilters, 'action' | 'actionPrefix'> {
  const prefix = action.endsWith('*') ? action.slice(0, -1) : undefined;
  if ((prefix ?? action).includes('*')) {
    throw new AppError('validation_failed', 'action takes one * and only at the end (field.* for every field action)', {
      errors: [{ path: '/query/action', message: 'has a * before its end' }],
    });
  }
  return prefix === undefined ? { action } : prefix === '' ? {} : { actionPrefix: prefix };
}

export class AuditLogService {
  constructor(
    private readonly deps: {
      database: Database;
      license: Pick<LicenseGate, 'assertFeature'>;
    },
  ) {}

  /** One page of entries matching the filters, newest first; next_cursor is null on the last page. */
  async listEntries(
    query: AuditQuery & { limit: number; cursor?: string },
  ): Promise<{ items: AuditEntryResponse[]; next_cursor: string | null }> {
    const filters = toFilters(query);
    const beforeSeq = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await listEntriesNewestFirst(this.deps.database.db, filters, {
      limit: query.limit + 1,
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
    });
    const items = rows.slice(0, query.limit).map(toEntryResponse);
    const last = items.at(-1);
    return { items, next_cursor: rows.length > query.limit && last ? encodeCursor(last.seq) : null };
  }

  /**
   * The matching entries, oldest first, as text chunks (one per page of EXPORT_PAGE_SIZE entries), read
   * lazily so the consumer's pace sets the reading pace. Ends at the head as of the call: entries appended
   * during a long export are left for the next one. Feature `audit_export` is checked before anything is read.
   */
  async exportEntries(query: AuditQuery, format: ExportFormat): Promise<AsyncIterable<string>> {
    await this.deps.license.assertFeature('audit_export');
    const filters = toFilters(query);
    const db = this.deps.database.db;
    const { seq: maxSeq } = await readHead(db);
    // The first page is read now, so an unreachable database is still a 503 before any byte is sent.
    const first = await listEntriesOldestFirst(db, filters, { afterSeq: 0, maxSeq, limit: EXPORT_PAGE_SIZE });
    const line = format === 'csv' ? csvRow : ndjsonLine;
    return (async function* pages() {
      if (format === 'csv') yield csvHeader();
      let page = first;
      while (page.length > 0) {
        yield page.map(line).join('');
        const last = page.at(-1);
        if (!last || page.length < EXPORT_PAGE_SIZE) return;
        page = await listEntriesOldestFirst(db, filters, {
          afterSeq: Number(last.seq),
          maxSeq,
          limit: EXPORT_PAGE_SIZE,
        });
      }
    })();
  }

  /** How many entries of each of `actions` were written per UTC day (YYYY-MM-DD) since the instant `since`. */
  async countActionsByDay(
    actions: readonly string[],
    since: Date,
  ): Promise<Array<{ day: string; action: string; n: number }>> {
    return countActionsByDay(this.deps.database.db, actions, since.toISOString());
  }

  /** Walks the whole chain and compares it with the stored head (the logic of `fieldlens audit verify`). */
  async verifyChain(options: VerifyOptions = {}): Promise<ChainVerification> {
    return verifyAuditChain(this.deps.database, options);
  }
}
