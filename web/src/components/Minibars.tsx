/** Six small bars: each axis score (0–1, higher fits better) against the list's baseline, drawn as SVG (no inline styles). */
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

const W = 10;
const GAP = 3;
const H = 24;

export function Minibars({ scores, baseline }: { scores: Record<Axis, number>; baseline: Record<Axis, number> | undefined }) {
  const label = AXES.map((a) => `${AXIS_LABELS[a]} ${scores[a].toFixed(2)}${baseline ? ` (list ${baseline[a].toFixed(2)})` : ''}`).join(', ');
  return (
    <svg class="minibars" width={AXES.length * (W + GAP)} height={H} viewBox={`0 0 ${AXES.length * (W + GAP)} ${H}`} role="img" aria-label={label}>
      <title>{label}</title>
      {AXES.map((axis, i) => {
        const v = Math.max(0, Math.min(1, scores[axis]));
        const h = Math.max(1, Math.round(v * H));
        const low = baseline !== undefined && v < baseline[axis] - 0.15;
        const b = baseline ? Math.round((1 - Math.max(0, Math.min(1, baseline[axis]))) * H) : undefined;
        return (
          <g key={axis}>
            <rect class="track" x={i * (W + GAP)} y={0} width={W} height={H} />
            <rect class={low ? 'bar low' : 'bar'} x={i * (W + GAP)} y={H - h} width={W} height={h} />
            {b !== undefined && <rect class="base" x={i * (W + GAP) - 1} y={Math.min(H - 1, b)} width={W + 2} height={1.5} />}
          </g>
        );
      })}
    </svg>
  );
}

/** A labelled horizontal bar for a value out of a maximum (quota usage, review progress). */
export function UsageBar({ label, value, max }: { label: string; value: number; max: number | null }) {
  const share = max === null || max === 0 ? 0 : Math.min(1, value / max);
  return (
    <div class="usage">
      <span class="usage-label">{label}</span>
      <svg class="usage-bar" viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label={`${label}: ${value} of ${max ?? 'unlimited'}`}>
        <rect class="track" x={0} y={0} width={100} height={8} />
        <rect class={share >= 1 ? 'bar full' : 'bar'} x={0} y={0} width={share * 100} height={8} />
      </svg>
      <span class="usage-value">
        {value} / {max ?? '∞'}
      </span>
    </div>
  );
}
