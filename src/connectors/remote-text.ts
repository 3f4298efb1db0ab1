/**
 * Text a remote server chose (a server version, a message, a setting) before it is answered, logged or audited: a
 * server we connect to is not trusted, so its strings are bounded and cleaned first. `remoteText` removes control
 * characters (C0, DEL, C1), the bidirectional controls that reorder what a reader sees (U+202A–U+202E,
 * U+2066–U+2069, U+200E, U+200F, U+061C), zero-width and other invisible format characters, lone surrogates and
 * U+FEFF; runs of white space become one space; the result is cut to `max` characters (default 200), a cut marked
 * with `…`. Only the first `max × 4` UTF-16 units are looked at, so a 5 MB string costs no more than a short one.
 */

export const REMOTE_TEXT_MAX = 200;

// Cc (C0, DEL, C1), bidi controls, zero-width and invisible format characters, the BOM, line/paragraph separators.
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/gu;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `value` as safe text: at most `max` characters, no control, bidi or invisible characters, one line. */
export function remoteText(value: unknown, max: number = REMOTE_TEXT_MAX): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : String(value);
  // Look at a bounded prefix only: enough for `max` characters once unsafe ones are removed in any normal text.
  const window = Math.max(64, max * 4);
  const longer = text.length > window;
  if (longer) text = text.slice(0, window);
  text = text.replace(LONE_SURROGATE, '').replace(UNSAFE, ' ').replace(/\s+/gu, ' ').trim();
  const chars = Array.from(text);
  if (!longer && chars.length <= max) return text;
  return `${chars
    .slice(0, Math.max(0, max - 1))
    .join('')
    .trimEnd()}…`;
}
