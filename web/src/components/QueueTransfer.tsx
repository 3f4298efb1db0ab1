/**
 * The queue's spreadsheet round trip: export the fields the queue's filters select (CSV or NDJSON, GET
 * /api/v1/fields/export through an authenticated fetch), and upload an edited CSV of decisions (POST
 * /api/v1/fields/decisions), whose refused rows are shown in a table by row number.
 */
import { useState } from 'preact/hooks';
import { ProblemError, problemOf, session, type Problem } from '../api/session';
import { Dialog } from './Dialog';
import { ProblemNotice } from './ProblemNotice';

/** Downloads a response body under a file name (an object URL, revoked afterwards). */
async function download(response: Response, name: string): Promise<void> {
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Export buttons for the fields matching `query` (the queue's filters, without sort and paging). */
export function ExportButtons({
  query,
  onStatus,
  onError,
}: {
  query: Record<string, string>;
  onStatus: (message: string) => void;
  onError: (error: unknown) => void;
}) {
  const [busy, setBusy] = useState(false);
  const exportAs = async (format: 'csv' | 'ndjson') => {
    setBusy(true);
    onError(null);
    try {
      const qs = new URLSearchParams({ ...query, format });
      const response = await session.fetch(new Request(`/api/v1/fields/export?${qs.toString()}`));
      if (!response.ok) throw new ProblemError(await problemOf(response));
      await download(response, `fieldlens-fields.${format}`);
      onStatus(`Exported the fields matching these filters as ${format.toUpperCase()}.`);
    } catch (e) {
      onError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" disabled={busy} onClick={() => void exportAs('csv')} data-testid="export-csv">
        Export CSV
      </button>
      <button type="button" disabled={busy} onClick={() => void exportAs('ndjson')}>
        Export NDJSON
      </button>
    </>
  );
}

interface Applied {
  confirmed: number;
  deferred: number;
  ignored: number;
}

type RowProblem = { row?: number; path: string; message: string };

/** The "Upload decisions" dialog: pick the edited CSV, send it, show every refused row or what was applied. */
export function UploadDecisionsDialog({
  onClose,
  onApplied,
}: {
  onClose: () => void;
  onApplied: (result: Applied) => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [rows, setRows] = useState<RowProblem[]>([]);

  const send = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    setRows([]);
    try {
      const response = await session.fetch(
        new Request('/api/v1/fields/decisions', {
          method: 'POST',
          headers: { 'content-type': 'text/csv' },
          body: await file.text(),
        }),
      );
      if (!response.ok) {
        const problem: Problem = await problemOf(response);
        const listed = (problem.errors ?? []) as RowProblem[];
        if (listed.some((e) => e.row !== undefined)) {
          setRows(listed);
          // The table says which rows; the notice keeps only the summary.
          throw new ProblemError({ ...problem, errors: [] });
        }
        throw new ProblemError(problem);
      }
      onApplied((await response.json()) as Applied);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title="Upload decisions" onClose={onClose}>
      <p class="hint muted">
        A CSV with the columns <code>field_id,action,chain_path,level,reason</code> — or an export with the columns{' '}
        <code>action</code> and <code>reason</code> added. Action <code>confirm</code> (chain path and level empty keep
        the current ones) or <code>defer</code> (with a reason); rows without an action are left alone. Every row is
        checked first: if one is wrong, nothing is applied.
      </p>
      <label>
        CSV file
        <input
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
        />
      </label>
      <ProblemNotice error={error} />
      {rows.length > 0 && (
        <div class="upload-errors-wrap">
          <table class="upload-errors" data-testid="upload-errors">
            <caption>
              {rows.length} row{rows.length === 1 ? '' : 's'} to fix (row 1 is the header)
            </caption>
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Problem</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.path}-${r.message}`}>
                  <td class="num">{r.row ?? ''}</td>
                  <td>{r.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="buttons">
        <button type="button" class="primary" disabled={!file || busy} onClick={() => void send()}>
          Apply decisions
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
