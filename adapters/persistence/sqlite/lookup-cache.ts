import type BetterSqlite3 from 'better-sqlite3';
import { WalIndexHeader } from './wal-index-header.js';

/** Most entries a {@link LookupCache} holds; when full, it starts again empty. */
export const LOOKUP_CACHE_ENTRIES = 4096;

/**
 * The rows of cacheable lookups (`PrecompiledQuery` with `cacheable`: an API key by its hash, a
 * user by id, a custom domain by user…) kept on one SQLite connection between calls, for as long as
 * the database has not changed. On every call it asks SQLite whether anything was committed since
 * the last call (see dropIfChanged for how often it asks), and drops every entry if so:
 *
 * - `total_changes()` (rows inserted, updated or deleted through this connection since it opened:
 *   every write of this process goes through it, whether it committed or rolled back);
 * - whether any other connection committed: another process on the same file (a second server,
 *   the admin CLI), or this process's WAL worker writing the activity log. Read from the WAL-index
 *   header in the `-shm` file ({@link WalIndexHeader}: one `pread`, no lock), or, where the
 *   database has no such file (in memory, not in WAL mode), with `PRAGMA data_version`
 *   (https://sqlite.org/pragma.html#pragma_data_version), which opens a read transaction: two
 *   `fcntl` lock calls, several times dearer, more so under load (bench/README.md, "Measurements behind the code").
 *
 * So an answer is never older than the last commit before the request it serves was received: a
 * revoked key, a changed plan or a new custom domain is seen by the next request in every process,
 * exactly as without the cache. Other connections' commits are checked once per task of the event
 * loop (see dropIfChanged), and callers that can wait ({@link gate}, through `PrecompiledQuery`)
 * share one check per turn of the loop, which costs less than one lookup that builds a row, of
 * which a request makes three or more (bench/README.md, "Measurements behind the code"). Any write
 * empties the cache, so under a stream of uploads it mostly misses; it pays off for the reads that
 * come between writes, which are most requests.
 *
 * Must only be used outside a transaction on the connection (the caller's rule: committed data
 * only). Rows are shared between callers and must not be modified.
 */
export class LookupCache {
  private readonly bySql = new Map<string, Map<string, unknown[]>>();
  private entries = 0;
  private changes: unknown = undefined;
  private readonly totalChanges: BetterSqlite3.Statement;
  /** True when another connection committed since the last call. */
  private readonly otherCommits: () => boolean;
  private readonly header: WalIndexHeader | undefined;

  /**
   * @param database the connection whose lookups are cached; call {@link close} before closing it
   * @param maxEntries most rows sets kept (one per SQL and parameters); beyond it the cache starts over
   */
  constructor(
    database: BetterSqlite3.Database,
    private readonly maxEntries = LOOKUP_CACHE_ENTRIES,
  ) {
    this.totalChanges = database.prepare('select total_changes()').pluck();
    const header = (this.header = WalIndexHeader.open(database));
    if (header) {
      this.otherCommits = () => header.changed();
    } else {
      const dataVersion = database.prepare('pragma data_version').pluck();
      let version: unknown = dataVersion.get();
      this.otherCommits = () => {
        const now = dataVersion.get();
        if (now === version) return false;
        version = now;
        return true;
      };
    }
  }

  /** Empties the cache and lets go of the `-shm` file; the cache must not be used afterwards. */
  close(): void {
    this.clear();
    this.header?.close();
  }

  /**
   * The rows of `statement` (whose text is `sql`) for `parameters`: from the cache when the same
   * lookup was answered since the database last changed, otherwise read now and kept.
   * @throws SQLite's error (nothing is kept then)
   */
  read(statement: BetterSqlite3.Statement, sql: string, parameters: readonly unknown[]): unknown[] {
    this.dropIfChanged();
    const key = parameters.length === 1 && typeof parameters[0] === 'string' ? parameters[0] : JSON.stringify(parameters);
    const cached = this.bySql.get(sql)?.get(key);
    if (cached) return cached;
    const rows = statement.all(parameters);
    if (this.entries >= this.maxEntries) this.clear();
    let forSql = this.bySql.get(sql);
    if (!forSql) this.bySql.set(sql, (forSql = new Map<string, unknown[]>()));
    forSql.set(key, rows);
    this.entries += 1;
    return rows;
  }

  /**
   * Empties the cache when this connection wrote or another one committed since the last check.
   * Writes on this connection are checked on every call (a counter read); other connections' commits once
   * per task of the event loop: one I/O, timer or immediate callback together with every promise
   * continuation it leads to, until its microtasks have all run. That is as fresh as checking every
   * time: the requests served in one task were all received before it began (their bytes were read
   * in its I/O callback or an earlier one; no socket is read while a task runs), so a commit another
   * process acknowledged before a client sent one of them came before the check too.
   */
  private dropIfChanged(): void {
    const changes = this.totalChanges.get();
    const committed = this.checkedThisTask ? false : this.checkOtherConnections();
    if (changes === this.changes && !committed) return;
    this.clear();
    this.changes = changes;
    for (const listener of this.changeListeners) listener();
  }

  /**
   * Checks now (as a lookup would: this connection's writes always, other connections' commits once
   * per task) whether the database changed, and if so empties the cache and tells the listeners of
   * {@link onChange}. For caches kept outside this one (SqliteChangeFeed), after {@link gate}.
   */
  check(): void {
    this.dropIfChanged();
  }

  /**
   * Calls `listener` whenever a check finds the database changed (this connection wrote, or another
   * one committed). Returns the function that stops it.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => {
      this.changeListeners.delete(listener);
    };
  }

  private readonly changeListeners = new Set<() => void>();

  /**
   * Undefined when a lookup now would not ask about other connections (they were checked in this
   * task); otherwise a promise that resolves in the next check phase of the event loop
   * (`setImmediate`), whose waiters then all look up within that one task: the first lookup asks,
   * the others use its answer. Every request that reached a lookup in one turn of the loop waits on
   * the same promise, so the `-shm` file is read once per turn instead of once per request, and the
   * requests' remaining work runs one after the other in that phase, which under load roughly
   * halves the CPU a request costs (bench/README.md). Fresh as ever: every waiter's
   * request had been received before the check (it was waiting). Never rejects.
   */
  gate(): Promise<void> | undefined {
    if (this.checkedThisTask) return undefined;
    this.waiting ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.waiting = undefined;
        resolve();
      }),
    );
    return this.waiting;
  }

  /** How often other connections' commits were asked about (the `-shm` header read or `data_version`), for tests and diagnostics. */
  get otherConnectionChecks(): number {
    return this.checks;
  }

  private checks = 0;
  private waiting: Promise<void> | undefined;
  private checkedThisTask = false;

  /** Asks whether another connection committed, and holds the answer good until the current task ends. */
  private checkOtherConnections(): boolean {
    this.checks += 1;
    this.checkedThisTask = true;
    // A tick queued from a microtask runs only once the task's microtask queue is empty: a tick
    // queued directly from a callback's synchronous part would run before its promise continuations.
    queueMicrotask(this.endTaskAfterMicrotasks);
    return this.otherCommits();
  }

  private readonly endTask = (): void => {
    this.checkedThisTask = false;
  };
  private readonly endTaskAfterMicrotasks = (): void => {
    process.nextTick(this.endTask);
  };

  private clear(): void {
    if (this.entries > 0) this.bySql.clear();
    this.entries = 0;
  }
}
