/**
 * Include/exclude name patterns turned into SQL (LIKE with `!` as the escape character), so the catalog query
 * itself drops what is filtered out instead of fetching a whole catalog and filtering in JS.
 */
import type { CatalogFilters, NamePattern } from './connector.js';

export const MAX_PATTERNS = 100;
export const MAX_PATTERN_LENGTH = 200;

/** How one SQL dialect spells a bound parameter and the `schema.table` string. */
export interface FilterDialect {
  /** Registers a bound value and returns its placeholder. */
  param(value: string): string;
  lower(expr: string): string;
  /** `schema || '.' || table` in the dialect. */
  qualified(schemaExpr: string, tableExpr: string): string;
}

export class InvalidPatternError extends Error {}

/** Glob (`*`, `?`) to a lower-case LIKE pattern escaped with `!`; `%`, `_` and `!` stay literal. */
export function globToLike(pattern: NamePattern): string {
  if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH) {
    throw new InvalidPatternError(`a name pattern must be 1–${MAX_PATTERN_LENGTH} characters`);
  }
  let out = '';
  for (const ch of pattern.toLowerCase()) {
    if (ch === '*') out += '%';
    else if (ch === '?') out += '_';
    else if (ch === '%' || ch === '_' || ch === '!') out += `!${ch}`;
    else out += ch;
  }
  return out;
}

/** The same matching in JS, for callers that need to test a name without a database (e.g. validation previews). */
export function globMatches(pattern: NamePattern, name: string): boolean {
  const re = pattern
    .toLowerCase()
    .split('')
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`, 's').test(name.toLowerCase());
}

export function validatePatterns(filters: CatalogFilters): void {
  for (const key of ['include_schemas', 'exclude_schemas', 'include_tables', 'exclude_tables'] as const) {
    const list = filters[key] ?? [];
    if (!Array.isArray(list) || list.length > MAX_PATTERNS)
      throw new InvalidPatternError(`${key} takes at most ${MAX_PATTERNS} patterns`);
    for (const p of list) globToLike(p);
  }
}

function anyLike(d: FilterDialect, expr: string, patterns: readonly string[]): string {
  return `(${patterns.map((p) => `${d.lower(expr)} LIKE ${d.param(globToLike(p))} ESCAPE '!'`).join(' OR ')})`;
}

function tableMatch(d: FilterDialect, schemaExpr: string, tableExpr: string, patterns: readonly string[]): string {
  return `(${patterns
    .map((p) => {
      const target = p.includes('.') ? d.qualified(schemaExpr, tableExpr) : tableExpr;
      return `${d.lower(target)} LIKE ${d.param(globToLike(p))} ESCAPE '!'`;
    })
    .join(' OR ')})`;
}

/** SQL conditions (joined with AND, or `1=1`) for the filters on the given schema and table expressions. */
export function filterConditions(
  d: FilterDialect,
  filters: Required<CatalogFilters>,
  schemaExpr: string,
  tableExpr: string,
): string {
  validatePatterns(filters);
  const parts: string[] = [];
  if (filters.include_schemas.length) parts.push(anyLike(d, schemaExpr, filters.include_schemas));
  if (filters.exclude_schemas.length) parts.push(`NOT ${anyLike(d, schemaExpr, filters.exclude_schemas)}`);
  if (filters.include_tables.length) parts.push(tableMatch(d, schemaExpr, tableExpr, filters.include_tables));
  if (filters.exclude_tables.length) parts.push(`NOT ${tableMatch(d, schemaExpr, tableExpr, filters.exclude_tables)}`);
  return parts.length ? parts.join(' AND ') : '1=1';
}
