/**
 * The queue's body, windowed by @tanstack/virtual-core over the page's own scroll: only the rows in the viewport (plus
 * a margin) are in the DOM; padding above and below stands in for the others, so the page scrolls as if all were
 * there. Creating ~40 elements a row was what a 500-row page cost; now a page costs what a screenful costs. Screen
 * readers still get the whole page's size and each row's place (aria-rowcount on the grid, aria-rowindex on each row).
 * The current row (j/k) is scrolled into view and kept in the window, and keeps the focus when the focus was in the grid.
 */
import {
  observeWindowOffset,
  observeWindowRect,
  Virtualizer,
  windowScroll,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';
import type { ComponentChild, RefObject } from 'preact';
import { useEffect, useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';

/** Height of a queue row in pixels: fixed (styles.css, `.queue .body .row`), so a row's place is its index times this. */
export const ROW_HEIGHT = 60;
/** Rows drawn beyond each edge of the viewport, so a scroll or a run of j/k rarely shows an empty stretch. */
const OVERSCAN = 10;

/** A virtualizer of `count` fixed-height rows in the window's scroll, starting where `body` starts in the page. */
function useWindowRows(body: RefObject<HTMLDivElement | null>, count: number): Virtualizer<Window, HTMLDivElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  // Where the body starts in the page: measured after each render, since the notices above it come and go.
  const margin = useRef(0);
  const options: VirtualizerOptions<Window, HTMLDivElement> = {
    count,
    getScrollElement: () => window,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
    scrollMargin: margin.current,
    // Before anything is measured: the first screenful (the queue opens at the top of its list).
    initialRect: { width: innerWidth, height: innerHeight },
    initialOffset: () => scrollY,
    observeElementRect: observeWindowRect,
    observeElementOffset: observeWindowOffset,
    scrollToFn: windowScroll,
    onChange: () => rerender(0),
  };
  const [virtualizer] = useState(() => new Virtualizer(options));
  virtualizer.setOptions(options);
  useLayoutEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => {
    virtualizer._willUpdate();
    const el = body.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top + scrollY;
    if (top !== margin.current) {
      margin.current = top;
      virtualizer.setOptions({ ...options, scrollMargin: top });
      rerender(0);
    }
  });
  return virtualizer;
}

export function WindowedRows({
  bodyRef,
  count,
  active,
  focusRequest,
  onClick,
  children,
}: {
  bodyRef: RefObject<HTMLDivElement | null>;
  count: number;
  active: number;
  focusRequest: { current: boolean };
  onClick: (event: MouseEvent) => void;
  children: (index: number) => ComponentChild;
}) {
  const virtualizer = useWindowRows(bodyRef, count);
  const items = virtualizer.getVirtualItems();
  // Never past the end of the list: the range is from the last scroll, the count from this render.
  const start = Math.min(items[0]?.index ?? 0, count);
  const end = Math.min((items.at(-1)?.index ?? -1) + 1, count);

  // The current row in view, below the sticky header row, before the browser paints; the scroll moves the window.
  useLayoutEffect(() => {
    const el = bodyRef.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top + active * ROW_HEIGHT;
    const header = (el.previousElementSibling as HTMLElement | null)?.offsetHeight ?? 0;
    // Rounded outwards: the page scrolls by whole pixels, and the row may start at a fraction of one.
    if (top < header) window.scrollBy(0, Math.floor(top - header));
    else if (top + ROW_HEIGHT > window.innerHeight)
      window.scrollBy(0, Math.ceil(top + ROW_HEIGHT - window.innerHeight));
  }, [active]);

  useEffect(() => {
    const el = bodyRef.current;
    const row = el?.querySelector<HTMLDivElement>(`[data-index="${active}"]`);
    if (!row) return;
    // j/k move the focus with the current row; a click in the grid keeps it there.
    if ((focusRequest.current || el?.contains(document.activeElement)) && document.activeElement !== row)
      row.focus({ preventScroll: true });
    focusRequest.current = false;
  }, [active, start, end]);

  const drawn: ComponentChild[] = [];
  for (let i = start; i < end; i++) drawn.push(children(i));
  return (
    <div
      role="rowgroup"
      class="body"
      ref={bodyRef}
      onClick={onClick}
      data-window={`${start}-${end}`}
      style={{ paddingTop: `${start * ROW_HEIGHT}px`, paddingBottom: `${(count - end) * ROW_HEIGHT}px` }}
    >
      {drawn}
    </div>
  );
}
