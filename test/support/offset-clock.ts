import type { Clock } from '../../core/shared/clock.js';

/**
 * A {@link Clock} that runs with the system clock, shifted by an offset the test moves forward: a
 * server under test keeps working with real time (sessions, timers), and the test jumps ahead to
 * an expiry without waiting for it.
 */
export class OffsetClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
