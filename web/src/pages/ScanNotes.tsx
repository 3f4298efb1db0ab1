/**
 * What a scan could not take whole (the scan's `notes`): tables not sampled and why, tables not stored, tables and
 * columns skipped for their names, comments and types cut. A scan that succeeded with notes says so next to its
 * status, and its notes are listed by kind: a reviewer sees which tables were classified without values.
 */
import type { Scan } from '../api/client';

type Notes = Scan['notes'];

const KIND_LABEL: Record<Notes['items'][number]['kind'], string> = {
  table_not_sampled: 'Not sampled (classified from metadata only)',
  table_not_stored: 'Not stored',
  table_skipped: 'Table skipped (name)',
  column_skipped: 'Column skipped (name)',
  comment_cut: 'Comment cut',
  data_type_cut: 'Type cut',
};

/** One line: "2 tables not sampled, 1 column skipped", or '' when the scan took everything whole. */
export function notesSummary(notes: Notes): string {
  const parts: string[] = [];
  const add = (n: number, one: string, many: string) => n > 0 && parts.push(`${n} ${n === 1 ? one : many}`);
  add(notes.tables_not_sampled, 'table not sampled', 'tables not sampled');
  add(notes.tables_not_stored, 'table not stored', 'tables not stored');
  add(notes.tables_skipped, 'table skipped', 'tables skipped');
  add(notes.columns_skipped, 'column skipped', 'columns skipped');
  add(notes.metadata_cut, 'comment or type cut', 'comments or types cut');
  return parts.join(', ');
}

/** The notes of one scan as a list (table, column, why); nothing when there are none. */
export function ScanNotesList({ notes }: { notes: Notes }) {
  const summary = notesSummary(notes);
  if (summary === '') return null;
  const shown = notes.items.length;
  const total =
    notes.tables_not_sampled +
    notes.tables_not_stored +
    notes.tables_skipped +
    notes.columns_skipped +
    notes.metadata_cut;
  return (
    <div class="notice info" data-testid="scan-notes">
      <p>
        <strong>Not everything was scanned whole:</strong> <span data-testid="scan-notes-summary">{summary}</span>.
      </p>
      <table class="scan-notes">
        <thead>
          <tr>
            <th scope="col">What</th>
            <th scope="col">Table</th>
            <th scope="col">Column</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {notes.items.map((n, i) => (
            <tr key={i} data-kind={n.kind}>
              <td>{KIND_LABEL[n.kind]}</td>
              <td>
                <code>{n.table}</code>
              </td>
              <td>{n.column === null ? '' : <code>{n.column}</code>}</td>
              <td class="details">{n.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown < total && (
        <p class="muted">
          The first {shown} of {total} are listed (at most 50 of each kind).
        </p>
      )}
    </div>
  );
}
