/** The ticked rows. A batch acts only on the ticked rows the list shows; a new list keeps the ticks of its own rows. */
import { useMemo, useState } from 'preact/hooks';
import type { FieldItem } from '../../api/client';

export function useSelection(rows: readonly FieldItem[] | null) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // The ticked rows among those on screen: the only ones a batch acts on.
  const selectedShown = useMemo(
    () => (rows ?? []).filter((r) => selected.has(r.id)).map((r) => r.id),
    [rows, selected],
  );
  return {
    selected,
    selectedShown,
    toggle: (id: string) =>
      setSelected((current) => {
        const next = new Set(current);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    /** Ticks exactly `ids`. */
    select: (ids: readonly string[]) => setSelected(new Set(ids)),
    clear: () => setSelected(new Set()),
    /** Narrowing keeps the ticks of the rows still shown, and only those. */
    keepOnly: (shown: ReadonlySet<string>) =>
      setSelected((current) => new Set([...current].filter((id) => shown.has(id)))),
  };
}

export type Selection = ReturnType<typeof useSelection>;
