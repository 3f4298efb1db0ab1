/** Reference data read once per session (tags, levels, data sources), shared by every page. */
import { api, ok, type Datasource, type Level, type Tag } from './api/client';

let tags: Promise<Tag[]> | undefined;
let levels: Promise<Level[]> | undefined;
let datasources: Promise<Datasource[]> | undefined;

export function loadTags(fresh = false): Promise<Tag[]> {
  if (fresh) tags = undefined;
  tags ??= ok(api.GET('/api/v1/classification/tags')).then((r) =>
    r.items.sort((a, b) => a.chain_path.localeCompare(b.chain_path)),
  );
  tags.catch(() => (tags = undefined));
  return tags;
}

export function loadLevels(): Promise<Level[]> {
  levels ??= ok(api.GET('/api/v1/classification/levels')).then((r) => r.items.sort((a, b) => a.rank - b.rank));
  levels.catch(() => (levels = undefined));
  return levels;
}

export function loadDatasources(fresh = false): Promise<Datasource[]> {
  if (fresh) datasources = undefined;
  datasources ??= ok(api.GET('/api/v1/datasources')).then((r) => r.items);
  datasources.catch(() => (datasources = undefined));
  return datasources;
}

/** Forget cached reference data (sign-out, another user). */
export function resetData(): void {
  tags = levels = datasources = undefined;
}
