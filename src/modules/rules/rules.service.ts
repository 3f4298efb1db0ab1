/**
 * An organisation's own classification rules: create, change, delete, preview against the catalog, and the compiled
 * set the classifier service applies. A rule that matches a field the classifier would classify decides it; every
 * change counts up the rules' revision, which is part of the classification version, so the fields the classifier
 * decides are re-evaluated in the background (as after a classifier upgrade).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database, Tx } from '../../db/database.js';
import type { ClassificationRuleRow } from '../../db/schema.js';
import type { Caller } from '../../http/access.js';
import { AppError, notFound, unprocessable, type ProblemFieldError } from '../../http/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DatasourcesService } from '../datasources/datasources.service.js';
import type { FieldCatalogReader } from '../fields/field-catalog-reader.service.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import {
  compilePattern,
  compileRule,
  compileRuleSet,
  ruleTypeFamily,
  type RuleMatch,
  type RuleSet,
} from './rule-matcher.js';
import * as repo from './rules.repository.js';
import {
  MAX_RULES,
  type CreateRuleBody,
  type PreviewRuleBody,
  type PreviewRuleResponse,
  type RuleResponse,
  type UpdateRuleBody,
} from './rules.schemas.js';

export interface RulesServiceDeps {
  database: Database;
  clock: Clock;
  audit: AuditService;
  taxonomy: Pick<TaxonomyService, 'tagIndex' | 'isLevel' | 'listLevels'>;
  datasources: Pick<DatasourcesService, 'existingDatasourceIds'>;
  fields: Pick<FieldCatalogReader, 'ruleCandidates' | 'ruleCandidateDetails' | 'declaredDataTypes'>;
}

const PREVIEW_PAGE = 5000;

export class RulesService {
  private compiled: { version: string; rules: Promise<RuleSet> } | undefined;

  constructor(private readonly deps: RulesServiceDeps) {}

  private get db() {
    return this.deps.database.db;
  }

  async listRules(): Promise<RuleResponse[]> {
    const [rows, index] = await Promise.all([repo.listRules(this.db), this.deps.taxonomy.tagIndex()]);
    return rows.map((r) => toResponse(r, index.byId.get(r.tag_id)?.chain_path ?? ''));
  }

  /** 422 for an unknown tag, level or data source; 400 for a pattern RE2 cannot run or a match with no part; 409 beyond MAX_RULES or for a taken name. */
  async createRule(caller: Caller, body: CreateRuleBody): Promise<RuleResponse> {
    await this.validate(body);
    const now = this.deps.clock.now().toISOString();
    const row = await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.rules');
      if ((await repo.countRules(trx)) >= MAX_RULES)
        throw new AppError('conflict', `An organisation has at most ${MAX_RULES} rules: delete or merge some first`);
      const inserted = await repo.insertRule(trx, {
        id: randomUUID(),
        name: body.name,
        description: body.description ?? null,
        tag_id: body.tag_id,
        level: body.level ?? null,
        priority: body.priority ?? 0,
        enabled: body.enabled === false ? 0 : 1,
        match: JSON.stringify(body.match),
        datasource_ids: body.datasource_ids ? JSON.stringify(body.datasource_ids) : null,
        created_by: caller.id,
        created_at: now,
        updated_at: now,
      });
      await repo.bumpRevision(trx, this.deps.clock.now());
      await this.deps.audit.record(trx, caller, {
        action: 'rule.created',
        targetType: 'rule',
        targetId: inserted.id,
        details: { rule: auditView(inserted) },
      });
      return inserted;
    });
    return this.respond(row);
  }

  async updateRule(caller: Caller, id: string, body: UpdateRuleBody): Promise<RuleResponse> {
    // Checked against the stored rule before the transaction (the checks read the taxonomy and the data sources, which
    // a transaction on SQLite's one connection must not wait for), then written under the rules' lock.
    const current = await repo.findRule(this.db, id);
    if (!current) throw notFound(`Rule ${id}`);
    const merged: CreateRuleBody = {
      name: body.name ?? current.name,
      description: body.description === undefined ? current.description : body.description,
      tag_id: body.tag_id ?? current.tag_id,
      level: body.level === undefined ? current.level : body.level,
      priority: body.priority ?? current.priority,
      enabled: body.enabled ?? current.enabled === 1,
      match: body.match ?? (JSON.parse(current.match) as RuleMatch),
      datasource_ids: body.datasource_ids === undefined ? parseIds(current.datasource_ids) : body.datasource_ids,
    };
    await this.validate(merged);
    const row = await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.rules');
      const before = await repo.findRule(trx, id);
      if (!before) throw notFound(`Rule ${id}`);
      const updated = await repo.updateRule(trx, id, {
        name: merged.name,
        description: merged.description ?? null,
        tag_id: merged.tag_id,
        level: merged.level ?? null,
        priority: merged.priority ?? 0,
        enabled: merged.enabled === false ? 0 : 1,
        match: JSON.stringify(merged.match),
        datasource_ids: merged.datasource_ids ? JSON.stringify(merged.datasource_ids) : null,
        updated_at: this.deps.clock.now().toISOString(),
      });
      await repo.bumpRevision(trx, this.deps.clock.now());
      await this.deps.audit.record(trx, caller, {
        action: 'rule.updated',
        targetType: 'rule',
        targetId: id,
        details: { before: auditView(before), after: auditView(updated) },
      });
      return updated;
    });
    return this.respond(row);
  }

  async deleteRule(caller: Caller, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.deps.database.lock(trx, 'fieldlens.rules');
      const before = await repo.findRule(trx, id);
      if (!before) throw notFound(`Rule ${id}`);
      await repo.deleteRule(trx, id);
      await repo.bumpRevision(trx, this.deps.clock.now());
      await this.deps.audit.record(trx, caller, {
        action: 'rule.deleted',
        targetType: 'rule',
        targetId: id,
        details: { rule: auditView(before) },
      });
    });
  }

  /**
   * Which catalog fields the rule would take (fields the classifier decides, by name, table, comment and type; a
   * value part is judged at the next import or scan), changing nothing. What SQL can judge exactly — the data sources,
   * the declared types of the rule's families — narrows the read; the patterns run on the names read in pages; only
   * the fields listed are read in full.
   */
  async previewRule(body: PreviewRuleBody): Promise<PreviewRuleResponse> {
    await this.validate(body.rule);
    const { values: _values, data_type_family: families, ...patterns } = body.rule.match;
    const scope = body.rule.datasource_ids ?? null;
    let datasourceIds: string[] | undefined = scope ?? undefined;
    if (body.datasource_id !== undefined)
      datasourceIds = scope === null ? [body.datasource_id] : scope.filter((id) => id === body.datasource_id);
    let dataTypes: string[] | undefined;
    if (families) {
      const wanted = new Set<string>(families);
      dataTypes = (await this.deps.fields.declaredDataTypes()).filter((t) => wanted.has(ruleTypeFamily(t) ?? ''));
    }
    if (datasourceIds?.length === 0 || dataTypes?.length === 0) return { matched: 0, items: [] };
    const rule =
      Object.keys(patterns).length === 0
        ? null
        : compileRule({
            id: 'preview',
            name: body.rule.name,
            tag_id: body.rule.tag_id,
            level: null,
            priority: 0,
            created_at: '',
            datasource_ids: null,
            match: patterns,
          });
    const limit = body.limit ?? 50;
    const listed: string[] = [];
    let matched = 0;
    let after: string | null = null;
    for (;;) {
      const page = await this.deps.fields.ruleCandidates({
        afterId: after,
        limit: PREVIEW_PAGE,
        datasourceIds,
        dataTypes,
        read: { table_name: patterns.table_name !== undefined, comment: patterns.comment !== undefined },
      });
      for (const f of page) {
        if (
          rule &&
          !rule.matches({
            datasource_id: null,
            table_name: f.table_name ?? '',
            field_name: f.field_name,
            comment: f.comment,
          })
        )
          continue;
        matched++;
        if (listed.length < limit) listed.push(f.id);
      }
      if (page.length < PREVIEW_PAGE) break;
      after = page[page.length - 1]?.id ?? null;
    }
    const details = new Map((await this.deps.fields.ruleCandidateDetails(listed)).map((f) => [f.id, f]));
    const items = listed.flatMap((id) => {
      const f = details.get(id);
      return f
        ? [
            {
              field_id: f.id,
              table_name: f.table_name,
              field_name: f.field_name,
              current_chain_path: f.chain_path,
              current_level: f.level,
            },
          ]
        : [];
    });
    return { matched, items };
  }

  /** The enabled rules compiled into a set, in the order they are tried, and the version they are of (cached per version). */
  async activeRules(): Promise<{ version: string; rules: RuleSet }> {
    const version = await repo.rulesVersion(this.db);
    if (this.compiled?.version !== version) {
      const rules = repo.listRules(this.db).then((rows) =>
        compileRuleSet(
          rows
            .filter((r) => r.enabled === 1)
            .flatMap((r) => {
              try {
                return [
                  compileRule({
                    id: r.id,
                    name: r.name,
                    tag_id: r.tag_id,
                    level: r.level,
                    priority: r.priority,
                    created_at: r.created_at,
                    updated_at: r.updated_at,
                    datasource_ids: parseIds(r.datasource_ids),
                    match: JSON.parse(r.match) as RuleMatch,
                  }),
                ];
              } catch {
                return []; // a rule written by hand with a pattern RE2 refuses decides nothing
              }
            }),
        ),
      );
      this.compiled = { version, rules };
      rules.catch(() => {
        if (this.compiled?.rules === rules) this.compiled = undefined;
      });
    }
    return { version, rules: await this.compiled.rules };
  }

  /** How many rules give one of the tags (a tag deleted without a replacement must give none). */
  async countRulesOfTags(trx: Tx, tagIds: readonly number[]): Promise<number> {
    return repo.countRulesOfTags(trx, tagIds);
  }

  /** Rules of deleted tags give their replacement, in the deleting transaction; the rules' version changes. */
  async moveRulesToTag(trx: Tx, fromTagIds: readonly number[], toTagId: number): Promise<number> {
    const moved = await repo.moveRulesToTag(trx, fromTagIds, toTagId, this.deps.clock.now().toISOString());
    if (moved > 0) await repo.bumpRevision(trx, this.deps.clock.now());
    return moved;
  }

  private async respond(row: ClassificationRuleRow): Promise<RuleResponse> {
    const index = await this.deps.taxonomy.tagIndex();
    return toResponse(row, index.byId.get(row.tag_id)?.chain_path ?? '');
  }

  private async validate(body: CreateRuleBody): Promise<void> {
    const match = body.match;
    const parts = [match.column_name, match.table_name, match.comment, match.data_type_family, match.values].filter(
      (p) => p !== undefined,
    );
    if (parts.length === 0)
      throw new AppError('validation_failed', 'A rule matches on at least one part', {
        errors: [
          {
            path: '/match',
            message: 'must have at least one of column_name, table_name, comment, data_type_family, values',
          },
        ],
      });
    if (match.values && match.values.pattern === undefined && match.values.in === undefined) {
      throw new AppError('validation_failed', 'A values part needs a pattern or a list', {
        errors: [{ path: '/match/values', message: 'must have pattern or in' }],
      });
    }
    const refused: ProblemFieldError[] = [];
    for (const [path, pattern] of [
      ['/match/column_name', match.column_name],
      ['/match/table_name', match.table_name],
      ['/match/comment', match.comment],
      ['/match/values/pattern', match.values?.pattern],
    ] as const) {
      if (pattern === undefined) continue;
      const compiled = compilePattern(pattern);
      if (!compiled.ok)
        refused.push({ path, message: `cannot be run in linear time or is not a valid pattern: ${compiled.reason}` });
    }
    if (refused.length > 0) throw new AppError('validation_failed', 'A pattern was refused', { errors: refused });
    const errors: ProblemFieldError[] = [];
    const index = await this.deps.taxonomy.tagIndex();
    if (!index.byId.has(body.tag_id)) errors.push({ path: '/tag_id', message: 'names no existing tag' });
    if (body.level !== undefined && body.level !== null && !this.deps.taxonomy.isLevel(body.level)) {
      errors.push({
        path: '/level',
        message: `is not one of ${this.deps.taxonomy
          .listLevels()
          .map((l) => l.code)
          .join(', ')}`,
      });
    }
    if (body.datasource_ids) {
      const existing = await this.deps.datasources.existingDatasourceIds(body.datasource_ids);
      for (const [i, id] of body.datasource_ids.entries())
        if (!existing.has(id)) errors.push({ path: `/datasource_ids/${i}`, message: 'names no existing data source' });
    }
    if (errors.length > 0) throw unprocessable(errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
  }
}

function parseIds(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}

function toResponse(r: ClassificationRuleRow, chainPath: string): RuleResponse {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    tag_id: r.tag_id,
    chain_path: chainPath,
    level: r.level,
    priority: r.priority,
    enabled: r.enabled === 1,
    match: JSON.parse(r.match) as RuleMatch,
    datasource_ids: parseIds(r.datasource_ids),
    created_by: r.created_by,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** The rule as the audit log keeps it (a values list is counted, not copied: it may hold thousands of entries). */
function auditView(r: ClassificationRuleRow): Record<string, unknown> {
  const match = JSON.parse(r.match) as RuleMatch;
  const values = match.values
    ? { ...match.values, ...(match.values.in ? { in: `${match.values.in.length} value(s)` } : {}) }
    : undefined;
  return {
    name: r.name,
    tag_id: r.tag_id,
    level: r.level,
    priority: r.priority,
    enabled: r.enabled === 1,
    match: { ...match, ...(values ? { values } : {}) },
    datasource_ids: parseIds(r.datasource_ids),
  };
}
