/** The queue's dialogs: the keys (`?`), defer with a reason, confirm as another tag or level. */
import type { Level } from '../../api/client';
import { Dialog } from '../../components/Dialog';
import { ConfirmAsDialog, DeferDialog, type ConfirmBody } from '../../components/decisions';

export type Modal = { kind: 'defer'; ids: string[] } | { kind: 'confirm-as'; ids: string[] } | { kind: 'keys' } | null;

export function QueueDialogs({
  modal,
  canReview,
  levels,
  onClose,
  onDefer,
  onConfirm,
}: {
  modal: Modal;
  canReview: boolean;
  levels: Level[];
  onClose: () => void;
  onDefer: (ids: string[], reason: string) => void;
  onConfirm: (ids: string[], body: ConfirmBody) => void;
}) {
  if (modal?.kind === 'keys') return <KeysDialog canReview={canReview} onClose={onClose} />;
  if (modal?.kind === 'defer') {
    return (
      <DeferDialog
        count={modal.ids.length}
        onClose={onClose}
        onDefer={(reason) => {
          onClose();
          onDefer(modal.ids, reason);
        }}
      />
    );
  }
  if (modal?.kind === 'confirm-as') {
    return (
      <ConfirmAsDialog
        count={modal.ids.length}
        levels={levels}
        onClose={onClose}
        onConfirm={(body) => {
          onClose();
          onConfirm(modal.ids, body);
        }}
      />
    );
  }
  return null;
}

/** What each key does, opened with `?`. */
function KeysDialog({ canReview, onClose }: { canReview: boolean; onClose: () => void }) {
  const keys: Array<[string, string]> = [
    ['j', 'next row'],
    ['k', 'previous row'],
    ['Enter', 'open the current row'],
    ...(canReview
      ? ([
          ['c', 'confirm the current row (keeps its tag, locks its level)'],
          ['a', 'accept the current row’s suggestion'],
          ['d', 'defer the current row (asks for a reason)'],
          ['x', 'tick or untick the current row'],
        ] as Array<[string, string]>)
      : []),
    ['?', 'this list'],
    ['Esc', 'close a dialog'],
  ];
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <p class="muted">When the focus is not in a form field.</p>
      <dl class="keys">
        {keys.map(([k, what]) => (
          <div key={k}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div class="buttons">
        <button type="button" class="primary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}
