/** A small History-API router: the path is state, links navigate without reloading, the query holds page filters. */
import { useEffect, useState } from 'preact/hooks';

type Listener = () => void;
const listeners = new Set<Listener>();

export function navigate(url: string, options: { replace?: boolean } = {}): void {
  if (url === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const l of listeners) l();
}

addEventListener('popstate', () => {
  for (const l of listeners) l();
});

export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((t) => t + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** Same-origin link clicks (without modifier keys) go through the router. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element).closest('a');
  if (
    !anchor ||
    event.defaultPrevented ||
    event.button !== 0 ||
    event.metaKey ||
    event.ctrlKey ||
    event.shiftKey ||
    event.altKey
  )
    return;
  const href = anchor.getAttribute('href');
  if (
    !href ||
    !href.startsWith('/') ||
    href.startsWith('/api/') ||
    href.startsWith('/docs') ||
    anchor.hasAttribute('download')
  )
    return;
  event.preventDefault();
  navigate(href);
}
