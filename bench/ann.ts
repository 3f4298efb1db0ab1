// Nearest-neighbour index benchmark: usearch vs hnswlib-node, brute force as the recall reference.
//
//   npx tsx bench/ann.ts [n] [--libs=usearch,hnswlib] [--queries=1000] [--dim=100] [--efc=128]
//
// Every library runs in its own child process so that RSS growth is attributable. The brute-force child
// computes the exact top-10 for the query set once and caches it in the OS temp dir; the library children
// read it. Everything is single-threaded (threads = 1) and seeded, so runs are comparable.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Index, MetricKind, ScalarKind } from 'usearch';
import hnswlib from 'hnswlib-node';
import { mulberry32 } from './support/random.js';

const M = 16;
const EF_SEARCH_SWEEP = [16, 32, 64, 128];
const K = 10;

interface Options {
  n: number;
  dim: number;
  queries: number;
  libs: string[];
  role: string | null;
  sweep: boolean;
  efc: number;
}

function parseOptions(argv: string[]): Options {
  const opts: Options = {
    n: 100_000,
    dim: 100,
    queries: 1000,
    libs: ['usearch', 'hnswlib'],
    role: null,
    sweep: false,
    efc: 128,
  };
  for (const arg of argv) {
    if (/^\d+$/.test(arg)) opts.n = Number(arg);
    else if (arg.startsWith('--libs=')) opts.libs = arg.slice(7).split(',').filter(Boolean);
    else if (arg.startsWith('--queries=')) opts.queries = Number(arg.slice(10));
    else if (arg.startsWith('--dim=')) opts.dim = Number(arg.slice(6));
    else if (arg.startsWith('--role=')) opts.role = arg.slice(7);
    else if (arg === '--sweep') opts.sweep = true;
    else if (arg.startsWith('--efc=')) opts.efc = Number(arg.slice(6));
  }
  return opts;
}

// ---------- deterministic clustered data ----------

function gaussian(rand: () => number): number {
  const u = rand() || 1e-12;
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/**
 * Clustered unit vectors, a rough stand-in for field embeddings: one cluster per ~200 vectors (a "tag"),
 * cluster spread drawn in [0.35, 0.9] (cos to centre ≈ 0.74…0.94), cluster sizes skewed (Zipf-like).
 */
function makeData(n: number, dim: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const clusters = Math.max(50, Math.round(n / 200));
  const centres = new Float32Array(clusters * dim);
  const spread = new Float32Array(clusters);
  for (let c = 0; c < clusters; c++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      const v = gaussian(rand);
      centres[c * dim + j] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < dim; j++) centres[c * dim + j]! /= norm;
    spread[c] = 0.35 + 0.55 * rand();
  }
  const out = new Float32Array(n * dim);
  const noiseScale = 1 / Math.sqrt(dim);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(clusters * Math.pow(rand(), 1.5)); // skewed cluster sizes
    const s = spread[c]! * noiseScale;
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      const v = centres[c * dim + j]! + s * gaussian(rand);
      out[i * dim + j] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < dim; j++) out[i * dim + j]! /= norm;
  }
  return out;
}

function datasets(opts: Options): { data: Float32Array; queries: Float32Array } {
  // Queries come from the same distribution but are not in the index (fresh seed → fresh points of the same
  // clusters needs the same centres, so draw n + q points and split).
  const all = makeData(opts.n + opts.queries, opts.dim, 42);
  return {
    data: all.subarray(0, opts.n * opts.dim),
    queries: all.subarray(opts.n * opts.dim),
  };
}

// ---------- helpers ----------

/** CPU seconds (user + system, all threads) of this process: robust against other load on a shared machine. */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function rssMiB(): number {
  return process.memoryUsage().rss / 1048576;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function groundTruthPath(opts: Options): string {
  return join(tmpdir(), `fieldlens-ann-gt-${opts.n}-${opts.dim}-${opts.queries}.bin`);
}

function readGroundTruth(opts: Options): Int32Array {
  const buf = readFileSync(groundTruthPath(opts));
  return new Int32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}

function recall(truth: Int32Array, found: number[][], k: number): number {
  let hits = 0;
  for (let q = 0; q < found.length; q++) {
    const want = new Set<number>();
    for (let j = 0; j < k; j++) want.add(truth[q * K + j]!);
    const got = found[q]!;
    for (let j = 0; j < Math.min(k, got.length); j++) if (want.has(got[j]!)) hits++;
  }
  return hits / (found.length * k);
}

type Row = Record<string, string | number>;

function emit(rows: Row[]): void {
  process.stdout.write(`RESULT ${JSON.stringify(rows)}\n`);
}

// ---------- brute force ----------

function runBrute(opts: Options): void {
  const { data, queries } = datasets(opts);
  const { n, dim } = opts;
  const qn = opts.queries;
  const truth = new Int32Array(qn * K);
  const sims = new Float32Array(n);
  const t0 = performance.now();
  for (let q = 0; q < qn; q++) {
    const qo = q * dim;
    for (let i = 0; i < n; i++) {
      const o = i * dim;
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0;
      let j = 0;
      for (; j + 3 < dim; j += 4) {
        s0 += data[o + j]! * queries[qo + j]!;
        s1 += data[o + j + 1]! * queries[qo + j + 1]!;
        s2 += data[o + j + 2]! * queries[qo + j + 2]!;
        s3 += data[o + j + 3]! * queries[qo + j + 3]!;
      }
      for (; j < dim; j++) s0 += data[o + j]! * queries[qo + j]!;
      sims[i] = s0 + s1 + s2 + s3;
    }
    // top-K by partial selection
    const topI = new Int32Array(K).fill(-1);
    const topS = new Float32Array(K).fill(-Infinity);
    for (let i = 0; i < n; i++) {
      const s = sims[i]!;
      if (s <= topS[K - 1]!) continue;
      let p = K - 1;
      while (p > 0 && topS[p - 1]! < s) {
        topS[p] = topS[p - 1]!;
        topI[p] = topI[p - 1]!;
        p--;
      }
      topS[p] = s;
      topI[p] = i;
    }
    truth.set(topI, q * K);
  }
  const secs = (performance.now() - t0) / 1000;
  writeFileSync(groundTruthPath(opts), Buffer.from(truth.buffer));
  const rows: Row[] = [
    { lib: 'brute force (JS, 4 accumulators)', n, qps: +(qn / secs).toFixed(1), recall1: 1, recall10: 1 },
  ];
  writeFileSync(`${groundTruthPath(opts)}.json`, JSON.stringify(rows));
  emit(rows);
}

// ---------- usearch ----------

function runUsearch(opts: Options): void {
  const { data, queries } = datasets(opts);
  const truth = readGroundTruth(opts);
  const { n, dim } = opts;
  gc();
  const rss0 = rssMiB();
  const rows: Row[] = [];
  const index = new Index({
    dimensions: dim,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F32,
    connectivity: M,
    expansion_add: opts.efc,
    expansion_search: 64,
    multi: false,
  });
  const t0 = performance.now();
  const c0 = cpuSeconds();
  for (let i = 0; i < n; i++) index.add(BigInt(i), data.subarray(i * dim, (i + 1) * dim), 1);
  const buildCpu = cpuSeconds() - c0;
  const buildS = (performance.now() - t0) / 1000;
  gc();
  const rss1 = rssMiB();
  // efSearch = 64, as the service runs it.
  const found: number[][] = [];
  const t1 = performance.now();
  const c1 = cpuSeconds();
  for (let q = 0; q < opts.queries; q++) {
    const m = index.search(queries.subarray(q * dim, (q + 1) * dim), K, 1);
    found.push(Array.from(m.keys, (k) => Number(k)));
  }
  const qCpu = cpuSeconds() - c1;
  const qSecs = (performance.now() - t1) / 1000;
  rows.push({
    lib: 'usearch 2.25 (f32, one-by-one add)',
    n,
    M,
    efC: opts.efc,
    efS: 64,
    build_s: +buildS.toFixed(1),
    build_cpu_s: +buildCpu.toFixed(1),
    inserts_per_cpu_s: Math.round(n / buildCpu),
    qps: Math.round(opts.queries / qSecs),
    queries_per_cpu_s: Math.round(opts.queries / qCpu),
    recall1: +recall(truth, found, 1).toFixed(4),
    recall10: +recall(truth, found, 10).toFixed(4),
    rss_mib: Math.round(rss1 - rss0),
  });

  // Update churn: re-embed 10% of the keys (remove + add) and check recall and the count still hold.
  const churn = Math.min(10_000, Math.floor(n / 10));
  const c2 = cpuSeconds();
  for (let i = 0; i < churn; i++) {
    const key = (i * 7919) % n;
    index.remove(BigInt(key));
    index.add(BigInt(key), data.subarray(key * dim, (key + 1) * dim), 1);
  }
  const churnCpu = cpuSeconds() - c2;
  const found2: number[][] = [];
  for (let q = 0; q < opts.queries; q++) {
    const m = index.search(queries.subarray(q * dim, (q + 1) * dim), K, 1);
    found2.push(Array.from(m.keys, (k) => Number(k)));
  }
  gc();
  rows.push({
    lib: 'usearch after re-embedding churn',
    n,
    updates: churn,
    updates_per_cpu_s: Math.round(churn / churnCpu),
    size: index.size(),
    recall1: +recall(truth, found2, 1).toFixed(4),
    recall10: +recall(truth, found2, 10).toFixed(4),
    rss_mib: Math.round(rssMiB() - rss0),
  });

  // Batched build with 2 threads, for reference (initial load of a large catalog).
  if (n < 1_000_000) {
    const batch = new Index({
      dimensions: dim,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      connectivity: M,
      expansion_add: opts.efc,
      expansion_search: 64,
      multi: false,
    });
    const keys = new BigUint64Array(n);
    for (let i = 0; i < n; i++) keys[i] = BigInt(i);
    const t3 = performance.now();
    batch.add(keys, data, 2);
    const bS = (performance.now() - t3) / 1000;
    rows.push({ lib: 'usearch batched add, 2 threads', n, build_s: +bS.toFixed(1), inserts_per_s: Math.round(n / bS) });
  }

  // usearch's JS binding fixes efSearch at construction, so its sweep rebuilds the index per ef (batched,
  // 2 threads): only with --sweep and n ≤ 100k.
  if (opts.sweep && n <= 100_000) {
    for (const ef of EF_SEARCH_SWEEP.filter((e) => e !== 64)) {
      const idx = new Index({
        dimensions: dim,
        metric: MetricKind.Cos,
        quantization: ScalarKind.F32,
        connectivity: M,
        expansion_add: opts.efc,
        expansion_search: ef,
        multi: false,
      });
      const keys = new BigUint64Array(n);
      for (let i = 0; i < n; i++) keys[i] = BigInt(i);
      idx.add(keys, data, 2);
      const f: number[][] = [];
      const t4 = performance.now();
      for (let q = 0; q < opts.queries; q++) {
        const m = idx.search(queries.subarray(q * dim, (q + 1) * dim), K, 1);
        f.push(Array.from(m.keys, (k) => Number(k)));
      }
      const s = (performance.now() - t4) / 1000;
      rows.push({
        lib: 'usearch efSearch sweep',
        n,
        efS: ef,
        qps: Math.round(opts.queries / s),
        recall1: +recall(truth, f, 1).toFixed(4),
        recall10: +recall(truth, f, 10).toFixed(4),
      });
    }
  }
  emit(rows);
}

// ---------- hnswlib-node ----------

function runHnswlib(opts: Options): void {
  const { data, queries } = datasets(opts);
  const truth = readGroundTruth(opts);
  const { n, dim } = opts;
  gc();
  const rss0 = rssMiB();
  const rows: Row[] = [];
  const index = new hnswlib.HierarchicalNSW('cosine', dim);
  index.initIndex({ maxElements: n, m: M, efConstruction: opts.efc, randomSeed: 100 });
  const t0 = performance.now();
  const c0 = cpuSeconds();
  // hnswlib-node takes plain number[]: the conversion is part of its real cost, so it is timed.
  for (let i = 0; i < n; i++) index.addPoint(Array.from(data.subarray(i * dim, (i + 1) * dim)), i);
  const buildCpu = cpuSeconds() - c0;
  const buildS = (performance.now() - t0) / 1000;
  gc();
  const rss1 = rssMiB();
  for (const ef of EF_SEARCH_SWEEP) {
    index.setEf(ef);
    const found: number[][] = [];
    const t1 = performance.now();
    const c1 = cpuSeconds();
    for (let q = 0; q < opts.queries; q++) {
      const r = index.searchKnn(Array.from(queries.subarray(q * dim, (q + 1) * dim)), K);
      // hnswlib returns farthest-first for some versions: sort by distance ascending.
      const order = r.neighbors.map((key, j) => ({ key, d: r.distances[j]! })).sort((a, b) => a.d - b.d);
      found.push(order.map((o) => o.key));
    }
    const qSecs = (performance.now() - t1) / 1000;
    const qCpu = cpuSeconds() - c1;
    rows.push({
      lib: ef === EF_SEARCH_SWEEP[0] ? 'hnswlib-node 3.0 (f32, addPoint loop)' : 'hnswlib-node efSearch sweep',
      n,
      M,
      efC: opts.efc,
      efS: ef,
      build_s: ef === EF_SEARCH_SWEEP[0] ? +buildS.toFixed(1) : '',
      build_cpu_s: ef === EF_SEARCH_SWEEP[0] ? +buildCpu.toFixed(1) : '',
      inserts_per_cpu_s: ef === EF_SEARCH_SWEEP[0] ? Math.round(n / buildCpu) : '',
      qps: Math.round(opts.queries / qSecs),
      queries_per_cpu_s: Math.round(opts.queries / qCpu),
      recall1: +recall(truth, found, 1).toFixed(4),
      recall10: +recall(truth, found, 10).toFixed(4),
      rss_mib: ef === EF_SEARCH_SWEEP[0] ? Math.round(rss1 - rss0) : '',
    });
  }
  emit(rows);
}

// ---------- orchestration ----------

function child(role: string, opts: Options): Row[] {
  const script = fileURLToPath(import.meta.url);
  const args = [
    ...process.execArgv,
    '--expose-gc',
    '--max-old-space-size=8192',
    script,
    String(opts.n),
    `--dim=${opts.dim}`,
    `--queries=${opts.queries}`,
    `--role=${role}`,
    ...(opts.sweep ? ['--sweep'] : []),
    `--efc=${opts.efc}`,
  ];
  const t0 = performance.now();
  const res = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = res.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`${role} child failed (status ${res.status}): ${res.stdout}`);
  console.error(
    `${role}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  return JSON.parse(line.slice(7)) as Row[];
}

function printTable(rows: Row[]): void {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  console.log(`| ${cols.join(' | ')} |`);
  console.log(`|${cols.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${cols.map((c) => r[c] ?? '').join(' | ')} |`);
}

function main(): void {
  const opts = parseOptions(process.argv.slice(2));
  if (opts.role === 'brute') return runBrute(opts);
  if (opts.role === 'usearch') return runUsearch(opts);
  if (opts.role === 'hnswlib') return runHnswlib(opts);

  const cpu = /model name\s*:\s*(.*)/.exec(
    existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '',
  )?.[1];
  console.log(
    `n=${opts.n} dim=${opts.dim} queries=${opts.queries} k=${K} node ${process.version} cpu ${cpu ?? 'unknown'} load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  const rows: Row[] = [];
  const cached = `${groundTruthPath(opts)}.json`;
  if (existsSync(cached)) rows.push(...(JSON.parse(readFileSync(cached, 'utf8')) as Row[]));
  else rows.push(...child('brute', opts));
  for (const lib of opts.libs) rows.push(...child(lib, opts));
  printTable(rows);
}

main();
