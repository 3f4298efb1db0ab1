/**
 * The trial's sample catalog, read from assets/sample-catalog.json: validated against a TypeBox schema, and every
 * classification checked against the default taxonomy, so a typo in the data file fails loudly at start (and in
 * its test) instead of loading a field with no tag.
 */
import { readFileSync } from 'node:fs';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { flattenTaxonomy, leafChainPaths, type LevelCode } from '../taxonomy/taxonomy.service.js';

export const DEFAULT_SAMPLE_CATALOG_URL = new URL('../../../assets/sample-catalog.json', import.meta.url);

const Name = Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f]*$' });
const Level = Type.Union([
  Type.Literal('L1'),
  Type.Literal('L2'),
  Type.Literal('L3'),
  Type.Literal('L4'),
  Type.Literal('L5'),
]);
const ChainPath = Type.String({ minLength: 1, maxLength: 2000 });

export const SampleCatalogField = Type.Object(
  {
    name: Name,
    data_type: Name,
    comment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    classification_chain_path: ChainPath,
    level: Level,
    sample_values: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 20 }),
    ),
    /** Present on a deliberately misclassified field: its true classification. */
    seeded_error: Type.Optional(
      Type.Object({ correct_chain_path: ChainPath, correct_level: Level }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type SampleCatalogField = Static<typeof SampleCatalogField>;

export const SampleCatalogFile = Type.Object(
  {
    $comment: Type.Optional(Type.String()),
    datasources: Type.Array(
      Type.Object(
        {
          name: Name,
          type: Name,
          description: Type.String({ minLength: 1, maxLength: 2000 }),
          tables: Type.Array(
            Type.Object(
              { name: Name, fields: Type.Array(SampleCatalogField, { minItems: 1 }) },
              { additionalProperties: false },
            ),
            { minItems: 1 },
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: false },
);
export type SampleCatalogFile = Static<typeof SampleCatalogFile>;

/** A sample field as loaded into a data source (the shape an import takes). */
export interface SampleField {
  table_name: string;
  field_name: string;
  data_type: string;
  comment?: string;
  sample_values?: string[];
  classification_chain_path: string;
  level: LevelCode;
  seeded_wrong: boolean;
}

export interface SampleDatasource {
  name: string;
  type: string;
  description: string;
  fields: SampleField[];
}

export interface SampleCatalog {
  datasources: readonly SampleDatasource[];
  /** The true classification of each seeded-wrong field, keyed `source.table.field` (for demos and tests). */
  corrections: ReadonlyMap<string, { chain_path: string; level: LevelCode }>;
}

/**
 * Checks parsed JSON against the schema and the default taxonomy (every chain path a leaf tag, no field twice)
 * and returns it in import shape; throws an Error naming every problem.
 */
export function parseSampleCatalog(data: unknown): SampleCatalog {
  if (!Value.Check(SampleCatalogFile, data)) {
    const errors = Value.Errors(SampleCatalogFile, data)
      .slice(0, 10)
      .map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new Error(`sample catalog: does not match its schema: ${errors.join('; ')}`);
  }
  const leaves = new Set(leafChainPaths(flattenTaxonomy()));
  const problems: string[] = [];
  const seen = new Set<string>();
  const corrections = new Map<string, { chain_path: string; level: LevelCode }>();
  const datasources = data.datasources.map((source, si): SampleDatasource => {
    if (seen.has(source.name)) problems.push(`/datasources/${si}: data source "${source.name}" appears twice`);
    seen.add(source.name);
    const fields: SampleField[] = [];
    source.tables.forEach((table, ti) => {
      table.fields.forEach((field, fi) => {
        const at = `/datasources/${si}/tables/${ti}/fields/${fi}`;
        const key = `${source.name}.${table.name}.${field.name}`;
        if (seen.has(key)) problems.push(`${at}: ${key} appears twice`);
        seen.add(key);
        if (!leaves.has(field.classification_chain_path))
          problems.push(
            `${at}/classification_chain_path: "${field.classification_chain_path}" is no leaf tag of the default taxonomy`,
          );
        if (field.seeded_error) {
          const truth = field.seeded_error.correct_chain_path;
          if (!leaves.has(truth))
            problems.push(`${at}/seeded_error/correct_chain_path: "${truth}" is no leaf tag of the default taxonomy`);
          // A level-only error keeps the tag: only a classification equal in tag and level is no error.
          if (truth === field.classification_chain_path && field.seeded_error.correct_level === field.level)
            problems.push(`${at}/seeded_error: the correct classification is the one given, so it is no error`);
          corrections.set(key, { chain_path: truth, level: field.seeded_error.correct_level });
        }
        fields.push({
          table_name: table.name,
          field_name: field.name,
          data_type: field.data_type,
          ...(field.comment !== undefined ? { comment: field.comment } : {}),
          ...(field.sample_values !== undefined ? { sample_values: [...field.sample_values] } : {}),
          classification_chain_path: field.classification_chain_path,
          level: field.level,
          seeded_wrong: field.seeded_error !== undefined,
        });
      });
    });
    return { name: source.name, type: source.type, description: source.description, fields };
  });
  if (problems.length > 0) throw new Error(`sample catalog: ${problems.slice(0, 10).join('; ')}`);
  return { datasources, corrections };
}

let cached: SampleCatalog | undefined;

/** The sample catalog from assets/ (read and checked once per process). */
export function loadSampleCatalog(): SampleCatalog {
  cached ??= parseSampleCatalog(JSON.parse(readFileSync(DEFAULT_SAMPLE_CATALOG_URL, 'utf8')) as unknown);
  return cached;
}
