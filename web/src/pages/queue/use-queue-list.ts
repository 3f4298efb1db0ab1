/**
 * The list the queue shows: loaded for the address's filters (and again on `reload`), with its minibars. While a new
 * list loads the old one stays, marked stale: its rows are shown dimmed and take no decision.
 */
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ok, serverCapabilities, type FieldItem, type MinibarItem, type MinibarsResponse } from '../../api/client';
import { loadDatasources } from '../../data';
import type { Filters } from './filters';

/** A list as loaded: the filters it answers (their address) and a number that changes with every load. */
export interface Loaded {
  key: string;
  seq: number;
  rows: FieldItem[];
}

export interface QueueListEvents {
  onError: (error: unknown) => void;
  /** A new list arrived, showing the fields `shown`: called in the same turn as the list is set. */
  onLoaded: (shown: ReadonlySet<string>) => void;
}

export function useQueueList(filters: Filters, filtersKey: string, events: QueueListEvents) {
  const [list, setList] = useState<Loaded | null>(null);
  const [metrics, setMetrics] = useState<Map<string, MinibarItem>>(new Map());
  const [baseline, setBaseline] = useState<MinibarsResponse['baseline_scores'] | undefined>();
  const [metricsError, setMetricsError] = useState<unknown>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [riskSort, setRiskSort] = useState(false);
  // Whether the list shows the built-in sample data, and whether there is any to show.
  const [sampleShown, setSampleShown] = useState(true);
  const [hasSample, setHasSample] = useState(false);
  // Bumped after an upload of decisions: the list is read again with the same filters.
  const [reloads, setReloads] = useState(0);
  const loads = useRef(0);
  const eventsRef = useRef(events);
  eventsRef.current = events;

  useEffect(() => {
    let cancelled = false;
    eventsRef.current.onError(null);
    void (async () => {
      try {
        const caps = await serverCapabilities();
        setRiskSort(caps.riskSort);
        const { cursor, sort, include_sample, ...rest } = filters;
        // sort=risk is the order reviewers want; until the server offers it, the outlier score is the closest.
        const apiSort = (sort === 'risk' ? (caps.riskSort ? 'risk' : 'outlier_score') : sort) as 'outlier_score';
        // The sample catalog would fill the top of the queue: hidden once the reviewer has a source of their own
        // (a role that cannot list data sources gets the API's default, everything).
        const sources = await loadDatasources().catch(() => null);
        const includeSample = include_sample ?? !(sources ?? []).some((d) => !d.is_sample);
        const page = await ok(
          api.GET('/api/v1/fields', {
            params: { query: { ...rest, sort: apiSort, include_sample: includeSample, ...(cursor ? { cursor } : {}) } },
          }),
        );
        let bars: MinibarsResponse | undefined;
        let barsError: unknown = null;
        if (page.items.length > 0) {
          try {
            bars = await ok(
              api.POST('/api/v1/classify/fields/embedding-minibars', {
                body: { field_ids: page.items.map((f) => f.id) },
              }),
            );
          } catch (e) {
            barsError = e;
          }
        }
        if (cancelled) return;
        performance.clearMarks('queue-render-start');
        performance.mark('queue-render-start', { detail: { rows: page.items.length } });
        setList({ key: filtersKey, seq: ++loads.current, rows: page.items });
        setMetrics(new Map((bars?.items ?? []).map((m) => [m.field_id, m])));
        setBaseline(bars?.baseline_scores);
        setMetricsError(barsError);
        setNextCursor(page.next_cursor);
        setSampleShown(includeSample);
        setHasSample((sources ?? []).some((d) => d.is_sample));
        eventsRef.current.onLoaded(new Set(page.items.map((f) => f.id)));
      } catch (e) {
        if (!cancelled) eventsRef.current.onError(e);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [filtersKey, reloads]);

  const rows = list?.rows ?? null;
  // The filters changed and their list is not here yet: the rows on screen answer the old filters.
  const stale = list !== null && list.key !== filtersKey;

  return {
    list,
    rows,
    stale,
    metrics,
    baseline,
    metricsError,
    nextCursor,
    riskSort,
    sampleShown,
    hasSample,
    reload: () => setReloads((n) => n + 1),
    /** The ids among `ids` that the current list shows (a decision never reaches a row that is not on screen). */
    onScreen: (ids: readonly string[]): string[] => {
      if (!rows || stale) return [];
      const shown = new Set(rows.map((r) => r.id));
      return ids.filter((id) => shown.has(id));
    },
    patchRows: (patch: (row: FieldItem) => FieldItem) =>
      setList((current) => (current ? { ...current, rows: current.rows.map(patch) } : current)),
    /** Forgets the minibars of `ids` (their scores were for a classification they no longer have). */
    dropMetrics: (ids: ReadonlySet<string>) =>
      setMetrics((current) => new Map([...current].filter(([id]) => !ids.has(id)))),
  };
}

export type QueueList = ReturnType<typeof useQueueList>;

/** Render time of a page of rows, layout included: from the data's arrival to the rows laid out. */
export function useRenderTiming(list: Loaded | null, body: RefObject<HTMLDivElement | null>): void {
  useLayoutEffect(() => {
    if (!list || performance.getEntriesByName('queue-render-start').length === 0) return;
    performance.mark('queue-commit');
    void body.current?.offsetHeight;
    performance.mark('queue-render-end');
    performance.measure('queue-render', 'queue-render-start', 'queue-render-end');
    performance.clearMarks('queue-render-start');
    document.body.dataset.queueRows = String(list.rows.length);
  }, [list?.seq]);
}
