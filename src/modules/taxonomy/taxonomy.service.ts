/**
 * The classification scheme: the configured levels and the tag tree. Loads the default taxonomy at
 * first start, creates, edits and deletes tags, and keeps each tag's embedding anchor (name, chain path,
 * description, keywords) for automatic classification and the metrics.
 */
import type { Clock } from '../../clock.js';
import type { LevelDefinition } from '../../config.js';
import type { Database, Tx } from '../../db/database.js';
import type { TagRow } from '../../db/schema.js';
import type { Embedder } from '../../embeddings/embedder.js';
import type { Caller } from '../../http/access.js';
import { conflict, notFound, unprocessable, type ProblemFieldError } from '../../http/errors.js';
import { SYSTEM_ACTOR, type AuditService } from '../audit/audit.service.js';
import { getSetting, putSetting } from '../../db/settings.js';
import { flattenTaxonomy } from './default-taxonomy.js';
import * as repo from './taxonomy.repository.js';
import type { CreateTagBody, DeleteTagQuery, LevelResponse, TagResponse, UpdateTagBody } from './taxonomy.schemas.js';

// The default taxonomy's shape, for modules that build catalogs against it (the sample data).
export { flattenTaxonomy, leafChainPaths, type LevelCode } from './default-taxonomy.js';

const DEFAULT_TAXONOMY_MARKER = 'taxonomy.default_loaded';
/** Ranks of the built-in level codes the default taxonomy and the sample catalog are written in. */
const BUILTIN_LEVEL_RANKS: Readonly<Record<string, number>> = { L1: 1, L2: 2, L3: 3, L4: 4, L5: 5 };

/** The tags at one moment, indexed for resolution; `version` changes with every tag added, edited or deleted. */
export interface TagIndex {
  readonly version: string;
  readonly tags: readonly TagRow[];
  readonly byId: ReadonlyMap<number, TagRow>;
  readonly byPath: ReadonlyMap<string, TagRow>;
  /** Tags without children: automatic classification picks one of these. */
  readonly leaves: readonly TagRow[];
}

/** One unit anchor vector per tag of `index.tags`, same order. */
export interface TagAnchors {
  readonly index: TagIndex;
  readonly embedderVersion: string;
  readonly vectors: readonly Float32Array[];
}

export function toTagResponse(row: TagRow): TagResponse {
  return {
    id: row.id,
    name: row.name,
    parent_id: row.parent_id,
    chain_path: row.chain_path,
    default_level: row.default_level,
    description: row.description,
    keywords: parseKeywords(row.keywords),
  };
}

function parseKeywords(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((k): k is string => typeof k === 'string') : [];
  } catch {
    return [];
  }
}

/** The text a tag's anchor is embedded from. */
export function anchorText(tag: TagRow): string {
  const parts = [
    tag.name,
    tag.chain_path.split('/').join(' '),
    tag.description ?? '',
    parseKeywords(tag.keywords).join(', '),
  ];
  return parts.filter((p) => p !== '').join('. ');
}

export interface ClassificationInput {
  tag_id?: number | null;
  chain_path?: string | null;
  level?: string | null;
}

export interface ResolvedClassification {
  /** The tag named by id and/or path; null when neither was given. */
  tag: TagRow | null;
  /** The level given (a configured code); null when none was given. */
  level: string | null;
}

/** JSON-pointer paths used in 422 errors[] for each input of resolveClassification. */
export interface ClassificationPaths {
  tag_id: string;
  chain_path: string;
  level: string;
}

const DEFAULT_PATHS: ClassificationPaths = {
  tag_id: '/classification_tag_id',
  chain_path: '/classification_chain_path',
  level: '/lock_level',
};

/** "A / B/C " → "A/B/C": chain paths are matched segment by segment, ignoring spaces around "/". */
function normalizeChainPath(path: string): string {
  return path
    .split('/')
    .map((s) => s.trim())
    .join('/');
}

function buildIndex(version: string, tags: TagRow[]): TagIndex {
  const parents = new Set(tags.map((t) => t.parent_id).filter((id): id is number => id !== null));
  return {
    version,
    tags,
    byId: new Map(tags.map((t) => [t.id, t])),
    byPath: new Map(tags.map((t) => [t.chain_path, t])),
    leaves: tags.filter((t) => !parents.has(t.id)),
  };
}

/**
 * What other modules hold of a tag, for a tag deleted with its fields moved (the fields and metrics modules, wired by
 * the composition root; the taxonomy module does not reach their tables).
 */
export interface TagUsage {
  countFields(trx: Tx, tagIds: readonly number[]): Promise<{ classified: number; suggested: number }>;
  /** Moves the fields classified with or suggested one of the tags to `toTagId`; null: only suggestions are dropped. */
  moveFields(trx: Tx, fromTagIds: readonly number[], toTagId: number | null): Promise<number>;
  countRules(trx: Tx, tagIds: readonly number[]): Promise<number>;
  moveRules(trx: Tx, fromTagIds: readonly number[], toTagId: number): Promise<number>;
}

export class TaxonomyService {
  private indexCache: TagIndex | undefined;
  private anchorsCache: { version: string; anchors: Promise<TagAnchors> } | undefined;

  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      embedder: Embedder;
      levels: readonly LevelDefinition[];
      usage: TagUsage;
    },
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** The configured levels, least sensitive first. */
  listLevels(): LevelResponse[] {
    return this.deps.levels.map((l) => ({ code: l.code, name: l.name, rank: l.rank }));
  }

  /** The position of a level code in the configured order (lowest first), −1 for a code that is not a level. */
  levelRank(): (code: string) => number {
    const ranks = new Map(this.deps.levels.map((l, i) => [l.code, i]));
    return (code) => ranks.get(code) ?? -1;
  }

  /** Whether the code is a configured level. */
  isLevel(code: string): boolean {
    return this.deps.levels.some((l) => l.code === code);
  }

  /**
   * A level code from the built-in scheme (L1–L5, used by the default taxonomy and sample catalog)
   * or a stored code, as a configured level: kept when configured, else mapped by rank onto the
   * configured scale (L5 → the most restrictive level), else the most restrictive level.
   */
  configuredLevel(code: string): string {
    const levels = this.deps.levels;
    if (this.isLevel(code)) return code;
    const builtinRank = BUILTIN_LEVEL_RANKS[code];
    const top = levels[levels.length - 1] as LevelDefinition;
    if (builtinRank === undefined) return top.code;
    const position = Math.round(((builtinRank - 1) / 4) * (levels.length - 1));
    return (levels[position] ?? top).code;
  }

  /**
   * Resolves a classification given by tag id and/or chain path and an optional level.
   * Throws 422 (errors[] at `paths`) for an unknown tag id or path, a path and id naming different tags, or an unknown level.
   */
  async resolveClassification(
    input: ClassificationInput,
    paths: ClassificationPaths = DEFAULT_PATHS,
  ): Promise<ResolvedClassification> {
    const index = await this.tagIndex();
    const errors: ProblemFieldError[] = [];
    const resolved = this.resolveWith(index, input, paths, errors);
    if (errors.length > 0) throw unprocessable(errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
    return resolved;
  }

  /** resolveClassification against a given index, collecting problems in `errors` (imports resolve many rows against one index). */
  resolveWith(
    index: TagIndex,
    input: ClassificationInput,
    paths: ClassificationPaths,
    errors: ProblemFieldError[],
  ): ResolvedClassification {
    let byId: TagRow | undefined;
    let byPath: TagRow | undefined;
    let failed = false;
    if (input.tag_id !== undefined && input.tag_id !== null) {
      byId = index.byId.get(input.tag_id);
      if (!byId) {
        errors.push({ path: paths.tag_id, message: `names no existing tag (${input.tag_id})` });
        failed = true;
      }
    }
    if (input.chain_path !== undefined && input.chain_path !== null) {
      byPath = index.byPath.get(normalizeChainPath(input.chain_path));
      if (!byPath) {
        errors.push({ path: paths.chain_path, message: 'names no existing tag' });
        failed = true;
      }
    }
    if (byId && byPath && byId.id !== byPath.id) {
      errors.push({
        path: paths.chain_path,
        message: `names tag ${byPath.id} (${byPath.chain_path}) but classification_tag_id names tag ${byId.id} (${byId.chain_path})`,
      });
      failed = true;
    }
    const level = input.level ?? null;
    if (level !== null && !this.isLevel(level)) {
      errors.push({
        path: paths.level,
        message: `is not a configured level (${this.listLevels()
          .map((l) => l.code)
          .join(', ')})`,
      });
      failed = true;
    }
    return failed ? { tag: null, level: null } : { tag: byId ?? byPath ?? null, level };
  }

  /** All tags, in creation order. */
  async listTags(): Promise<TagResponse[]> {
    return (await this.tagIndex()).tags.map(toTagResponse);
  }

  /** The current tags, indexed; cached and refreshed when any instance adds a tag. */
  async tagIndex(): Promise<TagIndex> {
    const version = await repo.tagsVersion(this.db);
    if (this.indexCache?.version === version) return this.indexCache;
    const index = buildIndex(version, await repo.listTags(this.db));
    // The version was read before the rows: a tag added in between only makes the next call reload.
    this.indexCache = index;
    return index;
  }

  /** Anchor vectors of every tag of the current index; recomputed only when the tags change. */
  async tagAnchors(): Promise<TagAnchors> {
    const index = await this.tagIndex();
    if (this.anchorsCache?.version !== index.version) {
      const anchors = this.deps.embedder
        .embedTexts(index.tags.map(anchorText))
        .then((vectors) => ({ index, embedderVersion: this.deps.embedder.version, vectors }));
      this.anchorsCache = { version: index.version, anchors };
      anchors.catch(() => {
        if (this.anchorsCache?.anchors === anchors) this.anchorsCache = undefined;
      });
    }
    return this.anchorsCache.anchors;
  }

  /** Creates a tag under `parent_id` (or at the root); 422 for an unknown parent or level, 409 for a duplicate chain path. */
  async createTag(caller: Caller, body: CreateTagBody): Promise<TagResponse> {
    if (!this.isLevel(body.default_level)) {
      throw unprocessable(`Unknown level "${body.default_level}"`, [
        { path: '/default_level', message: `is not one of ${this.levelCodes()}` },
      ]);
    }
    const parentId = body.parent_id ?? null;
    const tag = await this.db.transaction().execute(async (trx) => {
      const parent = parentId === null ? undefined : await repo.findTagById(trx, parentId);
      if (parentId !== null && !parent) {
        throw unprocessable(`No tag has the id ${parentId}`, [
          { path: '/parent_id', message: 'names no existing tag' },
        ]);
      }
      const chainPath = parent ? `${parent.chain_path}/${body.name}` : body.name;
      const row = await repo.insertTag(trx, {
        name: body.name,
        parent_id: parentId,
        chain_path: chainPath,
        default_level: body.default_level,
        description: body.description ?? null,
        keywords: JSON.stringify(body.keywords ?? []),
        is_builtin: 0,
        created_at: this.deps.clock.now().toISOString(),
      });
      await this.deps.audit.record(trx, caller, {
        action: 'taxonomy.tag_created',
        targetType: 'tag',
        targetId: String(row.id),
        details: { chain_path: row.chain_path, parent_id: parentId, default_level: row.default_level },
      });
      return row;
    });
    this.indexCache = undefined;
    return toTagResponse(tag);
  }

  /**
   * Renames, moves (no cycles), re-levels or re-describes a tag; its descendants' chain paths follow. The taxonomy's
   * version changes, so fields the classifier (or a rule) classified are re-evaluated in the background with the new
   * names and default levels, and the metrics of the tag's fields are recomputed. 404 for an unknown tag, 422 for an
   * unknown parent or level or a parent that would make a cycle, 409 when the new chain path is taken. Audited as
   * `tag.updated` with what changed and how many descendants moved.
   */
  async updateTag(caller: Caller, id: number, body: UpdateTagBody): Promise<TagResponse> {
    if (body.default_level !== undefined && !this.isLevel(body.default_level)) {
      throw unprocessable(`Unknown level "${body.default_level}"`, [
        { path: '/default_level', message: `is not one of ${this.levelCodes()}` },
      ]);
    }
    const updated = await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.taxonomy');
      const tags = await repo.listTags(trx);
      const tag = tags.find((t) => t.id === id);
      if (!tag) throw notFound(`Tag ${id}`);
      const parentId = body.parent_id === undefined ? tag.parent_id : body.parent_id;
      const subtree = subtreeOf(tags, id);
      let parentPath: string | null = null;
      if (parentId !== null) {
        const parent = tags.find((t) => t.id === parentId);
        if (!parent)
          throw unprocessable(`No tag has the id ${parentId}`, [
            { path: '/parent_id', message: 'names no existing tag' },
          ]);
        if (subtree.some((t) => t.id === parentId)) {
          throw unprocessable(
            `Tag ${parentId} is ${parentId === id ? 'the tag itself' : 'below this tag'}: a tag cannot be moved under itself`,
            [{ path: '/parent_id', message: 'would make a cycle' }],
          );
        }
        parentPath = parent.chain_path;
      }
      const name = body.name ?? tag.name;
      const chainPath = parentPath === null ? name : `${parentPath}/${name}`;
      const descendants = subtree.filter((t) => t.id !== id);
      const row = await repo.updateTag(trx, id, {
        name,
        parent_id: parentId,
        chain_path: chainPath,
        default_level: body.default_level ?? tag.default_level,
        description: body.description === undefined ? tag.description : body.description,
        keywords: body.keywords === undefined ? tag.keywords : JSON.stringify(body.keywords),
      });
      if (chainPath !== tag.chain_path)
        await repo.renameDescendantPaths(trx, descendants, `${tag.chain_path}/`, `${chainPath}/`);
      await repo.bumpRevision(trx, this.deps.clock.now());
      const changed = (['name', 'parent_id', 'chain_path', 'default_level', 'description', 'keywords'] as const).filter(
        (k) => row[k] !== tag[k],
      );
      await this.deps.audit.record(trx, caller, {
        action: 'tag.updated',
        targetType: 'tag',
        targetId: String(id),
        details: {
          chain_path: row.chain_path,
          changed: Object.fromEntries(
            changed.map((k) => [
              k,
              {
                from: k === 'keywords' ? parseKeywords(tag[k]) : tag[k],
                to: k === 'keywords' ? parseKeywords(row[k]) : row[k],
              },
            ]),
          ),
          descendants_moved: chainPath !== tag.chain_path ? descendants.length : 0,
        },
      });
      return row;
    });
    this.indexCache = undefined;
    return toTagResponse(updated);
  }

  /**
   * Deletes a tag and its descendants. Fields classified with any of them move to `replace_with` (keeping their level
   * and review state; suggestions and rules naming them too); without a replacement, a tag still used → 409.
   * The replacement must exist and not be deleted with it (422). A deleted built-in tag is not added again by a later
   * start. Audited as `tag.deleted` with the tags deleted and the counts moved.
   */
  async deleteTag(caller: Caller, id: number, query: DeleteTagQuery): Promise<void> {
    const replaceWith = query.replace_with ?? null;
    await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.taxonomy');
      const tags = await repo.listTags(trx);
      if (!tags.some((t) => t.id === id)) throw notFound(`Tag ${id}`);
      const doomed = subtreeOf(tags, id);
      const doomedIds = doomed.map((t) => t.id);
      const replacement = replaceWith === null ? null : tags.find((t) => t.id === replaceWith);
      if (replaceWith !== null && !replacement) {
        throw unprocessable(`No tag has the id ${replaceWith}`, [
          { path: '/replace_with', message: 'names no existing tag' },
        ]);
      }
      if (replacement && doomedIds.includes(replacement.id)) {
        throw unprocessable(`Tag ${replacement.id} (${replacement.chain_path}) is deleted with this tag`, [
          { path: '/replace_with', message: 'is deleted with the tag' },
        ]);
      }
      const used = await this.deps.usage.countFields(trx, doomedIds);
      const ruled = await this.deps.usage.countRules(trx, doomedIds);
      if ((used.classified > 0 || ruled > 0) && !replacement) {
        throw conflict(
          `${used.classified} field(s) and ${ruled} rule(s) use this tag or a tag below it: give replace_with, the tag they move to`,
        );
      }
      const moved = await this.deps.usage.moveFields(trx, doomedIds, replacement?.id ?? null);
      const rulesMoved = replacement ? await this.deps.usage.moveRules(trx, doomedIds, replacement.id) : 0;
      await repo.deleteTags(trx, doomed);
      const now = this.deps.clock.now();
      await repo.rememberDeletedBuiltins(
        trx,
        doomed.map((t) => t.builtin_path).filter((p): p is string => p !== null),
        now,
      );
      await repo.bumpRevision(trx, now);
      await this.deps.audit.record(trx, caller, {
        action: 'tag.deleted',
        targetType: 'tag',
        targetId: String(id),
        details: {
          chain_path: doomed.find((t) => t.id === id)?.chain_path ?? null,
          tags_deleted: doomed.map((t) => t.chain_path),
          replace_with: replacement ? { id: replacement.id, chain_path: replacement.chain_path } : null,
          fields_moved: moved,
          rules_moved: rulesMoved,
          suggestions_moved: used.suggested,
        },
      });
    });
    this.indexCache = undefined;
  }

  /**
   * Loads the default taxonomy at first start, and on later starts adds the built-in tags a newer release brought,
   * under a lock so several instances starting together on PostgreSQL add them exactly once. A built-in tag is known by
   * the chain path it was shipped with (`builtin_path`): one an organisation renamed or moved is not added again, nor
   * one it deleted; a new built-in tag goes under its parent wherever that parent is now. Audited as
   * `taxonomy.default_loaded` / `taxonomy.builtin_tags_added`.
   */
  async ensureDefaultTaxonomy(): Promise<void> {
    const flat = flattenTaxonomy();
    const missing = (present: ReadonlySet<string>) => flat.filter((spec) => !present.has(spec.chain_path));
    const known = (tags: readonly TagRow[], deleted: ReadonlySet<string>) =>
      new Set([...tags.map((t) => t.builtin_path ?? t.chain_path), ...deleted]);
    if (missing(known((await this.tagIndex()).tags, await repo.deletedBuiltins(this.db))).length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.taxonomy');
      const existing = await repo.listTags(trx);
      const deleted = await repo.deletedBuiltins(trx);
      const toAdd = missing(known(existing, deleted));
      if (toAdd.length === 0) return;
      const firstLoad = (await getSetting(trx, DEFAULT_TAXONOMY_MARKER)) === undefined;
      const now = this.deps.clock.now();
      // Built-in path → the tag that is it now (renamed or moved, perhaps).
      const byBuiltin = new Map<string, TagRow>(existing.map((t) => [t.builtin_path ?? t.chain_path, t]));
      for (const spec of toAdd) {
        const parent = spec.parent_path === null ? undefined : byBuiltin.get(spec.parent_path);
        if (spec.parent_path !== null && !parent) continue; // its parent was deleted: so is it
        const row = await repo.insertTagIfAbsent(trx, {
          name: spec.name,
          parent_id: parent?.id ?? null,
          chain_path: parent ? `${parent.chain_path}/${spec.name}` : spec.name,
          default_level: this.configuredLevel(spec.default_level),
          description: spec.description,
          keywords: JSON.stringify(spec.keywords),
          is_builtin: 1,
          builtin_path: spec.chain_path,
          created_at: now.toISOString(),
        });
        byBuiltin.set(spec.chain_path, row);
      }
      if (firstLoad) await putSetting(trx, DEFAULT_TAXONOMY_MARKER, now.toISOString(), now);
      await this.deps.audit.record(trx, SYSTEM_ACTOR, {
        action: firstLoad ? 'taxonomy.default_loaded' : 'taxonomy.builtin_tags_added',
        targetType: 'taxonomy',
        targetId: null,
        details: firstLoad ? { tags: flat.length } : { tags: toAdd.map((t) => t.chain_path) },
      });
    });
    this.indexCache = undefined;
  }

  private levelCodes(): string {
    return this.deps.levels.map((l) => l.code).join(', ');
  }
}

/** The tag and every tag below it (by parent, whatever the chain paths say). */
function subtreeOf(tags: readonly TagRow[], id: number): TagRow[] {
  const children = new Map<number, TagRow[]>();
  for (const t of tags) if (t.parent_id !== null) children.set(t.parent_id, [...(children.get(t.parent_id) ?? []), t]);
  const out: TagRow[] = [];
  const stack = tags.filter((t) => t.id === id);
  while (stack.length > 0) {
    const t = stack.pop() as TagRow;
    out.push(t);
    stack.push(...(children.get(t.id) ?? []));
  }
  return out;
}
