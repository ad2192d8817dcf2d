import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** Options of {@link trimHeapWhenIdle}; every time in ms. */
export interface IdleHeapOptions {
  /** How often the event loop's utilisation is sampled (default 2,000 ms). */
  sampleMs?: number;
  /**
   * How long the process must have been idle before the first collection (default 6,000 ms, longer
   * than the span of recent collections over which V8 judges the allocation rate).
   */
  idleMs?: number;
  /** Event-loop utilisation (0–1) over one sample below which the process counts as idle (default 0.02). */
  idleUtilisation?: number;
  /** The collection itself (default V8's `gc()`, a full collection); tests pass a counter. */
  collect?: () => void;
  /** The young generation's size after a collection, in bytes (default V8's `new_space` size); tests pass their own. */
  youngGenerationBytes?: () => number;
}

/** What {@link trimHeapWhenIdle} returns: how many collections it ran so far, and how to stop it. */
export interface IdleHeapTrimmer {
  readonly collections: number;
  stop(): void;
}

/** Fewest full collections in one idle spell: the second compacts the old generation the first marked (see {@link IdleSpells}). */
export const MIN_COLLECTIONS_PER_IDLE_SPELL = 2;
/** Most full collections in one idle spell, whether or not the young generation has shrunk (see {@link IdleSpells}). */
export const MAX_COLLECTIONS_PER_IDLE_SPELL = 5;

/**
 * When a process that was busy has gone idle: a pure account of event-loop samples that says when
 * to collect. Busy is a sample at or above `idleUtilisation`. After a busy sample (or the start),
 * once the samples since have all been idle for `idleMs`, {@link observe} answers true at each
 * sample until {@link collected} says the heap has settled, and at most
 * {@link MAX_COLLECTIONS_PER_IDLE_SPELL} times; then false until the process has been busy again.
 */
export class IdleSpells {
  private idleForMs = 0;
  private collections = 0;
  private settled = false;

  /**
   * @param sampleMs time one sample covers, in ms
   * @param idleMs idle time before the first collection of a spell, in ms
   * @param idleUtilisation utilisation (0–1) below which a sample is idle
   */
  constructor(
    private readonly sampleMs: number,
    private readonly idleMs: number,
    private readonly idleUtilisation: number,
  ) {}

  /** Takes one sample's event-loop utilisation (0–1); true when a collection is due now. */
  observe(utilisation: number): boolean {
    if (utilisation >= this.idleUtilisation) {
      this.idleForMs = 0;
      this.collections = 0;
      this.settled = false;
      return false;
    }
    this.idleForMs += this.sampleMs;
    return this.idleForMs >= this.idleMs && !this.settled && this.collections < MAX_COLLECTIONS_PER_IDLE_SPELL;
  }

  /**
   * Records a collection; `youngShrunk` says whether the young generation is back at its smallest.
   * The spell is settled after {@link MIN_COLLECTIONS_PER_IDLE_SPELL} collections of which the last
   * left it there.
   */
  collected(youngShrunk: boolean): void {
    this.collections++;
    this.settled = youngShrunk && this.collections >= MIN_COLLECTIONS_PER_IDLE_SPELL;
  }
}

/**
 * The young generation's size (both semi-spaces) at or below which it counts as back at its
 * smallest, in bytes: V8 starts a heap's semi-spaces at 1 MiB each.
 */
export const SMALL_YOUNG_GENERATION_BYTES = 2 * 1024 * 1024;

/**
 * Runs full garbage collections once the process has gone idle after a busy spell (see
 * {@link IdleSpells}), so that an idle server gives back the memory its requests made V8 keep.
 *
 * Why: V8 grows the young generation (two semi-spaces) under a stream of requests and shrinks it
 * only at a collection that finds the recent allocation rate low. An idle server runs no
 * collection, so it keeps memory it no longer uses, and a collection soon after busy work can
 * still judge the rate high. Hence one collection per sample until the young generation has shrunk, at
 * least {@link MIN_COLLECTIONS_PER_IDLE_SPELL} and at most {@link MAX_COLLECTIONS_PER_IDLE_SPELL},
 * only once nothing else has used the event loop for `idleMs`; a busy server runs none. Capping the
 * young generation instead (`--max-semi-space-size`) would slow a busy server; the figures are in
 * decisions 0008 and 0023. Each collection runs with {@link IDLE_COLLECTION_FLAGS}, so that it
 * also compacts the old generation and drops bytecode not in use. The timer does not keep the
 * process alive.
 *
 * `gc` is taken from V8 with `--expose-gc` for one new `vm` context (the flag is turned off again
 * at once, so no other context sees a `gc` global) when the first collection is due. Where V8 does
 * not give it, the trimmer stops and `collections` stays 0.
 */
export function trimHeapWhenIdle(options: IdleHeapOptions = {}): IdleHeapTrimmer {
  const sampleMs = options.sampleMs ?? 2_000;
  const spells = new IdleSpells(sampleMs, options.idleMs ?? 6_000, options.idleUtilisation ?? 0.02);
  const youngBytes = options.youngGenerationBytes ?? youngGenerationBytes;
  // V8's gc() is asked for at the first collection, not at start: nothing here delays a start.
  let collect = options.collect;
  let collections = 0;
  let previous = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const due = spells.observe(performance.eventLoopUtilization(now, previous).utilization);
    previous = now;
    if (!due) return;
    collect ??= exposedGc();
    if (!collect) return clearInterval(timer);
    collections++;
    collect();
    spells.collected(youngBytes() <= SMALL_YOUNG_GENERATION_BYTES);
    // The collection's own time is not a sign of work.
    previous = performance.eventLoopUtilization();
  }, sampleMs);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    stop: () => clearInterval(timer),
  };
}

/** The young generation's reserved size (V8's `new_space`), in bytes. */
function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * V8 flags set for the length of each idle collection, and unset after it (V8 reads both at each
 * collection; Node.js 20, 22 and 24 take them at run time):
 * - `--compact-on-every-full-gc` moves the old generation's live objects onto as few pages as they
 *   fit, where a collection otherwise moves them only off pages it finds fragmented enough, so the
 *   freed pages go back to the system;
 * - `--stress-flush-code` drops the bytecode (and baseline code) of every function not running,
 *   where V8 otherwise drops only what has gone unused over several collections: the start's
 *   configuration, wiring and migration checks, the parts of libraries used once. A function
 *   whose bytecode was dropped compiles again when next called (about 1.5 ms on the first request
 *   after an idle spell, measured).
 * Only an idle server pays for either (decision 0023).
 */
export const IDLE_COLLECTION_FLAGS: readonly string[] = ['--compact-on-every-full-gc', '--stress-flush-code'];

/**
 * V8's `gc()` (a full, synchronous collection) with {@link IDLE_COLLECTION_FLAGS} set while it
 * runs, `gc` exposed to one throwaway context; undefined where V8 refuses.
 */
function exposedGc(): (() => void) | undefined {
  let gc: unknown;
  try {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('typeof gc === "function" ? gc : undefined');
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc !== 'function') return undefined;
  return () => {
    for (const flag of IDLE_COLLECTION_FLAGS) v8.setFlagsFromString(flag);
    try {
      (gc as () => void)();
    } finally {
      for (const flag of IDLE_COLLECTION_FLAGS) v8.setFlagsFromString(flag.replace(/^--/, '--no-'));
    }
  };
}
