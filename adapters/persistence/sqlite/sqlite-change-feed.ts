import type { ChangeFeed, ChangeListener } from '../../../core/shared/change-feed.js';
import { ChangeListeners } from '../../changes/change-listeners.js';
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
  private readonly listeners = new ChangeListeners();
  private watching: LookupCache | undefined;

  /** @param lookups the connection's lookup cache; undefined once the database is closed (then nothing is delivered) */
  constructor(private readonly lookups: () => LookupCache | undefined) {}

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.subscribe(listener);
  }

  catchUp(): Promise<void> | undefined {
    const cache = this.lookups();
    if (!cache) return undefined;
    if (this.watching !== cache) {
      this.watching = cache;
      cache.onChange(() => this.listeners.deliver({ kind: 'everything' }));
    }
    const gate = cache.gate();
    if (!gate) {
      cache.check();
      return undefined;
    }
    return gate.then(() => this.lookups()?.check());
  }
}
