/**
 * Time, injectable so license expiry, token lifetimes and cache ages can be tested without waiting. Wall time
 * (`now`) can jump (NTP, an operator); ages and deadlines are measured on the monotonic reading, which only moves on.
 */
export interface Clock {
  now(): Date;
  /** Milliseconds on a clock that never goes back (`performance.now()` in the service); only differences mean anything. */
  monotonicMs(): number;
}

export const systemClock: Clock = { now: () => new Date(), monotonicMs: () => performance.now() };

/** A clock tests can move. Moving it forward moves the monotonic reading too; setting it back does not. */
export class ManualClock implements Clock {
  private elapsed = 0;
  constructor(private current: Date = new Date()) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  monotonicMs(): number {
    return this.elapsed;
  }
  set(date: Date): void {
    this.elapsed += Math.max(0, date.getTime() - this.current.getTime());
    this.current = new Date(date.getTime());
  }
  advance(ms: number): void {
    this.elapsed += Math.max(0, ms);
    this.current = new Date(this.current.getTime() + ms);
  }
}
