// The few WHATWG globals the core uses (URL, timers, AbortSignal) exist in every JavaScript host:
// Node.js, Deno, Bun, browsers. They are typed here, structurally and inside this module, instead of
// by a global declaration: the core then compiles without DOM or Node types, and also inside a host
// project that has them (a global `declare class URL` would clash with @types/node's).

/** A parsed absolute URL (WHATWG URL Standard), the fields the core reads. */
export interface ParsedUrl {
  readonly href: string;
  readonly origin: string;
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly hostname: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
}

/** What the core reads of an `AbortSignal`; Node's and the web's both are one. */
export interface AbortSignalLike {
  readonly aborted: boolean;
}

/** An opaque timer handle of {@link setTimer}. */
export type TimerHandle = unknown;

interface WebGlobals {
  URL: new (input: string, base?: string) => ParsedUrl;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(callback: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
}

const web = globalThis as unknown as WebGlobals;

/**
 * Parses `input` (relative to `base` when given) as the host's `new URL(input, base)` does.
 * @throws TypeError when `input` is not a valid URL
 */
export function parseUrl(input: string, base?: string): ParsedUrl {
  return new web.URL(input, base);
}

/** Calls `callback` once after `ms` milliseconds (the host's `setTimeout`). */
export function setTimer(callback: () => void, ms: number): TimerHandle {
  return web.setTimeout(callback, ms);
}

/** Cancels a timer of {@link setTimer}; a handle already fired or undefined is ignored. */
export function clearTimer(handle: TimerHandle): void {
  web.clearTimeout(handle);
}

/**
 * Calls `callback` every `ms` milliseconds (the host's `setInterval`). The timer does not keep a
 * Node.js process alive by itself (`unref`, where the host has it).
 */
export function setRepeatingTimer(callback: () => void, ms: number): TimerHandle {
  const handle = web.setInterval(callback, ms);
  (handle as { unref?: () => void } | undefined)?.unref?.();
  return handle;
}

/** Cancels a timer of {@link setRepeatingTimer}; undefined is ignored. */
export function clearRepeatingTimer(handle: TimerHandle): void {
  web.clearInterval(handle);
}
