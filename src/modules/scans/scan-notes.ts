/**
 * A scan's notes: what it could not take whole, named with why. Tables not sampled (a missing grant, a broken view)
 * and tables whose write failed are noted while the scan runs and kept when it is taken over; tables and columns
 * skipped for their names and comments or types cut (src/connectors/bounds.ts) are noted from each listing. Bounded:
 * at most NOTES_PER_KIND entries of each kind are kept with every total counted, and no entry holds a sample value.
 */
import type { MetadataNote } from '../../connectors/bounds.js';
import { nameLabel } from '../../connectors/bounds.js';
import type { ScanNote, ScanNoteKind, ScanNotes } from './scans.schemas.js';

export const NOTES_PER_KIND = 50;
const REASON_MAX = 300;

/** Kinds noted while the scan runs (kept across a takeover), as opposed to those noted from the listing. */
const RUN_KINDS: ReadonlySet<ScanNoteKind> = new Set(['table_not_sampled', 'table_not_stored']);

export function emptyNotes(): ScanNotes {
  return {
    tables_not_sampled: 0,
    tables_not_stored: 0,
    tables_skipped: 0,
    columns_skipped: 0,
    metadata_cut: 0,
    items: [],
  };
}

/** The stored JSON as the API answers it (null or unreadable: no notes). */
export function parseNotes(stored: string | null): ScanNotes {
  if (stored === null) return emptyNotes();
  try {
    return { ...emptyNotes(), ...(JSON.parse(stored) as Partial<ScanNotes>) };
  } catch {
    return emptyNotes();
  }
}

const TOTAL: Record<ScanNoteKind, keyof Omit<ScanNotes, 'items'>> = {
  table_not_sampled: 'tables_not_sampled',
  table_not_stored: 'tables_not_stored',
  table_skipped: 'tables_skipped',
  column_skipped: 'columns_skipped',
  comment_cut: 'metadata_cut',
  data_type_cut: 'metadata_cut',
};

export class ScanNotesBuilder {
  private notes: ScanNotes;
  private readonly kept = new Map<ScanNoteKind, number>();
  /** Grows with every note: a writer stores the notes again only when it moved since its last committed write. */
  version = 0;

  /** Starts from a taken-over scan's notes, keeping only what its runs noted (the listing is read again). */
  constructor(previous: string | null) {
    const before = parseNotes(previous);
    this.notes = emptyNotes();
    this.notes.tables_not_sampled = before.tables_not_sampled;
    this.notes.tables_not_stored = before.tables_not_stored;
    for (const item of before.items) if (RUN_KINDS.has(item.kind)) this.keep(item);
  }

  get totals(): Omit<ScanNotes, 'items'> {
    const { items: _items, ...totals } = this.notes;
    return totals;
  }

  /** Whether anything was noted at all. */
  get any(): boolean {
    const t = this.totals;
    return t.tables_not_sampled + t.tables_not_stored + t.tables_skipped + t.columns_skipped + t.metadata_cut > 0;
  }

  private keep(item: ScanNote): void {
    const n = this.kept.get(item.kind) ?? 0;
    if (n >= NOTES_PER_KIND) return;
    this.kept.set(item.kind, n + 1);
    this.notes.items.push(item);
  }

  private add(item: ScanNote): void {
    this.version++;
    this.notes[TOTAL[item.kind]]++;
    this.keep({
      ...item,
      reason: item.reason.length > REASON_MAX ? `${item.reason.slice(0, REASON_MAX)}…` : item.reason,
    });
  }

  addMetadata(notes: readonly MetadataNote[]): void {
    for (const n of notes) this.add(n);
  }

  /** A table whose samples could not be read; `reason` is the connector's classified detail (never a driver message or a value). */
  notSampled(tableName: string, reason: string): void {
    this.add({ kind: 'table_not_sampled', table: nameLabel(tableName), column: null, reason });
  }

  /** A table whose fields the catalog refused (the app database's error code, never its message). */
  notStored(tableName: string, reason: string): void {
    this.add({ kind: 'table_not_stored', table: nameLabel(tableName), column: null, reason });
  }

  json(): string {
    return JSON.stringify(this.notes);
  }
}
