// What the sources of a suggestion hold for the classifier's own mistakes (issue 25), on the DEVELOPMENT half of the
// public schemas only (the held-out half is never read here): the catalog as the classifier leaves it
// (self-classified.ts), then after a seeded third of its wrong fields is corrected. For every wrong field, each source
// names at most one other classification; it is right when the field's label accepts its tag and its level is within
// one step of the label's. Printed per source: how many wrong fields it names something for, how many of those are
// right, and how often the suggestion in use was wrong (or absent) while that source was right; then the ceiling of
// all sources together and of a level-only suggestion for the fields whose tag is right.
// Run: npx tsx bench/quality/suggestion-sources.ts   Knob: QUALITY_CORRECT_SEED (default 25).
import { CONFIRMED_WEIGHT, weightOf } from '../../src/modules/metrics/measure-field.js';
import type { SuggestionInput } from '../../src/modules/metrics/suggestion.js';
import {
  correctSeededThird,
  importSelfClassified,
  isWrong,
  type FieldState,
  type SelfField,
} from './self-classified.js';

const seed = Number(process.env.QUALITY_CORRECT_SEED ?? 25);
void CONFIRMED_WEIGHT;

interface Proposal {
  tagId: number;
  level: string | null;
}

type Source = (x: {
  f: SelfField;
  s: FieldState;
  input: SuggestionInput;
  runners: Array<{ path: string; score: number }>;
  siblings: ReadonlyArray<{ f: SelfField; s: FieldState }>;
}) => Proposal | null;

const catalog = await importSelfClassified({ record: true });
try {
  const { fields, rank } = catalog;
  const tags = await catalog.database.db.selectFrom('tags').select(['id', 'chain_path']).execute();
  const pathById = new Map(tags.map((t) => [t.id, t.chain_path]));
  const idByPath = new Map(tags.map((t) => [t.chain_path, t.id]));
  const leafOf = (id: number): string => {
    const p = pathById.get(id) ?? '';
    return p.slice(p.lastIndexOf('/') + 1);
  };
  const levels = ['L0', 'L1', 'L2', 'L3', 'L4', 'L5'];
  const stepUp = (l: string, d: number): string => levels[Math.max(0, Math.min(levels.length - 1, rank(l) + d))] ?? l;
  void stepUp;

  const rowsEv = await catalog.database.db.selectFrom('fields').select(['id', 'classification_evidence']).execute();
  const runnersOf = new Map<string, Array<{ path: string; score: number }>>();
  for (const r of rowsEv) {
    const m = new Map<string, number>();
    try {
      for (const it of JSON.parse(r.classification_evidence ?? '[]') as Array<{ for?: string; score?: number }>)
        if (typeof it.for === 'string' && (it.score ?? 0) > 0) m.set(it.for, (m.get(it.for) ?? 0) + (it.score ?? 0));
    } catch {
      /* none */
    }
    runnersOf.set(
      r.id,
      [...m].map(([path, score]) => ({ path, score })).sort((a, b) => b.score - a.score),
    );
  }

  const neighbourTags = (
    input: SuggestionInput,
    ownToo: boolean,
  ): Array<{ tagId: number; w: number; level: string }> => {
    const w = new Map<number, { w: number; levels: Map<string, number> }>();
    for (const n of input.neighbours) {
      if (!ownToo && n.tag_id === input.tagId) continue;
      const e = w.get(n.tag_id) ?? { w: 0, levels: new Map() };
      e.w += weightOf(n);
      e.levels.set(n.level, (e.levels.get(n.level) ?? 0) + weightOf(n));
      w.set(n.tag_id, e);
    }
    return [...w]
      .map(([tagId, e]) => ({
        tagId,
        w: e.w,
        level: [...e.levels].sort((a, b) => b[1] - a[1])[0]?.[0] as string,
      }))
      .sort((a, b) => b.w - a.w);
  };
  const lastWord = (name: string): string => {
    const parts = name
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    return parts[parts.length - 1] ?? '';
  };

  const SOURCES: Array<[string, Source]> = [
    [
      'runner-up #1 (evidence), usual level',
      ({ runners, input }) => {
        const id = runners[0] ? idByPath.get(runners[0].path) : undefined;
        return id === undefined || id === input.tagId ? null : { tagId: id, level: input.usualLevel(id) };
      },
    ],
    [
      'runner-up #2',
      ({ runners, input }) => {
        const id = runners[1] ? idByPath.get(runners[1].path) : undefined;
        return id === undefined || id === input.tagId ? null : { tagId: id, level: input.usualLevel(id) };
      },
    ],
    [
      'nearest: best other tag, its neighbours\u2019 level',
      ({ input }) => {
        const t = neighbourTags(input, false)[0];
        return t ? { tagId: t.tagId, level: t.level } : null;
      },
    ],
    [
      'nearest: weighted majority tag (own counted) if other',
      ({ input }) => {
        const t = neighbourTags(input, true)[0];
        return t && t.tagId !== input.tagId ? { tagId: t.tagId, level: t.level } : null;
      },
    ],
    [
      'peer margin best other tag (usual level)',
      ({ input }) =>
        input.margins.bestOtherPeerTagId !== null && input.margins.bestOtherPeerTagId !== input.tagId
          ? { tagId: input.margins.bestOtherPeerTagId, level: input.usualLevel(input.margins.bestOtherPeerTagId) }
          : null,
    ],
    [
      'peer margin best other, only when margin < 0',
      ({ input }) =>
        input.margins.peerMargin !== null && input.margins.peerMargin < 0 && input.margins.bestOtherPeerTagId !== null
          ? { tagId: input.margins.bestOtherPeerTagId, level: input.usualLevel(input.margins.bestOtherPeerTagId) }
          : null,
    ],
    [
      'anchor best other tag (usual level)',
      ({ input }) =>
        input.margins.bestOtherAnchorTagId !== null && input.margins.bestOtherAnchorTagId !== input.tagId
          ? { tagId: input.margins.bestOtherAnchorTagId, level: input.usualLevel(input.margins.bestOtherAnchorTagId) }
          : null,
    ],
    [
      'twin (a reviewer decision)',
      ({ input }) => (input.twin ? { tagId: input.twin.tagId, level: input.twin.level } : null),
    ],
    [
      'corrections of this answer',
      ({ input }) =>
        input.corrections && input.corrections.tagId !== input.tagId
          ? { tagId: input.corrections.tagId, level: input.corrections.level }
          : null,
    ],
    [
      'same-table sibling with the same last word',
      ({ f, input, siblings }) => {
        const w = lastWord(f.truth.input.field_name);
        const counts = new Map<number, number>();
        for (const o of siblings) {
          if (o.f.id === f.id || lastWord(o.f.truth.input.field_name) !== w) continue;
          const id = idByPath.get(o.s.tagPath);
          if (id !== undefined && id !== input.tagId) counts.set(id, (counts.get(id) ?? 0) + 1);
        }
        const best = [...counts].sort((a, b) => b[1] - a[1])[0];
        return best ? { tagId: best[0], level: input.usualLevel(best[0]) } : null;
      },
    ],
    [
      'level only: same tag at the expected level',
      ({ input }) =>
        input.evidence.expectedLevel !== null && input.evidence.expectedLevel !== input.level
          ? { tagId: input.tagId, level: input.evidence.expectedLevel }
          : null,
    ],
    [
      'level only: same tag at its usual level',
      ({ input }) => {
        const u = input.usualLevel(input.tagId);
        return u !== null && u !== input.level ? { tagId: input.tagId, level: u } : null;
      },
    ],
  ];

  const report = (title: string, state: Map<string, FieldState>, skip: ReadonlySet<string>): void => {
    const log = catalog.suggestionInputLog as Map<string, SuggestionInput>;
    const dev = fields.filter((f) => f.half === 'development' && !skip.has(f.id));
    const byTable = new Map<string, Array<{ f: SelfField; s: FieldState }>>();
    for (const f of fields) {
      const key = `${f.source}\u0000${f.truth.input.table_name}`;
      const list = byTable.get(key) ?? [];
      list.push({ f, s: state.get(f.id) as FieldState });
      byTable.set(key, list);
    }
    const wrong = dev.filter((f) => {
      const s = state.get(f.id) as FieldState;
      return isWrong(f, s.tagPath, s.level, rank);
    });
    const right = (f: SelfField, p: Proposal | null): boolean =>
      p !== null && p.level !== null && !isWrong(f, pathById.get(p.tagId) ?? '', p.level, rank);
    const tagRight = (f: SelfField, p: Proposal | null): boolean =>
      p !== null && f.truth.accept.includes(leafOf(p.tagId));
    const stored = (f: SelfField): boolean => {
      const s = state.get(f.id) as FieldState;
      return s.suggestedPath !== null && !isWrong(f, s.suggestedPath, s.suggestedLevel as string, rank);
    };
    const tagOk = wrong.filter((f) => {
      const s = state.get(f.id) as FieldState;
      return f.truth.accept.includes(s.tagPath.slice(s.tagPath.lastIndexOf('/') + 1));
    });
    const withSuggestion = wrong.filter((f) => (state.get(f.id) as FieldState).suggestedPath !== null);
    console.log(
      `\n${title}: development half, ${wrong.length} wrong fields (${tagOk.length} with a right tag at a level 2+ steps off); suggestion in use: ${withSuggestion.length} suggested, ${wrong.filter(stored).length} right (${((100 * wrong.filter(stored).length) / wrong.length).toFixed(1)} %)`,
    );
    console.log(
      '| source | names one | tag right | right (tag and level) | right share of named | in use wrong/none while this right |',
    );
    console.log('|---|---|---|---|---|---|');
    const anyRight = new Set<string>();
    const ctx = (f: SelfField) => ({
      f,
      s: state.get(f.id) as FieldState,
      input: log.get(f.id) as SuggestionInput,
      runners: runnersOf.get(f.id) ?? [],
      siblings: byTable.get(`${f.source}\u0000${f.truth.input.table_name}`) ?? [],
    });
    for (const [name, source] of SOURCES) {
      let named = 0;
      let tr = 0;
      let r = 0;
      let missed = 0;
      for (const f of wrong) {
        const p = source(ctx(f));
        if (!p) continue;
        named++;
        if (tagRight(f, p)) tr++;
        if (right(f, p)) {
          r++;
          anyRight.add(f.id);
          if (!stored(f)) missed++;
        }
      }
      console.log(
        `| ${name} | ${named} | ${tr} | ${r} (${((100 * r) / wrong.length).toFixed(1)} % of wrong) | ${named ? ((100 * r) / named).toFixed(0) : '—'} % | ${missed} |`,
      );
    }
    // Any neighbour at all carrying a right classification.
    const anyNeighbour = wrong.filter((f) =>
      (log.get(f.id) as SuggestionInput).neighbours.some(
        (n) => n.tag_id !== (log.get(f.id) as SuggestionInput).tagId && right(f, { tagId: n.tag_id, level: n.level }),
      ),
    ).length;
    const anyRunner = wrong.filter((f) =>
      (runnersOf.get(f.id) ?? []).some((r) => {
        const id = idByPath.get(r.path);
        return id !== undefined && tagRight(f, { tagId: id, level: null });
      }),
    ).length;
    console.log(
      `ceiling: some source above right for ${anyRight.size} (${((100 * anyRight.size) / wrong.length).toFixed(1)} %); any listed runner-up has a right tag for ${anyRunner}; some neighbour carries a right classification for ${anyNeighbour}`,
    );
    // Sources of the suggestion in use (by) and their precision on wrong fields.
    const sug = catalog.suggestionLog as Map<string, { by: string }>;
    const byCount = new Map<string, { n: number; right: number }>();
    for (const f of withSuggestion) {
      const by = sug.get(f.id)?.by ?? '?';
      const e = byCount.get(by) ?? { n: 0, right: 0 };
      e.n++;
      if (stored(f)) e.right++;
      byCount.set(by, e);
    }
    console.log(
      `in use by source (wrong fields): ${[...byCount].map(([by, e]) => `${by} ${e.right}/${e.n}`).join(', ')}; no suggestion ${wrong.length - withSuggestion.length} (of which outlier < 0.15: ${wrong.filter((f) => (state.get(f.id) as FieldState).outlier < 0.15).length})`,
    );
  };

  const before = await catalog.read();
  report('Before corrections', before, new Set());
  const { corrected, after } = await correctSeededThird(catalog, before, seed);
  report(`After ${corrected.size} corrections (seed ${seed}), the fields not corrected`, after, corrected);
} finally {
  await catalog.close();
}
