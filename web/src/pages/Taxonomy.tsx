/**
 * The taxonomy: the tag tree with each tag's field counts by level (from the inventory report's aggregate), and (with
 * taxonomy:write) per tag: rename, move under another parent, change the default level, delete with a replacement.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ok, type Level, type Schemas, type Tag } from '../api/client';
import { ProblemError, session } from '../api/session';
import { Dialog } from '../components/Dialog';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { TagPicker } from '../components/TagPicker';
import { loadLevels, loadTags } from '../data';

type TagCount = Schemas<'/api/v1/reports/inventory', 'get'>['by_tag'][number];
interface Node {
  tag: Tag;
  children: Node[];
  /** Fields of this tag and of every tag below it. */
  total: number;
}

function buildTree(tags: Tag[], counts: Map<number, TagCount>): Node[] {
  const nodes = new Map(tags.map((t) => [t.id, { tag: t, children: [] as Node[], total: 0 }]));
  const roots: Node[] = [];
  for (const node of nodes.values()) {
    const parent = node.tag.parent_id === null ? undefined : nodes.get(node.tag.parent_id);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const sum = (n: Node): number =>
    (n.total = (counts.get(n.tag.id)?.fields ?? 0) + n.children.reduce((s, c) => s + sum(c), 0));
  const sort = (list: Node[]) => {
    list.sort((a, b) => a.tag.name.localeCompare(b.tag.name));
    for (const n of list) sort(n.children);
  };
  for (const r of roots) sum(r);
  sort(roots);
  return roots;
}

/** A failed tag change in words for this page, before the server's own detail. */
function TagProblem({ error, action }: { error: unknown; action: 'move' | 'delete' | 'other' }) {
  if (!error) return null;
  const code = error instanceof ProblemError ? error.code : undefined;
  const hint =
    action === 'move' &&
    code === 'unprocessable' &&
    error instanceof ProblemError &&
    error.problem.errors?.some((e) => e.message.includes('cycle'))
      ? 'A tag cannot move under itself or under a tag below it (that would make a cycle). Choose a parent outside this branch.'
      : action === 'delete' && code === 'conflict'
        ? 'This tag, or a tag below it, still classifies fields or is used by rules. Choose a replacement tag: its fields and rules move there.'
        : null;
  return (
    <div data-testid={`tag-problem-${action}`}>
      {hint && (
        <p class="field-error" data-testid="tag-problem-hint">
          {hint}
        </p>
      )}
      <ProblemNotice error={error} />
    </div>
  );
}

/** The tags with their field counts (from the inventory report) and the levels; `load(true)` reads them afresh. */
function useTaxonomy() {
  const [tags, setTags] = useState<Tag[] | null>(null);
  const [counts, setCounts] = useState<Map<number, TagCount>>(new Map());
  const [levels, setLevels] = useState<Level[]>([]);
  const [error, setError] = useState<unknown>(null);

  const load = async (fresh: boolean) => {
    const [t, report] = await Promise.all([loadTags(fresh), ok(api.GET('/api/v1/reports/inventory'))]);
    setTags(t);
    setCounts(new Map(report.by_tag.map((c) => [c.tag_id, c])));
  };
  useEffect(() => {
    if (!session.can('field:read')) return;
    load(true).catch(setError);
    void loadLevels().then(setLevels, setError);
  }, []);
  return { tags, counts, levels, error, setError, load };
}

export function TaxonomyPage() {
  const { tags, counts, levels, error, setError, load } = useTaxonomy();
  const [status, setStatus] = useState('');
  const [selected, setSelected] = useState<number | null>(null);
  const [open, setOpen] = useState<Set<number>>(new Set());
  const canWrite = session.can('taxonomy:write');
  const tree = useMemo(() => (tags ? buildTree(tags, counts) : []), [tags, counts]);
  if (!session.can('field:read')) return <NoPermission permission="field:read" what="The taxonomy" />;

  const tag = tags?.find((t) => t.id === selected) ?? null;
  const after = async (what: string) => {
    await load(true).catch(setError);
    setStatus(what);
  };
  const toggle = (id: number) =>
    setOpen((o) => {
      const next = new Set(o);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const rowProps = { counts, levels, open, selected, toggle, select: setSelected };

  return (
    <section aria-labelledby="taxonomy-title">
      <h1 id="taxonomy-title">Taxonomy</h1>
      {!canWrite && (
        <div class="notice info" role="note" data-testid="taxonomy-readonly">
          Read only: changing tags needs the permission <code>taxonomy:write</code>.
        </div>
      )}
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {!tags ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <div class="taxonomy">
          <div>
            <div class="toolbar">
              <button type="button" class="small" onClick={() => setOpen(new Set(tags.map((t) => t.id)))}>
                Expand all
              </button>
              <button type="button" class="small" onClick={() => setOpen(new Set())}>
                Collapse all
              </button>
            </div>
            <ul class="tag-tree" aria-label="Tags">
              {tree.map((node) => (
                <TagRow key={node.tag.id} node={node} {...rowProps} />
              ))}
            </ul>
          </div>
          {tag ? (
            <TagPanel
              key={`${tag.id}:${tag.chain_path}:${tag.default_level}`}
              tag={tag}
              count={counts.get(tag.id)}
              levels={levels}
              canWrite={canWrite}
              onChanged={(what) => void after(what)}
              onDeleted={(what) => {
                setSelected(null);
                void after(what);
              }}
            />
          ) : (
            <p class="muted">Choose a tag to see its fields by level{canWrite ? ' and to change it' : ''}.</p>
          )}
        </div>
      )}
    </section>
  );
}

interface TagRowProps {
  node: Node;
  counts: Map<number, TagCount>;
  levels: Level[];
  open: Set<number>;
  selected: number | null;
  toggle: (id: number) => void;
  select: (id: number) => void;
}

/** One tag of the tree: open or close, choose, its counts; the tags below it when open. */
function TagRow(props: TagRowProps) {
  const { node, counts, levels, open, selected, toggle, select } = props;
  const c = counts.get(node.tag.id);
  const own = c?.fields ?? 0;
  const breakdown = c
    ? levels.filter((l) => (c.by_level[l.code] ?? 0) > 0).map((l) => `${l.code} ${c.by_level[l.code]}`)
    : [];
  const expanded = open.has(node.tag.id);
  return (
    <li>
      <div class={`tag-row${selected === node.tag.id ? ' selected' : ''}`} data-tag={node.tag.chain_path}>
        {node.children.length > 0 ? (
          <button
            type="button"
            class="small toggle"
            aria-expanded={expanded}
            aria-label={`${expanded ? 'Collapse' : 'Expand'} ${node.tag.name}`}
            onClick={() => toggle(node.tag.id)}
          >
            {expanded ? '−' : '+'}
          </button>
        ) : (
          <span class="toggle" aria-hidden="true" />
        )}
        <button
          type="button"
          class="small tag-name"
          aria-pressed={selected === node.tag.id}
          onClick={() => select(node.tag.id)}
        >
          {node.tag.name}
        </button>
        <span class="level" title="Default level">
          {node.tag.default_level}
        </span>
        <span class="counts" data-testid="tag-counts">
          {own} field{own === 1 ? '' : 's'}
          {breakdown.length > 0 && ` (${breakdown.join(', ')})`}
          {node.total !== own && ` · ${node.total} with the tags below`}
        </span>
      </div>
      {node.children.length > 0 && expanded && (
        <ul>
          {node.children.map((child) => (
            <TagRow key={child.tag.id} {...props} node={child} />
          ))}
        </ul>
      )}
    </li>
  );
}

type TagFailure = { action: 'move' | 'delete' | 'other'; error: unknown };

/** Changes to one tag: each says what it did through `onChanged`/`onDeleted`, or keeps why not in `error`. */
function useTagChanges(tag: Tag, onChanged: (what: string) => void, onDeleted: (what: string) => void) {
  const [error, setError] = useState<TagFailure | null>(null);
  const [deleting, setDeleting] = useState(false);

  const patch = async (
    body: { name?: string; parent_id?: number | null; default_level?: string },
    what: string,
    action: 'move' | 'other',
  ) => {
    setError(null);
    try {
      await ok(api.PATCH('/api/v1/classification/tags/{id}', { params: { path: { id: tag.id } }, body }));
      onChanged(what);
    } catch (e) {
      setError({ action, error: e });
    }
  };
  const remove = async (replaceWith: Tag | null) => {
    setError(null);
    try {
      await ok(
        api.DELETE('/api/v1/classification/tags/{id}', {
          params: { path: { id: tag.id }, query: replaceWith ? { replace_with: replaceWith.id } : {} },
        }),
      );
      setDeleting(false);
      onDeleted(
        `Deleted ${tag.chain_path}${replaceWith ? `; its fields and rules moved to ${replaceWith.chain_path}` : ''}.`,
      );
    } catch (e) {
      setError({ action: 'delete', error: e });
    }
  };
  return { error, deleting, setDeleting, patch, remove };
}

type TagChanges = ReturnType<typeof useTagChanges>;

function TagPanel({
  tag,
  count,
  levels,
  canWrite,
  onChanged,
  onDeleted,
}: {
  tag: Tag;
  count: TagCount | undefined;
  levels: Level[];
  canWrite: boolean;
  onChanged: (what: string) => void;
  onDeleted: (what: string) => void;
}) {
  const changes = useTagChanges(tag, onChanged, onDeleted);
  const { error, deleting, setDeleting } = changes;
  const [replacement, setReplacement] = useState<Tag | null>(null);

  return (
    <aside class="card tag-panel" aria-labelledby="tag-panel-title">
      <h2 id="tag-panel-title">{tag.chain_path}</h2>
      <TagFacts tag={tag} count={count} levels={levels} />
      {canWrite && (
        <>
          {error && !deleting && <TagProblem error={error.error} action={error.action} />}
          <TagEditForms tag={tag} levels={levels} patch={changes.patch} />
          <div class="buttons">
            <button type="button" class="danger" onClick={() => setDeleting(true)}>
              Delete…
            </button>
          </div>
        </>
      )}
      {deleting && (
        <Dialog title={`Delete ${tag.chain_path}?`} onClose={() => setDeleting(false)}>
          <p>
            The tag and every tag below it are deleted. Their fields and the rules that give them move to the
            replacement, keeping their level and review state.
          </p>
          <TagPicker label="Replacement tag" value={replacement} onChange={setReplacement} />
          {error?.action === 'delete' && <TagProblem error={error.error} action="delete" />}
          <div class="buttons">
            <button type="button" class="primary danger" onClick={() => void changes.remove(replacement)}>
              {replacement ? 'Delete and move the fields' : 'Delete without a replacement'}
            </button>
            <button type="button" autoFocus onClick={() => setDeleting(false)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </aside>
  );
}

/** The tag's default level, description and field counts, in all and by level. */
function TagFacts({ tag, count, levels }: { tag: Tag; count: TagCount | undefined; levels: Level[] }) {
  return (
    <>
      <dl class="facts">
        <dt>Default level</dt>
        <dd>{tag.default_level}</dd>
        <dt>Fields</dt>
        <dd data-testid="tag-fields">{count?.fields ?? 0}</dd>
        {tag.description && (
          <>
            <dt>Description</dt>
            <dd>{tag.description}</dd>
          </>
        )}
      </dl>
      <table class="tag-levels" data-testid="tag-levels">
        <caption>Fields of this tag by level</caption>
        <thead>
          <tr>
            {levels.map((l) => (
              <th key={l.code} scope="col" class="num">
                {l.code}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            {levels.map((l) => (
              <td key={l.code} class="num">
                {count?.by_level[l.code] ?? 0}
              </td>
            ))}
          </tr>
        </tbody>
      </table>
    </>
  );
}

/** Rename, change the default level, move under another parent. */
function TagEditForms({ tag, levels, patch }: { tag: Tag; levels: Level[]; patch: TagChanges['patch'] }) {
  const [name, setName] = useState(tag.name);
  const [level, setLevel] = useState(tag.default_level);
  const [parent, setParent] = useState<Tag | null>(null);
  return (
    <>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void patch({ name: name.trim() }, `Renamed ${tag.chain_path} to ${name.trim()}.`, 'other');
        }}
      >
        <label for="tag-name">Name</label>
        <input
          id="tag-name"
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <div class="buttons">
          <button type="submit" disabled={!name.trim() || name.trim() === tag.name}>
            Rename
          </button>
        </div>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void patch({ default_level: level }, `The default level of ${tag.chain_path} is now ${level}.`, 'other');
        }}
      >
        <label for="tag-level">Default level</label>
        <select id="tag-level" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
          {levels.map((l) => (
            <option key={l.code} value={l.code}>
              {l.code} · {l.name}
            </option>
          ))}
        </select>
        <div class="buttons">
          <button type="submit" disabled={level === tag.default_level}>
            Change default level
          </button>
        </div>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void patch(
            { parent_id: parent?.id ?? null },
            `Moved ${tag.name} under ${parent ? parent.chain_path : 'the root'}.`,
            'move',
          );
        }}
      >
        <TagPicker label="New parent (empty: the root)" value={parent} onChange={setParent} />
        <div class="buttons">
          <button type="submit">{parent ? 'Move under this parent' : 'Move to the root'}</button>
        </div>
      </form>
    </>
  );
}
