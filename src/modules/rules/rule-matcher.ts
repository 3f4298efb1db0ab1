/**
 * Matching an organisation's classification rules against a field: pure functions, no I/O. Patterns run on RE2's
 * linear-time engine (re2js), so no pattern can stall the event loop however it is written: a pattern RE2 cannot run
 * in linear time (backreferences, lookaround) is refused when the rule is saved.
 */
import { RE2JS } from 're2js';
import type { RuleField } from '../classifier/classifier.service.js';
import { typeFamily } from '../classifier/index.js';

export const TYPE_FAMILIES = [
  'text',
  'integer',
  'decimal',
  'boolean',
  'date',
  'datetime',
  'uuid',
  'binary',
  'json',
] as const;
export type RuleTypeFamily = (typeof TYPE_FAMILIES)[number];

export interface RuleMatch {
  column_name?: string;
  table_name?: string;
  comment?: string;
  data_type_family?: RuleTypeFamily[];
  values?: { pattern?: string; in?: string[]; min_share?: number };
}

/** What a rule is matched against (samples only when the caller has them: an import or a scan; never stored). */
export type MatchableField = RuleField;

export interface CompiledRule {
  readonly id: string;
  readonly name: string;
  readonly tag_id: number;
  readonly level: string | null;
  readonly priority: number;
  readonly created_at: string;
  /** The parts it was compiled from. */
  readonly match: RuleMatch;
  readonly datasourceIds: ReadonlySet<string> | null;
  readonly hasValues: boolean;
  matches(field: MatchableField): boolean;
}

/** Compiles a pattern case-insensitively, or answers why it cannot be run in linear time. */
export function compilePattern(pattern: string): { ok: true; re: RE2JS } | { ok: false; reason: string } {
  try {
    return { ok: true, re: RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: message.replace(/^error parsing regexp: /, '') };
  }
}

/** The family a declared type belongs to, in the rules' vocabulary (null: unknown or none of them). */
export function ruleTypeFamily(dataType: string | null | undefined): RuleTypeFamily | null {
  const family = typeFamily(dataType ?? null);
  return (TYPE_FAMILIES as readonly string[]).includes(family) ? (family as RuleTypeFamily) : null;
}

/**
 * Compiles a stored rule; throws on a pattern that does not compile (the service refuses such rules when they are
 * saved, so this only happens to a rule written to the database by hand).
 */
export function compileRule(rule: {
  id: string;
  name: string;
  tag_id: number;
  level: string | null;
  priority: number;
  created_at: string;
  updated_at?: string;
  datasource_ids: readonly string[] | null;
  match: RuleMatch;
}): CompiledRule {
  const re = (pattern: string | undefined): RE2JS | null => {
    if (pattern === undefined) return null;
    const compiled = compilePattern(pattern);
    if (!compiled.ok) throw new Error(`rule ${rule.name}: ${compiled.reason}`);
    return compiled.re;
  };
  const column = re(rule.match.column_name);
  const table = re(rule.match.table_name);
  const comment = re(rule.match.comment);
  const families = rule.match.data_type_family ? new Set<string>(rule.match.data_type_family) : null;
  const values = rule.match.values;
  const valuePattern = re(values?.pattern);
  const valueSet = values?.in ? new Set(values.in.map((v) => v.toLowerCase())) : null;
  const minShare = values?.min_share ?? 0.8;
  const datasourceIds = rule.datasource_ids ? new Set(rule.datasource_ids) : null;
  return {
    id: rule.id,
    name: rule.name,
    tag_id: rule.tag_id,
    level: rule.level,
    priority: rule.priority,
    created_at: rule.created_at,
    match: rule.match,
    datasourceIds,
    hasValues: values !== undefined,
    matches(field: MatchableField): boolean {
      if (datasourceIds && (field.datasource_id === null || !datasourceIds.has(field.datasource_id))) return false;
      if (column && !column.matcher(field.field_name).find()) return false;
      if (table && !table.matcher(field.table_name).find()) return false;
      if (comment && !comment.matcher(field.comment ?? '').find()) return false;
      if (families) {
        const family = ruleTypeFamily(field.data_type);
        if (family === null || !families.has(family)) return false;
      }
      if (values) {
        // Value parts are judged on samples only (never stored). Without samples (a re-evaluation, a preview) they do
        // not hold — except for the rule that decided the field on its samples last time, when the rule has not
        // changed since: a re-evaluation must not undo what the last scan's values showed.
        const samples = (field.sample_values ?? [])
          .filter((v) => v !== null && v !== undefined && String(v).trim() !== '')
          .map((v) => String(v));
        if (samples.length === 0) {
          const held = field.held_value_rule;
          return (
            held !== null &&
            held !== undefined &&
            held.name === rule.name &&
            (rule.updated_at ?? rule.created_at) <= held.since
          );
        }
        let hits = 0;
        for (const s of samples) {
          if (
            (valuePattern === null || valuePattern.matcher(s).find()) &&
            (valueSet === null || valueSet.has(s.trim().toLowerCase()))
          )
            hits++;
        }
        if (hits / samples.length < minShare) return false;
      }
      return true;
    },
  };
}

/** Highest priority first, then the older rule: the order in which rules are tried. */
export function ruleOrder(a: CompiledRule, b: CompiledRule): number {
  return b.priority - a.priority || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
}

/** Rules in the order they are tried, with a pre-check that keeps 200 of them cheap for a field none matches. */
export interface RuleSet {
  readonly rules: readonly CompiledRule[];
  /** The first rule (in ruleOrder) that matches the field, or undefined. */
  decide(field: MatchableField): CompiledRule | undefined;
}

/**
 * Compiles the rules into a set. Most fields match no rule, and trying each rule's column pattern costs ~0.5 µs: 200
 * rules would cost several times the classifier itself. So the column and table patterns of all rules are also joined
 * into one alternation each (one linear-time pass over the name); a rule with a column (table) part is only tried when
 * its union matches. A union RE2 cannot compile (too large) is simply not used.
 */
export function compileRuleSet(rules: readonly CompiledRule[]): RuleSet {
  const ordered = [...rules].sort(ruleOrder);
  const union = (part: 'column_name' | 'table_name'): RE2JS | null => {
    const all = ordered.flatMap((r) => {
      const p = r.match[part];
      return p === undefined ? [] : [`(?:${p})`];
    });
    if (all.length < 2) return null;
    const compiled = compilePattern(all.join('|'));
    return compiled.ok ? compiled.re : null;
  };
  const columnUnion = union('column_name');
  const tableUnion = union('table_name');
  return {
    rules: ordered,
    decide(field: MatchableField): CompiledRule | undefined {
      let columnAny: boolean | undefined;
      let tableAny: boolean | undefined;
      for (const rule of ordered) {
        if (columnUnion && rule.match.column_name !== undefined) {
          columnAny ??= columnUnion.test(field.field_name);
          if (!columnAny) continue;
        }
        if (tableUnion && rule.match.table_name !== undefined) {
          tableAny ??= tableUnion.test(field.table_name);
          if (!tableAny) continue;
        }
        if (rule.matches(field)) return rule;
      }
      return undefined;
    },
  };
}
