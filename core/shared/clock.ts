/** Port: the current time. Adapters: system clock; tests use a settable clock. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}
