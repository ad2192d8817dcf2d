import type { ChangeFeed, ChangeListener } from '../../../core/shared/change-feed.js';
import type { LookupCache } from './lookup-cache.js';

/**
 * {@link ChangeFeed} of a SQLite database: every commit on the file, by any connection (another
 * process, the admin CLI, this process's own writes), delivered as `everything` (SQLite says that
 * something was committed, not what). Asked in {@link catchUp}, through the connection's
 * {@link LookupCache}: its check of this connection's `total_changes()` and of the WAL-index header
 * (other connections), made at most once per turn of the event loop and shared by every waiting
 * caller (`LookupCache.gate`). A cache that catches up before each answer is thus as fresh as a read
 * of the database: every commit acknowledged before the request was received is seen. No connection
 * to lose, so no fallback period.
 */
export class SqliteChangeFeed implements ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private watching: LookupCache | undefined;

  /** @param lookups the connection's lookup cache; undefined once the database is closed (then nothing is delivered) */
  constructor(private readonly lookups: () => LookupCache | undefined) {}

  subscribe(listener: ChangeListener): () => void {
    const entry: ChangeListener = (change) => listener(change);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  catchUp(): Promise<void> | undefined {
    const cache = this.lookups();
    if (!cache) return undefined;
    if (this.watching !== cache) {
      this.watching = cache;
      cache.onChange(() => {
        for (const listener of [...this.listeners]) listener({ kind: 'everything' });
      });
    }
    const gate = cache.gate();
    if (!gate) {
      cache.check();
      return undefined;
    }
    return gate.then(() => this.lookups()?.check());
  }
}
