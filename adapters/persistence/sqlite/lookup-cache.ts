import type BetterSqlite3 from 'better-sqlite3';

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
 * - `PRAGMA data_version`, which changes when any other connection commits: another process on the
 *   same file (a second server, the admin CLI), or this process's WAL worker writing the activity
 *   log (https://sqlite.org/pragma.html#pragma_data_version).
 *
 * So an answer is never older than the last commit before the call: a revoked key, a changed plan
 * or a new custom domain is seen by the next request in every process, exactly as without the
 * cache. Checking costs ~1.8 µs in isolation and ~6.6 µs under load (the data_version pragma opens
 * a read transaction: two `fcntl` lock calls), once per turn, against 4–10 µs for each lookup that
 * builds a row of 7–12 columns, three or more per request (bench/README.md, profile 13 and the run
 * of 2026-11-22 02:11). Any write
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
  private version: unknown = undefined;
  private readonly totalChanges: BetterSqlite3.Statement;
  private readonly dataVersion: BetterSqlite3.Statement;

  /** @param maxEntries most rows sets kept (one per SQL and parameters); beyond it the cache starts over */
  constructor(database: BetterSqlite3.Database, private readonly maxEntries = LOOKUP_CACHE_ENTRIES) {
    this.totalChanges = database.prepare('select total_changes()').pluck();
    this.dataVersion = database.prepare('pragma data_version').pluck();
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
    const rows = statement.all(parameters as unknown[]);
    if (this.entries >= this.maxEntries) this.clear();
    let forSql = this.bySql.get(sql);
    if (!forSql) this.bySql.set(sql, (forSql = new Map<string, unknown[]>()));
    forSql.set(key, rows);
    this.entries += 1;
    return rows;
  }

  /**
   * Empties the cache when this connection wrote or another one committed since the last check.
   * Writes on this connection are checked on every call (0.1 µs); other connections' commits once
   * per turn of the event loop (until `process.nextTick` runs, i.e. within one I/O or timer callback
   * and its promise continuations). That is as fresh as checking every time: the requests served in
   * one turn were all received before it began (their bytes were read in its I/O callback or an
   * earlier one), so a commit another process acknowledged before a client sent one of them came
   * before the check too.
   */
  private dropIfChanged(): void {
    const changes = this.totalChanges.get();
    let version = this.version;
    if (!this.checkedThisTurn) {
      version = this.dataVersion.get();
      this.checkedThisTurn = true;
      process.nextTick(this.endTurn);
    }
    if (changes === this.changes && version === this.version) return;
    this.clear();
    this.changes = changes;
    this.version = version;
  }

  private checkedThisTurn = false;
  private readonly endTurn = (): void => {
    this.checkedThisTurn = false;
  };

  private clear(): void {
    if (this.entries > 0) this.bySql.clear();
    this.entries = 0;
  }
}
