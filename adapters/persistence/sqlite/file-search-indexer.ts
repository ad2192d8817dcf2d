import type BetterSqlite3 from 'better-sqlite3';
import { FILE_SEARCH_FLUSH_STATEMENTS, FILE_SEARCH_PENDING_SQL } from '../sql/sqlite-file-search.js';
import { isBusy, type WalCheckpoints } from '../../sqlite/index.js';

/** How often the indexer looks for files waiting to be indexed, in ms. */
export const FILE_SEARCH_INDEX_INTERVAL_MS = 200;

/**
 * Indexes the files that wait in `files_search_pending` (sqlite-file-search.ts, migration 0033) in
 * the background: every {@link FILE_SEARCH_INDEX_INTERVAL_MS} ms it reads whether any file waits
 * (one indexed read), and if so indexes them in batches, each one transaction
 * (FILE_SEARCH_FLUSH_STATEMENTS): on the checkpoint worker's connection when the database has one
 * (off the event loop), else on `database` itself between transactions. Searches read the pending
 * files meanwhile, so this changes only how fast a search is, never what it finds. Several
 * processes on one file each run one; SQLite's single writer keeps their batches apart.
 *
 * A batch that meets another connection's write lock is tried again at the next look; any other
 * failure goes to `onError` and is tried again likewise.
 */
export class FileSearchIndexer {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private pendingCheck: BetterSqlite3.Statement | undefined;
  private indexBatch: (() => void) | undefined;
  private closed = false;

  /**
   * @param database the connection (FILE_SEARCH_FUNCTION registered, migrated to 0033)
   * @param background the checkpoint worker of the file, when there is one (in-memory databases have none)
   * @param onError told of a batch that failed for any reason but a busy lock
   */
  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly background: WalCheckpoints | undefined,
    private readonly onError: (error: Error) => void,
    intervalMs = FILE_SEARCH_INDEX_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => this.look(), intervalMs);
    this.timer.unref();
  }

  /** Stops looking; waits for a batch under way. Never rejects. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }

  private look(): void {
    if (this.running || this.closed || !this.database.open || this.database.inTransaction) return;
    let waiting: boolean;
    try {
      this.pendingCheck ??= this.database.prepare(FILE_SEARCH_PENDING_SQL);
      waiting = this.pendingCheck.get() !== undefined;
    } catch (error) {
      this.report(error);
      return;
    }
    if (!waiting) return;
    this.running = this.indexWaiting().finally(() => {
      this.running = undefined;
    });
  }

  /** One batch; the next look takes the next (a batch holds up to FILE_SEARCH_FLUSH_BATCH files). */
  private async indexWaiting(): Promise<void> {
    try {
      const written = this.background?.write(FILE_SEARCH_FLUSH_STATEMENTS.map((text) => ({ sql: text, parameters: [] })));
      if (written) {
        await written;
        return;
      }
      if (this.closed || !this.database.open || this.database.inTransaction) return;
      if (!this.indexBatch) {
        const statements = FILE_SEARCH_FLUSH_STATEMENTS.map((text) => this.database.prepare(text));
        this.indexBatch = this.database.transaction(() => {
          for (const statement of statements) statement.run();
        }).immediate;
      }
      this.indexBatch();
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    if (isBusy(error)) return;
    this.onError(error instanceof Error ? error : new Error(String(error)));
  }
}
