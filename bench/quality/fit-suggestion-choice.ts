// Fits the choice of a self-classified field's suggestion (docs/metrics.md, "Suggested classification"): among the
// other tags something speaks for (suggestionCandidates: the classifier's runners-up, the nearest fields' tags, the
// tags whose fields or anchor fit best, the reviewers' corrections of its answer), which one is right when the field
// is wrong. A logistic model over the candidates' features (CHOICE_FEATURES) is fitted on the wrong fields of the
// DEVELOPMENT half only, before and after a seeded third of the wrong fields is corrected; a candidate is right when
// the field's label accepts its tag and its level is within one step of the label's. Prints the weights, then per half
// (the held-out half only in aggregate): right suggestions of the wrong fields with the best candidate by the fitted
// weights, by the weights in use, and the ceiling (some candidate right).
// The held-out half is printed only with SHOW_HELD_OUT=1 (look once the choice is settled).
// "In use right" counts the stored suggestions, level suggestions included; the others pick among the tag candidates.
// Run: npx tsx bench/quality/fit-suggestion-choice.ts   Knobs: QUALITY_CORRECT_SEED (default 25); CHOICE_FEATURES
// (comma list: fit on these terms only); CHOICE_BELOW=1 (the wrong fields UNDER the suggestion threshold instead);
// CHOICE_MISSES=1 (print the development-half fields before corrections whose chosen candidate is wrong while another
// is right).
import { classifierSupport } from '../../src/modules/metrics/measure-field.js';
import {
  CHOICE_FEATURES,
  candidateLogit,
  suggestionCandidates,
  type Candidate,
  type SuggestionInput,
} from '../../src/modules/metrics/suggestion.js';
import { fitLogistic } from './logistic.js';
import {
  correctSeededThird,
  importSelfClassified,
  isWrong,
  type FieldState,
  type SelfField,
} from './self-classified.js';

const seed = Number(process.env.QUALITY_CORRECT_SEED ?? 25);
const only = process.env.CHOICE_FEATURES?.split(',');
const features = CHOICE_FEATURES.filter((f) => !only || only.includes(f));

interface Row {
  f: SelfField;
  stage: string;
  candidates: Array<Candidate & { right: boolean }>;
  stored: boolean;
  suggested: boolean;
}

const catalog = await importSelfClassified({ record: true });
try {
  const { fields, rank } = catalog;
  const tags = await catalog.database.db.selectFrom('tags').select(['id', 'chain_path']).execute();
  const pathById = new Map(tags.map((t) => [t.id, t.chain_path]));
  const idByPath = new Map(tags.map((t) => [t.chain_path, t.id]));
  const collect = async (stage: string, state: Map<string, FieldState>, skip: ReadonlySet<string>): Promise<Row[]> => {
    const log = catalog.suggestionInputLog as Map<string, SuggestionInput>;
    const evidence = new Map(
      (await catalog.database.db.selectFrom('fields').select(['id', 'classification_evidence']).execute()).map((r) => [
        r.id,
        r.classification_evidence,
      ]),
    );
    const counts = new Map<number, number>();
    for (const st of state.values()) {
      const id = idByPath.get(st.tagPath);
      if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const tagShare = (id: number): number => (counts.get(id) ?? 0) / state.size;
    const groupOf = (id: number): string => (pathById.get(id) ?? '').split('/')[0] as string;
    const rows: Row[] = [];
    for (const f of fields) {
      if (skip.has(f.id)) continue;
      const s = state.get(f.id) as FieldState;
      if (!isWrong(f, s.tagPath, s.level, rank)) continue;
      const input = log.get(f.id);
      if (!input || !input.evidence.selfClassified) continue;
      if (
        process.env.CHOICE_BELOW !== '1'
          ? !(input.outlierScore >= input.threshold)
          : input.outlierScore >= input.threshold
      )
        continue;
      const support = classifierSupport(evidence.get(f.id));
      const runnersUp = (support?.runnersUp ?? []).flatMap((r) => {
        const id = idByPath.get(r.path);
        return id === undefined ? [] : [{ tagId: id, ratio: r.ratio }];
      });
      const candidates = suggestionCandidates({ ...input, runnersUp, groupOf, tagShare }).map((c) => ({
        ...c,
        right: !isWrong(f, pathById.get(c.tagId) ?? '', c.level, rank),
      }));
      rows.push({
        f,
        stage,
        candidates,
        suggested: s.suggestedPath !== null,
        stored: s.suggestedPath !== null && !isWrong(f, s.suggestedPath, s.suggestedLevel as string, rank),
      });
    }
    return rows;
  };
  const before = await catalog.read();
  const rowsBefore = await collect('before corrections', before, new Set());
  const { corrected, after } = await correctSeededThird(catalog, before, seed);
  const rowsAfter = await collect('after corrections', after, corrected);
  const all = [...rowsBefore, ...rowsAfter];
  const dev = all.filter((r) => r.f.half === 'development');
  const x = dev.flatMap((r) => r.candidates.map((c) => features.map((k) => c.features[k])));
  const y = dev.flatMap((r) => r.candidates.map((c) => c.right));
  const w = fitLogistic(x, y, 1e-2);
  console.log(
    `fitted on ${x.length} candidates of ${dev.length} development wrong fields (${y.filter(Boolean).length} right): intercept ${(w[0] as number).toFixed(2)}, ${features.map((k, i) => `${k} ${(w[i + 1] as number).toFixed(2)}`).join(', ')}`,
  );
  // The choice itself (which candidate of a field is right): a conditional logit over each field's candidates, fitted
  // by gradient ascent (its scale is free; the logistic weights above give the confidence's scale).
  const groups = dev
    .filter((r) => r.candidates.some((c) => c.right) && r.candidates.length > 1)
    .map((r) => r.candidates.map((c) => ({ x: features.map((k) => c.features[k]), right: c.right })));
  const v = features.map((_, i) => w[i + 1] as number);
  for (let it = 0; it < 3000; it++) {
    const g = v.map((vi) => -0.01 * vi);
    for (const grp of groups) {
      const z = grp.map((c) => c.x.reduce((a, xi, i) => a + xi * (v[i] as number), 0));
      const mx = Math.max(...z);
      const e = z.map((zi) => Math.exp(zi - mx));
      const sum = e.reduce((a, b) => a + b, 0);
      const sumR = e.reduce((a, ei, j) => a + (grp[j]!.right ? ei : 0), 0);
      grp.forEach((c, j) => {
        const p = (e[j] as number) / sum;
        const q = c.right ? (e[j] as number) / sumR : 0;
        c.x.forEach((xi, i) => (g[i]! += (q - p) * xi));
      });
    }
    v.forEach((_, i) => (v[i]! += (0.5 * (g[i] as number)) / groups.length));
  }
  console.log(
    `conditional logit on ${groups.length} fields: ${features.map((k, i) => `${k} ${(v[i] as number).toFixed(2)}`).join(', ')}`,
  );
  const softmaxChoice = (c: Candidate): number => features.reduce((z, k, i) => z + (v[i] as number) * c.features[k], 0);
  const fitted = (c: Candidate): number =>
    features.reduce((z, k, i) => z + (w[i + 1] as number) * c.features[k], w[0] as number);
  const pick = (r: Row, score: (c: Candidate) => number): (Candidate & { right: boolean }) | undefined =>
    [...r.candidates].sort((a, b) => score(b) - score(a) || a.tagId - b.tagId)[0];
  // Cross-validated by schema on the development half (each schema's fields chosen by weights fitted on the others):
  // what a set of terms is worth on schemas it was not fitted on.
  {
    const sources = [...new Set(dev.map((r) => r.f.source))].sort();
    const cv = new Map<string, number>();
    for (const held of sources) {
      const train = dev.filter((r) => r.f.source !== held);
      const wf = fitLogistic(
        train.flatMap((r) => r.candidates.map((c) => features.map((k) => c.features[k]))),
        train.flatMap((r) => r.candidates.map((c) => c.right)),
        1e-2,
      );
      const z = (c: Candidate): number =>
        features.reduce((acc, k, i) => acc + (wf[i + 1] as number) * c.features[k], wf[0] as number);
      for (const r of dev.filter((r) => r.f.source === held))
        if (pick(r, z)?.right === true) cv.set(r.stage, (cv.get(r.stage) ?? 0) + 1);
    }
    console.log(
      `cross-validated by schema (${sources.length} development schemas), right: ${[...cv].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    );
  }
  const halves =
    process.env.SHOW_HELD_OUT === '1' ? (['development', 'held-out'] as const) : (['development'] as const);
  if (process.env.CHOICE_MISSES === '1') {
    const short = (id: number): string => (pathById.get(id) ?? '').split('/').slice(-1)[0] as string;
    const fmtC = (c: Candidate): string =>
      `${short(c.tagId)} ${c.level} [${CHOICE_FEATURES.filter((k) => c.features[k] !== 0)
        .map((k) => `${k} ${c.features[k].toFixed(2)}`)
        .join(' ')}] z ${candidateLogit(c).toFixed(2)}`;
    for (const r of dev.filter((r) => r.stage === 'before corrections').slice(0, 400)) {
      const chosen = pick(r, candidateLogit);
      const rights = r.candidates.filter((c) => c.right);
      if (!chosen || chosen.right || rights.length === 0) continue;
      const s = before.get(r.f.id) as FieldState;
      console.log(
        `${r.f.source} ${r.f.truth.input.table_name}.${r.f.truth.input.field_name} (${r.f.truth.input.data_type ?? ''}) is ${s.tagPath.split('/').pop()} ${s.level}, label ${r.f.truth.accept.join('/')} ${r.f.truthLevel}\n   chose ${fmtC(chosen)}\n   right ${rights.map(fmtC).join('\n   right ')}`,
      );
    }
  }
  for (const half of halves)
    for (const stage of ['before corrections', 'after corrections']) {
      const part = all.filter((r) => r.f.half === half && r.stage === stage);
      const n = (pred: (r: Row) => boolean): number => part.filter(pred).length;
      console.log(
        `${half}, ${stage}: ${part.length} wrong fields at or above the threshold; in use right ${n((r) => r.stored)}; fitted choice right ${n((r) => pick(r, fitted)?.right === true)}; conditional logit right ${n((r) => pick(r, softmaxChoice)?.right === true)}; weights in use right ${n((r) => pick(r, candidateLogit)?.right === true)}; ceiling ${n((r) => r.candidates.some((c) => c.right))}`,
      );
    }
} finally {
  await catalog.close();
}
