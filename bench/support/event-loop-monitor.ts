/**
 * Preloaded into the server under test (node --import): samples event-loop delay and writes the
 * histogram (ms) to BENCH_ELD_FILE whenever it receives SIGUSR2, then resets.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_ELD_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns: number) => Math.round((ns / 1e6) * 100) / 100;
    writeFileSync(
      file,
      JSON.stringify({
        mean: ms(histogram.mean),
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
      }),
    );
    histogram.reset();
  });
}
