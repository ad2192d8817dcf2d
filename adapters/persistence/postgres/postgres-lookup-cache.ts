import { changeTags, type ChangeFeed } from '../../../core/shared/change-feed.js';
import { keepsNotFound, type LookupKind, type SharedLookupCache } from '../sql/shared-lookups.js';

/** Most lookups a {@link PostgresLookupCache} keeps; when full, it starts again empty. */
export const POSTGRES_LOOKUP_CACHE_ENTRIES = 10_000;

/**
 * The lookups on every request's path (API key, session, account, custom domain by account and by
 * hostname, file by file id) kept in this process on Postgres, so that an authenticated request or a
 * content read costs no round trip while nothing it depends on changed (docs/scale-out.md):
 *
 * - an entry is dropped when the change feed announces a change of its key (tag `<kind>:<key>`;
 *   notifications sent by triggers in the transaction of the change, migration 0010), and every
 *   entry when the feed delivers `everything` (it was down, or still is: then every fallback period);
 * - every entry is dropped when this process writes to a table whose rows are kept ({@link dropAll}
 *   from the write observer), at the statement and again at its commit, so that this process reads
 *   its own writes without waiting for its notification to come back;
 * - an answer read while anything was invalidated is not kept (it may predate the change);
 * - "not found" is kept only for hostnames and custom domains, whose creation is announced too;
 * - concurrent misses of one key share one read ({@link load}), so the requests in flight when an
 *   entry is dropped cost one round trip, not one each;
 * - lookups wait at a per-turn {@link gate}, so that under load the requests of one turn of the
 *   event loop go on together.
 */
export class PostgresLookupCache implements SharedLookupCache {
  private readonly entries = new Map<string, readonly unknown[]>();
  private readonly keysByTag = new Map<string, Set<string>>();
  private generation = 0;
  /** Reads in flight by `<generation>\u0000<key>`: shared only by misses of the same generation. */
  private readonly flights = new Map<string, Promise<readonly unknown[]>>();
  private readonly unsubscribe: () => void;

  /** @param maxEntries most lookups kept; beyond it the cache starts over */
  constructor(
    changes: ChangeFeed,
    private readonly maxEntries = POSTGRES_LOOKUP_CACHE_ENTRIES,
  ) {
    this.unsubscribe = changes.subscribe((change) => {
      if (change.kind === 'everything') this.dropAll();
      else this.drop(changeTags(change));
    });
  }

  get(key: string): readonly unknown[] | undefined {
    return this.entries.get(key);
  }

  stamp(): number {
    return this.generation;
  }

  put(options: { stamp: number; key: string; tag: string; kind: LookupKind; rows: readonly unknown[] }): void {
    if (options.stamp !== this.generation) return;
    if (options.rows.length === 0 && !keepsNotFound(options.kind)) return;
    if (this.entries.size >= this.maxEntries) this.clear();
    this.entries.set(options.key, options.rows);
    let keys = this.keysByTag.get(options.tag);
    if (!keys) this.keysByTag.set(options.tag, (keys = new Set()));
    keys.add(options.key);
  }

  load(options: {
    key: string;
    tag: string | ((rows: readonly unknown[]) => string | undefined);
    kind: LookupKind;
    read: () => Promise<readonly unknown[]>;
  }): Promise<readonly unknown[]> {
    const hit = this.entries.get(options.key);
    if (hit) return Promise.resolve(hit);
    const stamp = this.generation;
    const flightKey = `${stamp}\u0000${options.key}`;
    let flight = this.flights.get(flightKey);
    if (!flight) {
      flight = options.read().then(
        (rows) => {
          this.flights.delete(flightKey);
          const tag = typeof options.tag === 'function' ? options.tag(rows) : options.tag;
          if (tag !== undefined) this.put({ stamp, key: options.key, tag, kind: options.kind, rows });
          return rows;
        },
        (error: unknown) => {
          this.flights.delete(flightKey);
          throw error;
        },
      );
      this.flights.set(flightKey, flight);
    }
    return flight;
  }

  /**
   * Undefined while the task that passed the gate (and its promise continuations) runs; otherwise a
   * promise shared by every lookup that reaches the gate in this turn of the event loop, resolved in
   * the turn's check phase (`setImmediate`). The requests of one turn then do their remaining work
   * (handler, response `writev`, small-blob read) back to back, which under load costs about 40 %
   * less CPU per request than each in its own I/O callback, as the SQLite lookup cache's gate does
   * (bench/README.md, "Postgres reads batched per turn"). Freshness is unchanged: an entry is read
   * after the wait, never before. Never rejects.
   */
  gate(): Promise<void> | undefined {
    if (this.passing) return undefined;
    this.waiting ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.waiting = undefined;
        this.passing = true;
        resolve();
        // After the waiters' continuations: a tick queued from a microtask runs once the microtask queue is empty.
        queueMicrotask(this.endPassingAfterMicrotasks);
      }),
    );
    return this.waiting;
  }

  private waiting: Promise<void> | undefined;
  private passing = false;
  private readonly endPassing = (): void => {
    this.passing = false;
  };
  private readonly endPassingAfterMicrotasks = (): void => {
    process.nextTick(this.endPassing);
  };

  /** Drops the entries of `tags`. */
  drop(tags: readonly string[]): void {
    this.generation += 1;
    for (const tag of tags) {
      const keys = this.keysByTag.get(tag);
      if (!keys) continue;
      for (const key of keys) this.entries.delete(key);
      this.keysByTag.delete(tag);
    }
  }

  /** Drops every entry. */
  dropAll(): void {
    this.generation += 1;
    this.clear();
  }

  /** How many lookups are kept now (tests, diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /** Stops listening to the change feed. */
  close(): void {
    this.unsubscribe();
    this.clear();
  }

  private clear(): void {
    this.entries.clear();
    this.keysByTag.clear();
  }
}
