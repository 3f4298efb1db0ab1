/**
 * Review decisions, shared by the queue and the field page: the API calls (confirm, batch confirm, defer, accept a
 * suggestion), the Defer and Confirm-as dialogs, and the decision buttons of one field. The rules are the server's
 * (permission `field:review`); a caller without it gets no controls at all.
 */
import { useState } from 'preact/hooks';
import { api, ok, type Level, type Suggestion, type Tag } from '../api/client';
import { session } from '../api/session';
import { Dialog } from './Dialog';
import { TagPicker } from './TagPicker';

/** What a confirmation may change: another tag and/or level; neither confirms the field as it is (level locked). */
export type ConfirmBody = { classification_tag_id?: number; lock_level?: string };

/** Whether the signed-in user may decide (confirm, change, defer, accept); observers may not. */
export function canDecide(): boolean {
  return session.can('field:review');
}

/** Confirms one field, as it is or with the body's tag and level. */
export async function confirmField(id: string, body: ConfirmBody = {}): Promise<void> {
  await ok(api.POST('/api/v1/classify/fields/{field_id}/confirm', { params: { path: { field_id: id } }, body }));
}

/** Confirms several fields in one call; answers the ids the server confirmed and how many it skipped or failed. */
export async function confirmFields(
  ids: string[],
  body: ConfirmBody = {},
): Promise<{ confirmed: string[]; skipped: number; errors: number }> {
  const result = await ok(api.POST('/api/v1/classify/fields/batch-confirm', { body: { field_ids: ids, ...body } }));
  return { confirmed: result.confirmed, skipped: result.skipped.length, errors: result.errors.length };
}

/** Defers each field with the same reason, one call per field (the API has no batch defer). */
export async function deferFields(ids: string[], reason: string): Promise<void> {
  for (const id of ids)
    await ok(
      api.POST('/api/v1/classify/fields/{field_id}/defer', { params: { path: { field_id: id } }, body: { reason } }),
    );
}

/** The confirmation that accepts a suggestion: its tag and its level, locked. */
export function acceptBody(suggestion: Suggestion): ConfirmBody {
  return { classification_tag_id: suggestion.tag_id, lock_level: suggestion.level };
}

export function DeferDialog({
  count,
  onClose,
  onDefer,
}: {
  count: number;
  onClose: () => void;
  onDefer: (reason: string) => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <Dialog title={count === 1 ? 'Defer this field' : `Defer ${count} fields`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) onDefer(reason.trim());
        }}
      >
        <label for="defer-reason">Reason (required)</label>
        <textarea
          id="defer-reason"
          required
          maxLength={2000}
          rows={3}
          value={reason}
          onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)}
          autoFocus
        />
        <div class="buttons">
          <button type="submit" class="primary" disabled={!reason.trim()}>
            Defer
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function ConfirmAsDialog({
  count,
  levels,
  onClose,
  onConfirm,
}: {
  count: number;
  levels: Level[];
  onClose: () => void;
  onConfirm: (body: ConfirmBody) => void;
}) {
  const [tag, setTag] = useState<Tag | null>(null);
  const [level, setLevel] = useState('');
  return (
    <Dialog
      title={count === 1 ? 'Confirm with another tag or level' : `Confirm ${count} fields with another tag or level`}
      onClose={onClose}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm({ ...(tag ? { classification_tag_id: tag.id } : {}), ...(level ? { lock_level: level } : {}) });
        }}
      >
        <TagPicker
          label="Tag (leave empty to keep the current one)"
          value={tag}
          onChange={(t) => {
            setTag(t);
            // A new tag usually brings its own level; the reviewer can still keep the current one.
            if (t) setLevel(t.default_level);
          }}
          autoFocus
        />
        <label for="confirm-level">Level</label>
        <select id="confirm-level" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
          <option value="">Keep the current level</option>
          {levels.map((l) => (
            <option key={l.code} value={l.code}>
              {l.code} {l.name}
            </option>
          ))}
        </select>
        <div class="buttons">
          <button type="submit" class="primary">
            Confirm
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

interface FieldDecisionsProps {
  field: { id: string; table_name: string; field_name: string };
  /** The suggestion to offer with Accept, or null for none. */
  suggestion: Suggestion | null;
  levels: Level[];
  /** Called after a decision succeeded, with what to tell the user. */
  onDecided: (message: string) => void;
  /** Called when a decision failed, with the error (a ProblemError). */
  onFailed: (what: string, error: unknown) => void;
}

/**
 * The decisions on one field: Confirm, Change… (another tag or level), Defer (with a reason) and, when there is a
 * suggestion, Accept suggestion. Nothing at all for a user without `field:review`. One decision at a time.
 */
export function FieldDecisions({ field, suggestion, levels, onDecided, onFailed }: FieldDecisionsProps) {
  const [modal, setModal] = useState<'defer' | 'confirm-as' | null>(null);
  const [busy, setBusy] = useState(false);
  if (!canDecide()) return null;
  const name = `${field.table_name}.${field.field_name}`;

  const run = async (what: string, call: () => Promise<string>) => {
    setBusy(true);
    try {
      onDecided(await call());
    } catch (e) {
      onFailed(what, e);
    } finally {
      setBusy(false);
    }
  };
  const confirm = (body: ConfirmBody, message: string) =>
    run('Confirm', async () => {
      await confirmField(field.id, body);
      return message;
    });

  return (
    <div class="toolbar decisions" role="group" aria-label="Decisions">
      <button type="button" class="primary" disabled={busy} onClick={() => void confirm({}, `Confirmed ${name}.`)}>
        Confirm
      </button>
      <button type="button" disabled={busy} onClick={() => setModal('confirm-as')}>
        Change…
      </button>
      <button type="button" disabled={busy} onClick={() => setModal('defer')}>
        Defer…
      </button>
      {suggestion && (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void confirm(acceptBody(suggestion), `Confirmed ${name} as ${suggestion.chain_path} ${suggestion.level}.`)
          }
        >
          Accept suggestion: {suggestion.chain_path} {suggestion.level}
        </button>
      )}
      {modal === 'defer' && (
        <DeferDialog
          count={1}
          onClose={() => setModal(null)}
          onDefer={(reason) => {
            setModal(null);
            void run('Defer', async () => {
              await deferFields([field.id], reason);
              return `Deferred ${name}.`;
            });
          }}
        />
      )}
      {modal === 'confirm-as' && (
        <ConfirmAsDialog
          count={1}
          levels={levels}
          onClose={() => setModal(null)}
          onConfirm={(body) => {
            setModal(null);
            void confirm(
              body,
              `Confirmed ${name}${body.classification_tag_id !== undefined || body.lock_level ? ' with the chosen tag and level' : ''}.`,
            );
          }}
        />
      )}
    </div>
  );
}
