/** The queue's toolbars: the spreadsheet (export, upload of decisions) and the selection (batch decisions). */
import { useState } from 'preact/hooks';
import { ExportButtons, UploadDecisionsDialog } from '../../components/QueueTransfer';

/** Export of what the list shows (every page), and, for a reviewer, an upload of decisions made in the file. */
export function SpreadsheetBar({
  exportQuery,
  canReview,
  onStatus,
  onError,
  onApplied,
}: {
  exportQuery: Record<string, string>;
  canReview: boolean;
  onStatus: (message: string) => void;
  onError: (error: unknown) => void;
  /** An upload was applied: the list is to be read again. */
  onApplied: () => void;
}) {
  const [uploading, setUploading] = useState(false);
  return (
    <>
      <div class="toolbar" role="toolbar" aria-label="Spreadsheet">
        <ExportButtons query={exportQuery} onStatus={onStatus} onError={onError} />
        {canReview && (
          <button type="button" onClick={() => setUploading(true)}>
            Upload decisions…
          </button>
        )}
      </div>
      {uploading && (
        <UploadDecisionsDialog
          onClose={() => setUploading(false)}
          onApplied={(r) => {
            setUploading(false);
            onStatus(
              `Applied the file: ${r.confirmed} confirmed, ${r.deferred} deferred, ${r.ignored} rows without an action left alone.`,
            );
            onApplied();
          }}
        />
      )}
    </>
  );
}

/** The batch decisions over the ticked rows on screen; `locked` while a decision is under way or a new list loads. */
export function SelectionBar({
  selectedShown,
  anySelected,
  canSelectPage,
  locked,
  onSelectPage,
  onClear,
  onConfirm,
  onConfirmAs,
  onDefer,
}: {
  selectedShown: string[];
  anySelected: boolean;
  canSelectPage: boolean;
  locked: boolean;
  onSelectPage: () => void;
  onClear: () => void;
  onConfirm: (ids: string[]) => void;
  onConfirmAs: (ids: string[]) => void;
  onDefer: (ids: string[]) => void;
}) {
  const none = selectedShown.length === 0;
  return (
    <div class="toolbar" role="toolbar" aria-label="Selection">
      <span data-testid="selected-count">{selectedShown.length} selected</span>
      <button type="button" onClick={onSelectPage} disabled={!canSelectPage}>
        Select page
      </button>
      <button type="button" onClick={onClear} disabled={!anySelected}>
        Clear
      </button>
      <button
        type="button"
        class="primary"
        data-testid="batch-confirm"
        disabled={none || locked}
        onClick={() => onConfirm(selectedShown)}
      >
        Confirm selected
      </button>
      <button type="button" disabled={none || locked} onClick={() => onConfirmAs(selectedShown)}>
        Confirm selected as…
      </button>
      <button type="button" disabled={none || locked} onClick={() => onDefer(selectedShown)}>
        Defer selected…
      </button>
    </div>
  );
}
