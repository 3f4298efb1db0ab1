/**
 * Rounds of background work on one instance, one at a time: a timer starts a round every interval unless one is
 * running, and a caller can run one now (waiting for the running one first). The background workers (metrics,
 * re-classification, and any later job) each own one; server.ts starts them through `startWorkers()`.
 */
import type { FastifyBaseLogger } from 'fastify';

export class Rounds {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;

  /** `round(background)` does the work; `background` is false for a round run on demand. */
  constructor(
    private readonly name: string,
    private readonly log: FastifyBaseLogger,
    private readonly round: (background: boolean) => Promise<void>,
  ) {}

  /** Whether stop() has been called (a long round checks it between batches). */
  get stopped(): boolean {
    return this.stopping;
  }

  /** Starts a round every `intervalMs` (the timer does not keep the process alive); a failed round is logged. */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.stopping = false;
    this.timer = setInterval(() => {
      if (this.running || this.stopping) return;
      this.running = this.round(true)
        .catch((error: unknown) => this.log.warn({ err: error }, `${this.name} round failed`))
        .finally(() => {
          this.running = null;
        });
    }, intervalMs);
    this.timer.unref();
  }

  /** Runs one round now, after the one in progress; its failure is the caller's. */
  async runNow(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    const round = this.round(false).finally(() => {
      if (this.running === round) this.running = null;
    });
    this.running = round;
    await round;
  }

  /** Stops the timer and waits for the round in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
