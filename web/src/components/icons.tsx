/**
 * Small inline SVG icons (no emoji: Debian's Chromium, without an emoji font, draws those as empty boxes). They take
 * the text colour (currentColor) and the text size; the label goes to screen readers (role img), or the icon is
 * hidden from them when the text next to it says the same (no label).
 */
import type { JSX } from 'preact';

function Icon({
  label,
  class: cls,
  children,
}: {
  label?: string;
  class?: string;
  children: JSX.Element | JSX.Element[];
}) {
  return (
    <svg
      class={`icon${cls ? ` ${cls}` : ''}`}
      viewBox="0 0 16 16"
      width="1em"
      height="1em"
      fill="none"
      stroke="currentColor"
      stroke-width="1.6"
      stroke-linecap="round"
      stroke-linejoin="round"
      focusable="false"
      {...(label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': 'true' })}
    >
      {label ? <title>{label}</title> : null}
      {children}
    </svg>
  );
}

/** A closed padlock. */
export function LockIcon({ label, class: cls }: { label?: string; class?: string }) {
  return (
    <Icon label={label} class={cls}>
      <rect x="3" y="7" width="10" height="7.5" rx="1.2" />
      <path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2" />
    </Icon>
  );
}

/** A tick. */
export function CheckIcon({ label, class: cls }: { label?: string; class?: string }) {
  return (
    <Icon label={label} class={cls}>
      <path d="M3 8.5l3.2 3.2L13 4.8" />
    </Icon>
  );
}

/** A cross. */
export function CrossIcon({ label, class: cls }: { label?: string; class?: string }) {
  return (
    <Icon label={label} class={cls}>
      <path d="M4 4l8 8M12 4l-8 8" />
    </Icon>
  );
}
