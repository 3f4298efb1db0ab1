/**
 * The log destination for stdout: lines written during one event-loop turn reach the asynchronous SonicBoom as one
 * write, at the end of the turn. Under load one turn answers many requests; SonicBoom handed each line on its own
 * re-measured its whole pending buffer (Buffer.byteLength) and started a write per line while none was in flight.
 */
import pino, { type DestinationStream } from 'pino';

/** What the batch is handed to: SonicBoom, or a test's stand-in. */
export interface LogSink {
  write(chunk: string): unknown;
  flushSync(): void;
}

/** Beyond this many pending characters the batch is handed over at once, so one busy turn cannot hoard memory. */
const MAX_PENDING = 64 * 1024;

export class TurnBatchedDestination implements DestinationStream {
  private pending = '';
  private scheduled = false;

  constructor(private readonly sink: LogSink) {}

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= MAX_PENDING) this.handOver();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.endOfTurn);
    }
  }

  /** Writes every pending line now, synchronously (on close and on exit). */
  flushSync(): void {
    this.handOver();
    this.sink.flushSync();
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.handOver();
  };

  private handOver(): void {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    this.sink.write(chunk);
  }
}

/** Asynchronous stdout, batched per turn; whatever is pending when the process exits is written synchronously. */
export function batchedStdout(): TurnBatchedDestination {
  const destination = new TurnBatchedDestination(pino.destination({ dest: 1, sync: false }));
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // stdout is gone (closed pipe): nothing left to write to.
    }
  });
  return destination;
}
