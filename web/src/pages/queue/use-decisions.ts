/**
 * The decisions taken on the queue's rows: confirm (one, many, as another tag or level), defer, accept a suggestion.
 * Each acts only on rows the current list shows, one at a time, and shows its outcome at once, then the fields as the
 * server now has them.
 */
import { useState } from 'preact/hooks';
import { api, extras, ok, type FieldItem } from '../../api/client';
import { acceptBody, confirmField, confirmFields, deferFields, type ConfirmBody } from '../../components/decisions';
import { explain } from '../../components/ProblemNotice';
import type { ReviewStatus } from './filters';
import type { QueueList } from './use-queue-list';

interface Outcome {
  message: string;
  done: string[];
  status: ReviewStatus;
}

export function useDecisions(
  list: QueueList,
  report: { onStatus: (message: string) => void; onError: (error: unknown) => void; clearSelection: () => void },
) {
  const [busy, setBusy] = useState(false);
  // Confirmed on this page: their stored score, severity, minibars and suggestion were for the old classification
  // (the server recomputes them in the background), so the row shows none of them.
  const [rescoring, setRescoring] = useState<Set<string>>(new Set());
  const { onStatus, onError, clearSelection } = report;

  /** Shows the decision at once, then the fields as the server now has them. */
  const decided = async (ids: string[], reviewStatus: ReviewStatus) => {
    const decidedIds = new Set(ids);
    if (reviewStatus === 'confirmed') {
      setRescoring((current) => new Set([...current, ...ids]));
      list.dropMetrics(decidedIds);
    }
    list.patchRows((r) => (decidedIds.has(r.id) ? { ...r, review_status: reviewStatus } : r));
    const fresh = await Promise.all(
      ids.map((id) => ok(api.GET('/api/v1/fields/{id}', { params: { path: { id } } })).catch(() => undefined)),
    );
    const byId = new Map(fresh.filter((f): f is FieldItem => f !== undefined).map((f) => [f.id, f]));
    list.patchRows((r) => byId.get(r.id) ?? r);
  };

  const act = async (what: string, run: () => Promise<Outcome>) => {
    setBusy(true);
    onError(null);
    try {
      const result = await run();
      onStatus(result.message);
      await decided(result.done, result.status);
    } catch (e) {
      onError(e);
      onStatus(`${what} failed: ${explain(e).summary}`);
    } finally {
      setBusy(false);
    }
  };

  const confirmOne = (field: FieldItem, body: ConfirmBody = {}) => {
    if (list.onScreen([field.id]).length === 0) return;
    return act('Confirm', async () => {
      await confirmField(field.id, body);
      return { message: `Confirmed ${field.table_name}.${field.field_name}.`, done: [field.id], status: 'confirmed' };
    });
  };

  const confirmMany = (wanted: string[], body: ConfirmBody = {}) => {
    const ids = list.onScreen(wanted);
    if (ids.length === 0) return;
    return act('Batch confirm', async () => {
      const result = await confirmFields(ids, body);
      clearSelection();
      return {
        message: `Confirmed ${result.confirmed.length}, skipped ${result.skipped}, errors ${result.errors}.`,
        done: result.confirmed,
        status: 'confirmed',
      };
    });
  };

  const deferMany = (wanted: string[], reason: string) => {
    const ids = list.onScreen(wanted);
    if (ids.length === 0) return;
    return act('Defer', async () => {
      await deferFields(ids, reason);
      if (ids.length > 1) clearSelection();
      return { message: `Deferred ${ids.length} field${ids.length === 1 ? '' : 's'}.`, done: ids, status: 'deferred' };
    });
  };

  const suggestionOf = (field: FieldItem) =>
    rescoring.has(field.id)
      ? null
      : (extras(field).suggested_classification ?? extras(list.metrics.get(field.id)).suggested_classification ?? null);

  return {
    busy,
    rescoring,
    /** A new list: none of its rows was decided on this page yet. */
    forgetRescoring: () => setRescoring(new Set()),
    confirmOne,
    confirmMany,
    deferMany,
    suggestionOf,
    acceptSuggestion: (field: FieldItem) => {
      const s = suggestionOf(field);
      if (s) void confirmOne(field, acceptBody(s));
    },
  };
}

export type Decisions = ReturnType<typeof useDecisions>;
