import type { Clock } from '../../core/shared/clock.js';

/** A {@link Clock} that stands still until told to move, for tests of expiry and rate limits. */
export class FixedClock implements Clock {
  private current: Date;

  constructor(start: Date = new Date('2026-01-01T00:00:00.000Z')) {
    this.current = new Date(start.getTime());
  }

  /** A copy of the current instant, so callers cannot move the clock by mutating it. */
  now(): Date {
    return new Date(this.current.getTime());
  }

  /** Moves the clock forward by `ms` milliseconds (backward when negative). */
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }

  /** Moves the clock to `date`. */
  set(date: Date): void {
    this.current = new Date(date.getTime());
  }
}
