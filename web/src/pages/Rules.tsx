/**
 * Classification rules: the list in the order they are tried, and (with taxonomy:write) a form to create or change one
 * with a live preview of the catalog fields it would take, enable/disable, order and delete.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ok, type Datasource, type Level, type Schemas, type Tag } from '../api/client';
import type { paths } from '../api/schema';
import { ProblemError, session } from '../api/session';
import { Dialog } from '../components/Dialog';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { TagPicker } from '../components/TagPicker';
import { loadDatasources, loadLevels, loadTags } from '../data';
import { useLocation } from '../router';

export type Rule = Schemas<'/api/v1/classification/rules', 'get'>['items'][number];
type RuleBody = NonNullable<
  paths['/api/v1/classification/rules']['post']['requestBody']
>['content']['application/json'];
type RuleMatch = RuleBody['match'];
type Family = NonNullable<RuleMatch['data_type_family']>[number];
type Preview = Schemas<'/api/v1/classification/rules/preview', 'post'>;

const FAMILIES: Family[] = ['text', 'integer', 'decimal', 'boolean', 'date', 'datetime', 'uuid', 'binary', 'json'];
const PREVIEW_DELAY_MS = 400;
const PREVIEW_ROWS = 10;

/** The rule's match in words, e.g. "column name matches /^iban/ and type is text". */
export function describeMatch(match: RuleMatch): string {
  const parts: string[] = [];
  if (match.column_name !== undefined) parts.push(`column name matches /${match.column_name}/`);
  if (match.table_name !== undefined) parts.push(`table name matches /${match.table_name}/`);
  if (match.comment !== undefined) parts.push(`comment matches /${match.comment}/`);
  if (match.data_type_family?.length) parts.push(`type is ${match.data_type_family.join(' or ')}`);
  if (match.values) {
    const share = `${Math.round((match.values.min_share ?? 0.8) * 100)} %`;
    const what = [
      match.values.pattern !== undefined ? `match /${match.values.pattern}/` : '',
      match.values.in
        ? `are one of ${match.values.in.length} listed value${match.values.in.length === 1 ? '' : 's'}`
        : '',
    ]
      .filter(Boolean)
      .join(' and ');
    parts.push(`at least ${share} of the sampled values ${what}`);
  }
  return parts.join(' and ');
}

interface Form {
  id: string | null;
  name: string;
  description: string;
  tag: Tag | null;
  level: string;
  priority: string;
  enabled: boolean;
  column: string;
  table: string;
  comment: string;
  families: Set<Family>;
  valuesPattern: string;
  valuesIn: string;
  minShare: string;
  everySource: boolean;
  sources: Set<string>;
}

const emptyForm = (): Form => ({
  id: null,
  name: '',
  description: '',
  tag: null,
  level: '',
  priority: '0',
  enabled: true,
  column: '',
  table: '',
  comment: '',
  families: new Set(),
  valuesPattern: '',
  valuesIn: '',
  minShare: '0.8',
  everySource: true,
  sources: new Set(),
});

function formOf(rule: Rule, tags: Tag[]): Form {
  const m = rule.match;
  return {
    id: rule.id,
    name: rule.name,
    description: rule.description ?? '',
    tag: tags.find((t) => t.id === rule.tag_id) ?? null,
    level: rule.level ?? '',
    priority: String(rule.priority),
    enabled: rule.enabled,
    column: m.column_name ?? '',
    table: m.table_name ?? '',
    comment: m.comment ?? '',
    families: new Set(m.data_type_family ?? []),
    valuesPattern: m.values?.pattern ?? '',
    valuesIn: (m.values?.in ?? []).join('\n'),
    minShare: String(m.values?.min_share ?? 0.8),
    everySource: rule.datasource_ids === null,
    sources: new Set(rule.datasource_ids ?? []),
  };
}

/** The form as a request body, or why it cannot be sent yet. */
function bodyOf(form: Form): { body: RuleBody } | { missing: string } {
  if (!form.tag) return { missing: 'Choose a tag.' };
  const match: RuleMatch = {};
  if (form.column) match.column_name = form.column;
  if (form.table) match.table_name = form.table;
  if (form.comment) match.comment = form.comment;
  if (form.families.size) match.data_type_family = FAMILIES.filter((f) => form.families.has(f));
  const list = form.valuesIn
    .split('\n')
    .map((v) => v.trim())
    .filter(Boolean);
  if (form.valuesPattern || list.length) {
    match.values = {
      ...(form.valuesPattern ? { pattern: form.valuesPattern } : {}),
      ...(list.length ? { in: list } : {}),
      min_share: Number(form.minShare),
    };
  }
  if (Object.keys(match).length === 0)
    return { missing: 'Give at least one part of the match (a pattern, a type family or values).' };
  const priority = Number(form.priority);
  if (!Number.isInteger(priority)) return { missing: 'The priority is a whole number.' };
  if (!form.everySource && form.sources.size === 0)
    return { missing: 'Choose at least one data source, or every data source.' };
  return {
    body: {
      name: form.name.trim() || 'untitled',
      description: form.description.trim() || null,
      tag_id: form.tag.id,
      level: form.level || null,
      priority,
      enabled: form.enabled,
      match,
      datasource_ids: form.everySource ? null : [...form.sources],
    },
  };
}

/** The server's message for one field of the form (problem `errors` paths, with or without the preview's /rule prefix). */
function fieldError(error: unknown, path: string): string | undefined {
  if (!(error instanceof ProblemError)) return undefined;
  return error.problem.errors
    ?.filter((e) => e.path.replace(/^\/rule(?=\/)/, '') === path)
    .map((e) => e.message)
    .join('; ');
}

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="field-error" id={id} data-testid={id}>
      {message}
    </p>
  );
}

/** The rules, and what the form and the list name them by: tags, levels, data sources. */
function useRules() {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [tags, setTags] = useState<Tag[]>([]);
  const [levels, setLevels] = useState<Level[]>([]);
  const [sources, setSources] = useState<Datasource[]>([]);
  const [error, setError] = useState<unknown>(null);

  const load = () => ok(api.GET('/api/v1/classification/rules')).then((r) => setRules(r.items), setError);
  useEffect(() => {
    if (!session.can('field:read')) return;
    void load();
    void loadTags().then(setTags, setError);
    void loadLevels().then(setLevels, setError);
    if (session.can('datasource:read')) void loadDatasources().then(setSources, () => setSources([]));
  }, []);
  return { rules, setRules, tags, levels, sources, error, setError, load };
}

type RulesState = ReturnType<typeof useRules>;

/** Changes to the list: each says what it did, or shows why not, and reads the list again. */
function useRuleActions({ rules, setRules, setError, load }: RulesState, setStatus: (message: string) => void) {
  const run = async (what: string, call: () => Promise<unknown>): Promise<boolean> => {
    setError(null);
    try {
      await call();
      await load();
      setStatus(what);
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  };
  const patch = (rule: Rule, body: Partial<RuleBody>) =>
    ok(api.PATCH('/api/v1/classification/rules/{id}', { params: { path: { id: rule.id } }, body }));

  /** Moves a rule one place up or down: swaps priorities with its neighbour (or goes one above/below an equal one). */
  const move = (index: number, step: -1 | 1) => {
    if (!rules) return;
    const rule = rules[index];
    const other = rules[index + step];
    if (!rule || !other) return;
    void run(`Moved ${rule.name} ${step < 0 ? 'up' : 'down'}.`, async () => {
      if (rule.priority === other.priority) {
        await patch(rule, { priority: other.priority - step });
      } else {
        await patch(rule, { priority: other.priority });
        await patch(other, { priority: rule.priority });
      }
    });
  };

  /** Enable or disable at once on screen; the list is read again either way (a refusal puts the box back). */
  const toggle = (rule: Rule) => {
    setRules((list) => list?.map((r) => (r.id === rule.id ? { ...r, enabled: !rule.enabled } : r)) ?? null);
    void run(`${rule.enabled ? 'Disabled' : 'Enabled'} ${rule.name}.`, () =>
      patch(rule, { enabled: !rule.enabled }),
    ).then((done) => (done ? undefined : load()));
  };

  const remove = (rule: Rule) =>
    void run(`Deleted ${rule.name}.`, () =>
      ok(api.DELETE('/api/v1/classification/rules/{id}', { params: { path: { id: rule.id } } })),
    );

  return { move, toggle, remove };
}

type RuleActions = ReturnType<typeof useRuleActions>;

export function RulesPage() {
  const { query } = useLocation();
  const state = useRules();
  const { rules, tags, levels, sources, error, setError, load } = state;
  const [status, setStatus] = useState('');
  const [form, setForm] = useState<Form | null>(null);
  const [deleting, setDeleting] = useState<Rule | null>(null);
  const actions = useRuleActions(state, setStatus);
  const canWrite = session.can('taxonomy:write');
  const highlight = query.get('rule');

  useEffect(() => {
    if (highlight && rules) document.querySelector('tr.highlight')?.scrollIntoView({ block: 'center' });
  }, [highlight, rules]);
  if (!session.can('field:read')) return <NoPermission permission="field:read" what="The rules" />;

  return (
    <section aria-labelledby="rules-title">
      <h1 id="rules-title">Classification rules</h1>
      <p class="muted">
        The enabled rule of highest priority whose every part matches decides a field the classifier would classify (not
        one an import gave, or a reviewer confirmed or locked). Tried from the top.
      </p>
      {!canWrite && (
        <div class="notice info" role="note" data-testid="rules-readonly">
          Read only: changing rules needs the permission <code>taxonomy:write</code>.
        </div>
      )}
      <StatusLine message={status} />
      {!form && <ProblemNotice error={error} />}
      {canWrite && !form && (
        <div class="toolbar">
          <button type="button" class="primary" onClick={() => setForm(emptyForm())}>
            New rule
          </button>
        </div>
      )}
      {form && (
        <RuleForm
          key={form.id ?? 'new'}
          initial={form}
          levels={levels}
          sources={sources}
          onCancel={() => {
            setForm(null);
            setError(null);
          }}
          onSaved={(what) => {
            setForm(null);
            // Said once the list shows the saved rule: never "Saved" next to the rule as it was.
            void load().then(() => setStatus(what));
          }}
        />
      )}
      {rules && rules.length === 0 && (
        <p data-testid="no-rules">
          No rules yet: every field the classifier decides is decided by the classifier alone.
        </p>
      )}
      {rules && rules.length > 0 && (
        <RulesTable
          rules={rules}
          tags={tags}
          sources={sources}
          highlight={highlight}
          canWrite={canWrite}
          actions={actions}
          onEdit={(rule) => setForm(formOf(rule, tags))}
          onDelete={setDeleting}
        />
      )}
      {deleting && (
        <DeleteRuleDialog
          rule={deleting}
          onClose={() => setDeleting(null)}
          onDelete={() => {
            setDeleting(null);
            actions.remove(deleting);
          }}
        />
      )}
    </section>
  );
}

interface RulesTableProps {
  rules: Rule[];
  tags: Tag[];
  sources: Datasource[];
  highlight: string | null;
  canWrite: boolean;
  actions: RuleActions;
  onEdit: (rule: Rule) => void;
  onDelete: (rule: Rule) => void;
}

function RulesTable(props: RulesTableProps) {
  const { rules, canWrite } = props;
  return (
    <table class="rules" data-testid="rules">
      <caption class="sr-only">Rules in the order they are tried</caption>
      <thead>
        <tr>
          <th scope="col">Priority</th>
          <th scope="col">Rule</th>
          <th scope="col">Gives</th>
          <th scope="col">Matches when</th>
          <th scope="col">Scope</th>
          <th scope="col">Enabled</th>
          {canWrite && <th scope="col">Actions</th>}
        </tr>
      </thead>
      <tbody>
        {rules.map((rule, i) => (
          <RuleRow key={rule.id} rule={rule} index={i} {...props} />
        ))}
      </tbody>
    </table>
  );
}

function RuleRow({
  rule,
  index: i,
  rules,
  tags,
  sources,
  highlight,
  canWrite,
  actions: { move, toggle },
  onEdit,
  onDelete,
}: RulesTableProps & { rule: Rule; index: number }) {
  const sourceName = (id: string) => sources.find((s) => s.id === id)?.name ?? id.slice(0, 8);
  const levelText = rule.level ?? `tag default (${tags.find((t) => t.id === rule.tag_id)?.default_level ?? '?'})`;
  return (
    <tr id={`rule-${rule.id}`} class={rule.name === highlight ? 'highlight' : undefined} data-rule={rule.name}>
      <td class="num">{rule.priority}</td>
      <th scope="row">
        {rule.name}
        {rule.description && <div class="muted small">{rule.description}</div>}
      </th>
      <td>
        <span class="path">{rule.chain_path}</span> <span class="level">{levelText}</span>
      </td>
      <td class="match">{describeMatch(rule.match)}</td>
      <td>{rule.datasource_ids === null ? 'every data source' : rule.datasource_ids.map(sourceName).join(', ')}</td>
      <td>
        {canWrite ? (
          <label class="inline">
            <input type="checkbox" checked={rule.enabled} onChange={() => toggle(rule)} /> {rule.enabled ? 'on' : 'off'}
            <span class="sr-only"> (rule {rule.name})</span>
          </label>
        ) : rule.enabled ? (
          'on'
        ) : (
          'off'
        )}
      </td>
      {canWrite && (
        <td class="actions">
          <button
            type="button"
            class="small"
            disabled={i === 0}
            onClick={() => move(i, -1)}
            aria-label={`Move ${rule.name} up`}
          >
            ↑
          </button>
          <button
            type="button"
            class="small"
            disabled={i === rules.length - 1}
            onClick={() => move(i, 1)}
            aria-label={`Move ${rule.name} down`}
          >
            ↓
          </button>
          <button type="button" class="small" onClick={() => onEdit(rule)}>
            Edit <span class="sr-only">{rule.name}</span>
          </button>
          <button type="button" class="small danger" onClick={() => onDelete(rule)}>
            Delete <span class="sr-only">{rule.name}</span>
          </button>
        </td>
      )}
    </tr>
  );
}

function DeleteRuleDialog({ rule, onClose, onDelete }: { rule: Rule; onClose: () => void; onDelete: () => void }) {
  return (
    <Dialog title={`Delete rule ${rule.name}?`} onClose={onClose}>
      <p>The fields it decided go back to the classifier (re-evaluated in the background). This cannot be undone.</p>
      <div class="buttons">
        <button type="button" class="primary danger" onClick={onDelete}>
          Delete
        </button>
        <button type="button" autoFocus onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

interface PreviewState {
  result: Preview | null;
  error: unknown;
  loading: boolean;
}

/** The live preview: asked PREVIEW_DELAY_MS after the last change; an older answer never replaces a newer one. */
function useRulePreview(built: ReturnType<typeof bodyOf>): PreviewState {
  const [preview, setPreview] = useState<PreviewState>({ result: null, error: null, loading: false });
  const previewKey = 'body' in built ? JSON.stringify({ ...built.body, name: 'preview', description: null }) : null;
  const seq = useRef(0);

  useEffect(() => {
    if (!previewKey) {
      setPreview({ result: null, error: null, loading: false });
      return;
    }
    const mine = ++seq.current;
    setPreview((p) => ({ ...p, loading: true }));
    const timer = setTimeout(() => {
      ok(
        api.POST('/api/v1/classification/rules/preview', {
          body: { rule: JSON.parse(previewKey) as RuleBody, limit: PREVIEW_ROWS },
        }),
      ).then(
        (result) => mine === seq.current && setPreview({ result, error: null, loading: false }),
        (e: unknown) => mine === seq.current && setPreview({ result: null, error: e, loading: false }),
      );
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [previewKey]);
  return preview;
}

type SetForm = (patch: Partial<Form>) => void;

/** Adds `item` to the set, or takes it out. */
function toggled<T>(set: Set<T>, item: T): Set<T> {
  const next = new Set(set);
  if (next.has(item)) next.delete(item);
  else next.add(item);
  return next;
}

function RuleForm({
  initial,
  levels,
  sources,
  onCancel,
  onSaved,
}: {
  initial: Form;
  levels: Level[];
  sources: Datasource[];
  onCancel: () => void;
  onSaved: (what: string) => void;
}) {
  const [form, setForm] = useState<Form>(initial);
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const set: SetForm = (patch) => setForm((f) => ({ ...f, ...patch }));
  const built = useMemo(() => bodyOf(form), [form]);
  const preview = useRulePreview(built);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!('body' in built)) return;
    setSaving(true);
    setError(null);
    const body = { ...built.body, name: form.name.trim() };
    try {
      if (form.id)
        await ok(api.PATCH('/api/v1/classification/rules/{id}', { params: { path: { id: form.id } }, body }));
      else await ok(api.POST('/api/v1/classification/rules', { body }));
      onSaved(
        `${form.id ? 'Saved' : 'Created'} rule ${body.name}; the fields it decides are re-evaluated in the background.`,
      );
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  // A refused pattern is named next to its field, whether the preview or the save found it.
  const problem = error ?? preview.error;
  const errorAt = (path: string) => fieldError(problem, path);

  return (
    <form class="card rule-form" onSubmit={(e) => void submit(e)} aria-labelledby="rule-form-title">
      <h2 id="rule-form-title">{form.id ? `Edit rule ${initial.name}` : 'New rule'}</h2>
      <div class="rule-form-grid">
        <div class="rule-fields">
          <RuleBasics form={form} set={set} levels={levels} errorAt={errorAt} />
          <MatchFieldset form={form} set={set} errorAt={errorAt} />
          <ScopeFieldset form={form} set={set} sources={sources} />
          <ProblemNotice error={error} />
          <div class="buttons">
            <button type="submit" class="primary" disabled={saving || !('body' in built) || !form.name.trim()}>
              {form.id ? 'Save rule' : 'Create rule'}
            </button>
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          </div>
        </div>
        <RulePreview built={built} preview={preview} />
      </div>
    </form>
  );
}

interface FormPartProps {
  form: Form;
  set: SetForm;
  errorAt: (path: string) => string | undefined;
}

/** Name, description, tag, level, priority and whether it is on. */
function RuleBasics({ form, set, levels, errorAt }: FormPartProps & { levels: Level[] }) {
  const defaultLevel = form.tag?.default_level;
  return (
    <>
      <div class="form-row">
        <label for="rule-name">Name</label>
        <input
          id="rule-name"
          required
          maxLength={100}
          value={form.name}
          onInput={(e) => set({ name: (e.target as HTMLInputElement).value })}
        />
        <FieldError id="rule-name-error" message={errorAt('/name')} />
      </div>
      <div class="form-row">
        <label for="rule-description">Description</label>
        <input
          id="rule-description"
          maxLength={1000}
          value={form.description}
          onInput={(e) => set({ description: (e.target as HTMLInputElement).value })}
        />
      </div>
      <TagPicker label="Tag" value={form.tag} onChange={(tag) => set({ tag })} />
      <FieldError id="rule-tag-error" message={errorAt('/tag_id')} />
      <div class="form-row">
        <label for="rule-level">Level</label>
        <select
          id="rule-level"
          value={form.level}
          onChange={(e) => set({ level: (e.target as HTMLSelectElement).value })}
        >
          <option value="">Tag default{defaultLevel ? ` (${defaultLevel})` : ''}</option>
          {levels.map((l) => (
            <option key={l.code} value={l.code}>
              {l.code} · {l.name}
            </option>
          ))}
        </select>
      </div>
      <div class="form-row">
        <label for="rule-priority">Priority (higher is tried first)</label>
        <input
          id="rule-priority"
          type="number"
          step={1}
          value={form.priority}
          onInput={(e) => set({ priority: (e.target as HTMLInputElement).value })}
        />
      </div>
      <label class="inline">
        <input type="checkbox" checked={form.enabled} onChange={() => set({ enabled: !form.enabled })} /> Enabled
      </label>
    </>
  );
}

interface PatternRowProps extends FormPartProps {
  id: string;
  label: string;
  field: 'column' | 'table' | 'comment' | 'valuesPattern';
  path: string;
  hint: string;
}

/** One pattern of the match, with the server's word on it when it refused it. */
function PatternRow({ form, set, errorAt, id, label, field, path, hint }: PatternRowProps) {
  const message = errorAt(path);
  return (
    <div class="form-row">
      <label for={id}>{label}</label>
      <input
        id={id}
        class="mono"
        value={form[field]}
        maxLength={1000}
        placeholder={hint}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-error` : undefined}
        onInput={(e) => set({ [field]: (e.target as HTMLInputElement).value } as Partial<Form>)}
      />
      <FieldError id={`${id}-error`} message={message} />
    </div>
  );
}

function MatchFieldset(props: FormPartProps) {
  const { form, set, errorAt } = props;
  return (
    <fieldset>
      <legend>Matches when (every part given must hold)</legend>
      <PatternRow
        {...props}
        id="rule-column"
        label="Column name pattern"
        field="column"
        path="/match/column_name"
        hint="e.g. ^(treuekarte|bonuskarte)"
      />
      <PatternRow
        {...props}
        id="rule-table"
        label="Table name pattern"
        field="table"
        path="/match/table_name"
        hint="e.g. kunden|mitglieder"
      />
      <PatternRow
        {...props}
        id="rule-comment"
        label="Comment pattern"
        field="comment"
        path="/match/comment"
        hint="e.g. loyalty card"
      />
      <fieldset class="families">
        <legend>Type families</legend>
        {FAMILIES.map((f) => (
          <label key={f} class="inline">
            <input
              type="checkbox"
              checked={form.families.has(f)}
              onChange={() => set({ families: toggled(form.families, f) })}
            />{' '}
            {f}
          </label>
        ))}
      </fieldset>
      <PatternRow
        {...props}
        id="rule-values-pattern"
        label="Value pattern"
        field="valuesPattern"
        path="/match/values/pattern"
        hint="e.g. ^TK-\d{6}$"
      />
      <div class="form-row">
        <label for="rule-values-in">Value list (one a line)</label>
        <textarea
          id="rule-values-in"
          rows={3}
          value={form.valuesIn}
          onInput={(e) => set({ valuesIn: (e.target as HTMLTextAreaElement).value })}
        />
        <FieldError id="rule-values-in-error" message={errorAt('/match/values/in')} />
      </div>
      <div class="form-row">
        <label for="rule-min-share">Share of the samples that must match (0–1)</label>
        <input
          id="rule-min-share"
          type="number"
          min={0}
          max={1}
          step={0.05}
          value={form.minShare}
          onInput={(e) => set({ minShare: (e.target as HTMLInputElement).value })}
        />
      </div>
      <p class="muted small">
        Value parts are judged on samples at the next import or scan; the preview leaves them out.
      </p>
    </fieldset>
  );
}

function ScopeFieldset({ form, set, sources }: { form: Form; set: SetForm; sources: Datasource[] }) {
  return (
    <fieldset>
      <legend>Data sources</legend>
      <label class="inline">
        <input type="radio" name="rule-scope" checked={form.everySource} onChange={() => set({ everySource: true })} />{' '}
        Every data source
      </label>
      <label class="inline">
        <input
          type="radio"
          name="rule-scope"
          checked={!form.everySource}
          onChange={() => set({ everySource: false })}
        />{' '}
        Only these:
      </label>
      {!form.everySource &&
        sources.map((s) => (
          <label key={s.id} class="inline">
            <input
              type="checkbox"
              checked={form.sources.has(s.id)}
              onChange={() => set({ sources: toggled(form.sources, s.id) })}
            />{' '}
            {s.name}
          </label>
        ))}
    </fieldset>
  );
}

/** The catalog fields the rule would take, or why it cannot be asked yet. */
function RulePreview({ built, preview }: { built: ReturnType<typeof bodyOf>; preview: PreviewState }) {
  return (
    <section class="preview" aria-labelledby="rule-preview-title" aria-busy={preview.loading}>
      <h3 id="rule-preview-title">Preview</h3>
      {'missing' in built ? (
        <p class="muted">{built.missing}</p>
      ) : preview.error ? (
        <ProblemNotice error={preview.error} />
      ) : preview.result ? (
        <PreviewResult result={preview.result} />
      ) : (
        <p class="muted">Looking at the catalog…</p>
      )}
    </section>
  );
}

function PreviewResult({ result }: { result: Preview }) {
  return (
    <>
      <p data-testid="preview-count" role="status">
        {result.matched === 1 ? '1 field' : `${result.matched.toLocaleString('en')} fields`} in the catalog would be
        decided by this rule
        {result.matched > result.items.length && `; the first ${result.items.length}:`}
      </p>
      {result.items.length > 0 && (
        <table class="preview-items">
          <thead>
            <tr>
              <th scope="col">Table</th>
              <th scope="col">Column</th>
              <th scope="col">Now</th>
            </tr>
          </thead>
          <tbody>
            {result.items.map((f) => (
              <tr key={f.field_id}>
                <td>{f.table_name}</td>
                <td>
                  <a href={`/fields/${f.field_id}`}>{f.field_name}</a>
                </td>
                <td>
                  {f.current_chain_path} <span class="level">{f.current_level}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
