/** A combobox that searches tags by chain path (every word must match), keyboard operable, ARIA 1.2 pattern. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Tag } from '../api/client';
import { loadTags } from '../data';

let counter = 0;

export function TagPicker({
  label,
  value,
  onChange,
  autoFocus,
}: {
  label: string;
  value: Tag | null;
  onChange: (tag: Tag | null) => void;
  autoFocus?: boolean;
}) {
  const [tags, setTags] = useState<Tag[]>([]);
  const [text, setText] = useState(value?.chain_path ?? '');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const id = useMemo(() => `tagpicker-${++counter}`, []);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    void loadTags().then(setTags, () => setTags([]));
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);

  const matches = useMemo(() => {
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    return tags.filter((t) => words.every((w) => t.chain_path.toLowerCase().includes(w))).slice(0, 50);
  }, [tags, text]);

  const choose = (tag: Tag) => {
    setText(tag.chain_path);
    setOpen(false);
    onChange(tag);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') {
      setOpen(true);
      setActive((a) => Math.min(matches.length - 1, a + 1));
      event.preventDefault();
    } else if (event.key === 'ArrowUp') {
      setActive((a) => Math.max(0, a - 1));
      event.preventDefault();
    } else if (event.key === 'Enter' && open && matches[active]) {
      choose(matches[active]);
      event.preventDefault();
    } else if (event.key === 'Escape' && open) {
      setOpen(false);
      event.stopPropagation();
      event.preventDefault();
    }
  };

  return (
    <div class="tagpicker">
      <label for={`${id}-input`}>{label}</label>
      <input
        id={`${id}-input`}
        ref={input}
        type="text"
        role="combobox"
        autocomplete="off"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={`${id}-list`}
        aria-activedescendant={open && matches[active] ? `${id}-opt-${matches[active].id}` : undefined}
        placeholder="Type to search chain paths"
        value={text}
        onInput={(e) => {
          setText((e.target as HTMLInputElement).value);
          setOpen(true);
          setActive(0);
          if (value) onChange(null);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
      />
      <TagOptions id={id} label={label} matches={matches} active={active} open={open} onChoose={choose} />
    </div>
  );
}

/** The listbox of matching tags; a mouse press chooses without taking the focus from the input. */
function TagOptions({
  id,
  label,
  matches,
  active,
  open,
  onChoose,
}: {
  id: string;
  label: string;
  matches: Tag[];
  active: number;
  open: boolean;
  onChoose: (tag: Tag) => void;
}) {
  return (
    <ul
      id={`${id}-list`}
      role="listbox"
      aria-label={`${label} matches`}
      class="options"
      hidden={!open || matches.length === 0}
    >
      {matches.map((t, i) => (
        <li
          key={t.id}
          id={`${id}-opt-${t.id}`}
          role="option"
          aria-selected={i === active}
          class={i === active ? 'active' : undefined}
          onMouseDown={(e) => {
            e.preventDefault();
            onChoose(t);
          }}
        >
          {t.chain_path} <span class="muted">· {t.default_level}</span>
        </li>
      ))}
    </ul>
  );
}
