/**
 * The current row and the queue's keys: j/k move, Enter opens, c confirm, d defer, x select, a accept a suggestion,
 * ? lists the keys. Keys act only when no dialog is open and the focus is not in a form control.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FieldItem } from '../../api/client';
import { navigate } from '../../router';

export interface KeyActions {
  /** A dialog is open: it has the keys. */
  modalOpen: boolean;
  rows: readonly FieldItem[] | null;
  stale: boolean;
  canReview: boolean;
  busy: boolean;
  toggle: (id: string) => void;
  confirm: (field: FieldItem) => void;
  accept: (field: FieldItem) => void;
  defer: (field: FieldItem) => void;
  showKeys: () => void;
}

export function useQueueKeys(actions: KeyActions) {
  const [active, setActive] = useState(0);
  // Set by j/k: the current row takes the focus once it is drawn.
  const focusRequest = useRef(false);

  // The handler is replaced on every render (a render follows each key in the same turn), so a quick run of keys
  // never acts on a stale row.
  const onKeyRef = useRef<(event: KeyboardEvent) => void>(() => undefined);
  onKeyRef.current = (event: KeyboardEvent) => {
    const { modalOpen, rows, stale, canReview, busy } = actions;
    if (modalOpen || event.metaKey || event.ctrlKey || event.altKey) return;
    const target = event.target as HTMLElement;
    if (target.closest('input, textarea, select, dialog, [contenteditable]')) return;
    if (event.key === '?') {
      event.preventDefault();
      actions.showKeys();
      return;
    }
    // While a new list loads, the rows on screen are the old one's: no key acts on them.
    if (!rows || rows.length === 0 || stale) return;
    const field = rows[active];
    switch (event.key) {
      case 'j':
        focusRequest.current = true;
        setActive((a) => Math.min(rows.length - 1, a + 1));
        break;
      case 'k':
        focusRequest.current = true;
        setActive((a) => Math.max(0, a - 1));
        break;
      case 'x':
        if (canReview && field) actions.toggle(field.id);
        break;
      case 'c':
        if (canReview && field && !busy) actions.confirm(field);
        break;
      case 'd':
        if (canReview && field) actions.defer(field);
        break;
      case 'a':
        if (canReview && field && !busy) actions.accept(field);
        break;
      case 'Enter':
        // A link or a button keeps its own Enter; anywhere else Enter opens the current row.
        if (!field || target.closest('a, button')) return;
        navigate(`/fields/${field.id}`);
        break;
      default:
        return;
    }
    event.preventDefault();
  };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => onKeyRef.current(event);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  return { active, setActive, focusRequest };
}
