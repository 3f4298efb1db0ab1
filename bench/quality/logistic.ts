// Maximum-likelihood logistic regression for fitting the outlier model's weights (bench only).

/** Solves A x = b (Gaussian elimination with partial pivoting); A is small and symmetric positive definite here. */
export function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * Logistic regression by Newton's method; returns [intercept, ...weights]. `offset` (per row) is a fixed part of the
 * linear predictor: the weights are fitted on top of it (the existing model's log-odds, say). `intercept: false` fixes
 * the intercept at 0.
 */
export function fitLogistic(
  x: number[][],
  y: boolean[],
  ridge = 1e-3,
  offset?: readonly number[],
  intercept = true,
): number[] {
  const d = x[0]!.length + 1;
  let w = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 300; iter++) {
    const g = new Array<number>(d).fill(0);
    const h = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    x.forEach((row, i) => {
      const xi = [1, ...row];
      const p = 1 / (1 + Math.exp(-(xi.reduce((s, v, k) => s + v * w[k]!, 0) + (offset?.[i] ?? 0))));
      const r = p - (y[i] ? 1 : 0);
      for (let a = 0; a < d; a++) {
        g[a]! += r * xi[a]!;
        for (let b = 0; b < d; b++) h[a]![b]! += p * (1 - p) * xi[a]! * xi[b]!;
      }
    });
    for (let a = 1; a < d; a++) {
      g[a]! += ridge * w[a]!;
      h[a]![a]! += ridge;
    }
    if (!intercept) {
      g[0] = 0;
      h[0] = h[0]!.map((_, k) => (k === 0 ? 1 : 0));
      for (let a = 1; a < d; a++) h[a]![0] = 0;
    }
    const raw = solve(h, g);
    // Damped: far from the optimum (an offset that puts every p near 0) a full Newton step overshoots.
    const big = Math.max(...raw.map(Math.abs));
    const step = big > 2 ? raw.map((v) => (v * 2) / big) : raw;
    w = w.map((v, k) => v - step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}

/** The fitted model's log-odds for one row: `w` is [intercept, ...weights] as fitLogistic returns it. */
export function linearPredictor(w: readonly number[], x: readonly number[]): number {
  return x.reduce((s, v, k) => s + v * w[k + 1]!, w[0]!);
}
