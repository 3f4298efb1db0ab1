/**
 * Review progress over time as one SVG (no inline styles): per bucket, the decisions as stacked bars (confirmed, then
 * deferred) against the left scale, and the share of the catalog confirmed by then as a line against the right scale
 * (0–100 %). The numbers are also in a table below it, for screen readers and for reading exact values.
 */
import type { ReviewProgress } from '../api/client';

const W = 720;
const H = 180;
const PAD = { left: 40, right: 44, top: 10, bottom: 24 };

/** A round scale maximum at or above `n` (1, 2, 5 × 10^k). */
function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return ([1, 2, 5, 10].map((m) => m * p).find((m) => m >= n) ?? 10 * p) as number;
}

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;

export function ProgressChart({ progress }: { progress: ReviewProgress }) {
  const buckets = progress.buckets;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const top = niceMax(Math.max(0, ...buckets.map((b) => b.confirmed + b.deferred)));
  const slot = plotW / Math.max(1, buckets.length);
  const barW = Math.max(1, Math.min(24, slot * 0.7));
  const y = (decisions: number) => PAD.top + plotH - (decisions / top) * plotH;
  const x = (i: number) => PAD.left + i * slot + slot / 2;
  const line = buckets
    .map(
      (b, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)} ${(PAD.top + plotH - b.confirmed_share * plotH).toFixed(1)}`,
    )
    .join('');
  const unit = progress.bucket === 'week' ? 'week' : 'day';
  const decided = buckets.reduce((n, b) => n + b.confirmed + b.deferred, 0);
  const first = buckets[0];
  const last = buckets.at(-1);
  const label =
    first && last
      ? `Review progress per ${unit} from ${first.start} to ${last.start}: ${decided} decisions; confirmed share from ${percent(first.confirmed_share)} to ${percent(last.confirmed_share)}`
      : 'Review progress: no data';
  return (
    <figure class="progress-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} data-testid="progress-chart">
        <line class="axis" x1={PAD.left} y1={PAD.top + plotH} x2={W - PAD.right} y2={PAD.top + plotH} />
        <line class="grid" x1={PAD.left} y1={PAD.top} x2={W - PAD.right} y2={PAD.top} />
        <text class="tick" x={PAD.left - 6} y={PAD.top + 4} text-anchor="end">
          {top}
        </text>
        <text class="tick" x={PAD.left - 6} y={PAD.top + plotH} text-anchor="end">
          0
        </text>
        <text class="tick" x={W - PAD.right + 6} y={PAD.top + 4}>
          100 %
        </text>
        <text class="tick" x={W - PAD.right + 6} y={PAD.top + plotH}>
          0 %
        </text>
        {buckets.map((b, i) => (
          <g key={b.start}>
            <rect
              class="bar-confirmed"
              x={x(i) - barW / 2}
              y={y(b.confirmed)}
              width={barW}
              height={PAD.top + plotH - y(b.confirmed)}
            />
            <rect
              class="bar-deferred"
              x={x(i) - barW / 2}
              y={y(b.confirmed + b.deferred)}
              width={barW}
              height={y(b.confirmed) - y(b.confirmed + b.deferred)}
            />
          </g>
        ))}
        <path class="share-line" d={line} />
        {first && (
          <text class="tick" x={x(0)} y={H - 6} text-anchor="middle">
            {first.start}
          </text>
        )}
        {last && buckets.length > 1 && (
          <text class="tick" x={x(buckets.length - 1)} y={H - 6} text-anchor="middle">
            {last.start}
          </text>
        )}
      </svg>
      <figcaption class="legend">
        <span class="key key-confirmed" /> confirmations per {unit} <span class="key key-deferred" /> deferrals per{' '}
        {unit} <span class="key key-share" /> share of all fields confirmed (right scale)
      </figcaption>
      <ProgressTable progress={progress} />
    </figure>
  );
}

/** The chart's numbers, folded away, for screen readers and for reading exact values. */
function ProgressTable({ progress }: { progress: ReviewProgress }) {
  return (
    <details>
      <summary>Show the numbers</summary>
      <table class="progress-table">
        <thead>
          <tr>
            <th scope="col">{progress.bucket === 'week' ? 'Week of' : 'Day'}</th>
            <th scope="col">Confirmed</th>
            <th scope="col">Deferred</th>
            <th scope="col">Fields confirmed by then</th>
            <th scope="col">Share</th>
          </tr>
        </thead>
        <tbody>
          {progress.buckets.map((b) => (
            <tr key={b.start}>
              <th scope="row">{b.start}</th>
              <td class="num">{b.confirmed}</td>
              <td class="num">{b.deferred}</td>
              <td class="num">{b.confirmed_fields}</td>
              <td class="num">{percent(b.confirmed_share)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
