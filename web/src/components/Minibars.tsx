/** Six small bars: each axis score (0–1, higher fits better), coloured by the field's own fit, with the list's baseline as a tick; SVG, no inline styles. */
export const AXES = ['category_anchor', 'centroid', 'peer_mean', 'nearest', 'lower_quartile', 'farthest'] as const;
export type Axis = (typeof AXES)[number];
export const AXIS_LABELS: Record<Axis, string> = {
  category_anchor: 'Category anchor',
  centroid: 'Level centroid',
  peer_mean: 'Peer mean',
  nearest: 'Nearest field',
  lower_quartile: 'Lower quartile',
  farthest: 'Farthest peer',
};

/** The field's level is not its tag's usual one (the minibars item's `unusual_level`). */
export interface UnusualLevel {
  level: string;
  peers_at_level: number;
  peers: number;
  usual_level: string;
}

/**
 * What a low bar means, in words a reviewer can check against the field (the server's reasons use the same words):
 * each bar is how well the field fits its current classification on one signal — near 1 it looks like the fields
 * that carry that classification, near 0 like the fields that do not.
 */
export function lowAxisPhrase(axis: Axis, tag: string, level: string, unusual?: UnusualLevel | null): string {
  // The four tag bars of a field at a level few of its tag's fields hold are scaled down by that rarity.
  if (unusual && axis !== 'centroid' && axis !== 'nearest') {
    const share =
      unusual.peers_at_level === 0
        ? `none of the ${unusual.peers} other fields tagged ${tag} is ${level}`
        : `only ${unusual.peers_at_level} of the ${unusual.peers} other fields tagged ${tag} ${unusual.peers_at_level === 1 ? 'is' : 'are'} ${level}`;
    return `${share}; most are ${unusual.usual_level}`;
  }
  switch (axis) {
    case 'category_anchor':
      return `its name, type and comment are far from what ${tag} describes`;
    case 'centroid':
      return `it looks more like fields at other levels than like those at ${level}`;
    case 'peer_mean':
      return `it is unlike the other fields tagged ${tag}`;
    case 'nearest':
      return 'the fields closest to it carry other classifications';
    case 'lower_quartile':
      return `it sits at the edge of the fields tagged ${tag}`;
    case 'farthest':
      return `some fields tagged ${tag} are very unlike it`;
  }
}

const W = 10;
const GAP = 3;
const H = 24;

/**
 * A bar's colour comes from the field's own fit on that axis (its score), not from the list it is shown in: below
 * POOR_FIT it is drawn red, below WEAK_FIT amber. A field the outlier model rates `low` (its overall evidence says the
 * classification fits) gets no warning colours at all: a weak axis there is not evidence against it, and a row scored
 * 0.00 must not show red bars that mean nothing. docs/console.md ("Minibars") documents the same thresholds.
 */
export const POOR_FIT = 0.1;
export const WEAK_FIT = 0.25;
export type Severity = 'low' | 'medium' | 'high';
export type Fit = 'poor' | 'weak' | 'ok';

/** How a bar is drawn: `poor` (red), `weak` (amber) or `ok`, from its score and the field's severity when known. */
export function fitOf(score: number, severity?: Severity | null): Fit {
  if (severity === 'low') return 'ok';
  if (score < POOR_FIT) return 'poor';
  if (score < WEAK_FIT) return 'weak';
  return 'ok';
}

export function Minibars({
  scores,
  baseline,
  severity,
}: {
  scores: Record<Axis, number>;
  baseline: Record<Axis, number> | undefined;
  severity?: Severity | null;
}) {
  const label = AXES.map((a) => {
    const fit = fitOf(scores[a], severity);
    return `${AXIS_LABELS[a]} ${scores[a].toFixed(2)}${fit === 'ok' ? '' : ` (${fit} fit)`}${baseline ? ` (list ${baseline[a].toFixed(2)})` : ''}`;
  }).join(', ');
  const width = AXES.length * (W + GAP);
  // Few elements per row (a 500-row page draws 500 of these): one track, six bars, one path for the baseline ticks.
  let ticks = '';
  return (
    <svg class="minibars" width={width} height={H} viewBox={`0 0 ${width} ${H}`} role="img" aria-label={label}>
      <rect class="track" x={0} y={0} width={width} height={H} />
      {AXES.map((axis, i) => {
        const v = Math.max(0, Math.min(1, scores[axis]));
        const h = Math.max(1, Math.round(v * H));
        const fit = fitOf(v, severity);
        if (baseline)
          ticks += `M${i * (W + GAP) - 1} ${Math.min(H - 1, Math.round((1 - Math.max(0, Math.min(1, baseline[axis]))) * H))}h${W + 2}`;
        return (
          <rect
            key={axis}
            class={fit === 'ok' ? 'bar' : `bar ${fit}`}
            data-axis={axis}
            x={i * (W + GAP)}
            y={H - h}
            width={W}
            height={h}
          />
        );
      })}
      {baseline && <path class="base" d={ticks} />}
    </svg>
  );
}

/** A labelled horizontal bar for a value out of a maximum (quota usage, review progress). */
export function UsageBar({ label, value, max }: { label: string; value: number; max: number | null }) {
  const share = max === null || max === 0 ? 0 : Math.min(1, value / max);
  return (
    <div class="usage">
      <span class="usage-label">{label}</span>
      <svg
        class="usage-bar"
        viewBox="0 0 100 8"
        preserveAspectRatio="none"
        role="img"
        aria-label={`${label}: ${value} of ${max ?? 'unlimited'}`}
      >
        <rect class="track" x={0} y={0} width={100} height={8} />
        <rect class={share >= 1 ? 'bar full' : 'bar'} x={0} y={0} width={share * 100} height={8} />
      </svg>
      <span class="usage-value">
        {value} / {max ?? '∞'}
      </span>
    </div>
  );
}
