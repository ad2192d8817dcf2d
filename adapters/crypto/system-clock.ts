import type { Clock } from '../../core/shared/clock.js';

/** {@link Clock} reading the system's wall clock. */
export class SystemClock implements Clock {
  /** A new Date for the current instant (ms precision). */
  now(): Date {
    return new Date();
  }
}
