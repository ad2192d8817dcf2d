import BetterSqlite3 from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { WalIndexHeader } from '../persistence/sqlite/wal-index-header.js';
import { backgroundCheckpoints, SAFETY_NET_AUTOCHECKPOINT_PAGES, type WalCheckpoints } from '../persistence/sqlite/wal-checkpointer.js';
import { retryWhileBusy, WalFlusher } from '../persistence/sqlite/wal-flusher.js';

/** Size and age of one small blob, as {@link SmallBlobDatabase} stores them. */
export interface SmallBlobEntry {
  key: string;
  /** Bytes. */
  size: number;
  /** When it was stored, in ms since the epoch. */
  modifiedAt: number;
}

/** Bytes of blobs that {@link SmallBlobDatabase.get} keeps after reading them, at most (keys and overhead counted as {@link CACHE_ENTRY_OVERHEAD} each). */
export const READ_CACHE_BYTES = 2 * 1024 * 1024;
/** The largest blob (bytes) that {@link SmallBlobDatabase.get} keeps: the read transaction it saves costs the same for any size, and larger blobs would fill the cache. */
export const READ_CACHE_MAX_BLOB_BYTES = 8 * 1024;
/** What an entry of the read cache costs besides its bytes (its key, the Buffer object, the LRU's links), in bytes. */
const CACHE_ENTRY_OVERHEAD = 256;

/** Rows read per statement by {@link SmallBlobDatabase.page}. */
export const SMALL_BLOB_PAGE = 500;

/**
 * Small blobs as rows of one SQLite database file, for `SqliteSmallBlobStore`: a table
 * `blobs (key primary key, bytes, size, modified_at)`.
 *
 * Why: a blob file costs nine file-system calls to store durably (a temp file opened, written,
 * fsynced, closed, linked and unlinked, its directory opened, fsynced and closed), two of them
 * flushes of the disk, for every 4 KiB upload; a row costs one insert and a share of one WAL flush
 * that every insert committed meanwhile shares (group commit, as the service's database does). The
 * file-system work is most of a small upload's cost (decision 0005, docs/decisions/).
 * SQLite's own measurements find blobs below ~100 KB faster to read and write inside the database
 * than as files (https://www.sqlite.org/intern-v-extern-blob.html).
 *
 * Durability: with `fsync`, every write (insert, delete) resolves only after the WAL has been
 * flushed to disk (fdatasync of the `-wal` file, {@link WalFlusher}), like a blob file's fsyncs;
 * without it (tests), after the commit. Checkpoints run on the background worker as for the
 * service's database ({@link backgroundCheckpoints}). Several processes may open the same file:
 * writers take turns on SQLite's write lock, waiting asynchronously ({@link retryWhileBusy}, 5 s,
 * then the SQLITE_BUSY goes out).
 *
 * Reads (`get`, `stat`, `has`, `page`) are synchronous better-sqlite3 calls on the event loop: an
 * indexed lookup of one row of at most the store's small-blob limit (64 KiB by default).
 *
 * `get` keeps the bytes it read of blobs of at most {@link READ_CACHE_MAX_BLOB_BYTES} (up to
 * {@link READ_CACHE_BYTES} in all, least recently read dropped first) while the database is
 * unchanged, as the service's lookup cache keeps rows (lookup-cache.ts): the first `get` of each
 * turn of the event loop reads the WAL-index header (WalIndexHeader: one `pread`, no lock) and
 * empties the cache when any connection, in any process, committed since; this connection's own
 * deletes drop their keys at once. Why: reading a row costs a read transaction (its locks on the
 * `-shm` file), a visible share of serving a small file; a kept one costs a map lookup
 * (decision 0005). Both bounds are small because kept Buffers that churn
 * (a cache emptied by every commit under uploads) raise the process's resident memory by more than
 * they hold (the soak test, test/reliability/soak.test.ts). Without a usable header (a database not
 * in WAL mode, in memory) nothing is kept.
 */
export class SmallBlobDatabase {
  private readonly selectBytes: BetterSqlite3.Statement;
  private readonly selectEntry: BetterSqlite3.Statement;
  private readonly selectKey: BetterSqlite3.Statement;
  private readonly insertRow: BetterSqlite3.Statement;
  private readonly deleteRow: BetterSqlite3.Statement;
  private readonly deleteRange: BetterSqlite3.Statement;
  private readonly selectPage: BetterSqlite3.Statement;
  /** Bytes read by `get`, kept while the database is unchanged (see the class). */
  private readonly recent = new LRUCache<string, Buffer>({ maxSize: READ_CACHE_BYTES, sizeCalculation: (bytes) => bytes.length + CACHE_ENTRY_OVERHEAD });
  /** The `-shm` file's header, opened on the first `get`; null when it cannot be used (nothing is kept). */
  private header: WalIndexHeader | null | undefined;
  /** The header was read in this turn of the event loop (cleared by the turn's check phase). */
  private checkedThisTurn = false;

  private constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly wal: WalFlusher | undefined,
    private readonly checkpoints: WalCheckpoints,
  ) {
    this.selectBytes = database.prepare('select bytes from blobs where key = ?').pluck();
    this.selectEntry = database.prepare('select key, size, modified_at as modifiedAt from blobs where key = ?');
    this.selectKey = database.prepare('select 1 from blobs where key = ?').pluck();
    this.insertRow = database.prepare('insert into blobs (key, bytes, size, modified_at) values (?, ?, ?, ?)');
    this.deleteRow = database.prepare('delete from blobs where key = ?');
    // Keys are [0-9A-Za-z_-] segments joined by '/', and '0' follows '/' in ASCII: the keys under
    // `parent` are exactly those in [parent + '/', parent + '0').
    this.deleteRange = database.prepare("delete from blobs where key >= ? || '/' and key < ? || '0'");
    this.selectPage = database.prepare('select key, size, modified_at as modifiedAt from blobs where key > ? order by key limit ?');
  }

  /**
   * Opens (creating when missing) the database at `path` (its directory must exist): WAL mode, the
   * table, background checkpoints.
   * @param options.fsync flush every write to disk before it resolves (see the class)
   * @throws SQLite's error when the file cannot be opened or created (SQLITE_BUSY after 5 s)
   */
  static async open(path: string, options: { fsync: boolean }): Promise<SmallBlobDatabase> {
    const database = new BetterSqlite3(path, { timeout: 0 });
    let checkpoints: WalCheckpoints | undefined;
    try {
      await retryWhileBusy(() => database.pragma('journal_mode = WAL'));
      // NORMAL: SQLite does not sync on commit; the WAL flush below does, off the event loop.
      database.pragma(options.fsync ? 'synchronous = NORMAL' : 'synchronous = OFF');
      await retryWhileBusy(() =>
        database.exec('create table if not exists blobs (key text primary key, bytes blob not null, size integer not null, modified_at integer not null)'),
      );
      checkpoints = backgroundCheckpoints(path, () => {
        if (database.open) database.pragma('wal_autocheckpoint = 1000');
      });
      database.pragma(`wal_autocheckpoint = ${SAFETY_NET_AUTOCHECKPOINT_PAGES}`);
      const wal = options.fsync ? new WalFlusher(`${path}-wal`) : undefined;
      const store = new SmallBlobDatabase(database, wal, checkpoints);
      if (wal) wal.onFlushed = () => checkpoints?.wrote();
      return store;
    } catch (error) {
      await checkpoints?.close();
      database.close();
      throw error;
    }
  }

  /**
   * The bytes stored under `key`, or undefined; kept for the next `get` while the database is
   * unchanged (see the class). The Buffer may be shared with other callers: read it, never write it.
   * @throws SQLite's error
   */
  get(key: string): Buffer | undefined {
    if (this.unchangedSinceLastTurn()) {
      const kept = this.recent.get(key);
      if (kept) return kept;
      const bytes = this.selectBytes.get(key) as Buffer | undefined;
      if (bytes && bytes.length <= READ_CACHE_MAX_BLOB_BYTES) this.recent.set(key, bytes);
      return bytes;
    }
    return this.selectBytes.get(key) as Buffer | undefined;
  }

  /**
   * Whether what the read cache holds may be answered: false without a usable WAL-index header.
   * Once per turn of the event loop it reads the header and empties the cache if any connection
   * committed since the previous read; requests handled in the same turn share that read.
   */
  private unchangedSinceLastTurn(): boolean {
    if (this.header === undefined) this.header = WalIndexHeader.open(this.database) ?? null;
    if (this.header === null) return false;
    if (!this.checkedThisTurn) {
      this.checkedThisTurn = true;
      setImmediate(() => {
        this.checkedThisTurn = false;
      });
      if (this.header.changed()) this.recent.clear();
    }
    return true;
  }

  /** Size and age of the blob under `key`, or undefined. @throws SQLite's error */
  stat(key: string): SmallBlobEntry | undefined {
    return this.selectEntry.get(key) as SmallBlobEntry | undefined;
  }

  /** Whether a blob is stored under `key`. @throws SQLite's error */
  has(key: string): boolean {
    return this.selectKey.get(key) !== undefined;
  }

  /**
   * Stores `bytes` under `key`, durably (see the class).
   * @param modifiedAt ms since the epoch
   * @returns false (and changes nothing) when `key` is taken
   * @throws SQLite's error (SQLITE_BUSY after 5 s, SQLITE_FULL, an I/O error); nothing is stored then
   */
  async insert(key: string, bytes: Uint8Array, modifiedAt: number): Promise<boolean> {
    const value = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const inserted = await retryWhileBusy(() => {
      try {
        this.insertRow.run(key, value, value.length, modifiedAt);
        return true;
      } catch (error) {
        if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
        throw error;
      }
    });
    if (inserted) await this.wrote();
    return inserted;
  }

  /** Removes the blob under `key`, durably. @returns whether there was one @throws SQLite's error */
  async delete(key: string): Promise<boolean> {
    const { changes } = await retryWhileBusy(() => {
      const deleted = this.deleteRow.run(key);
      this.recent.delete(key);
      return deleted;
    });
    if (changes > 0) await this.wrote();
    return changes > 0;
  }

  /** Removes every blob whose key starts with `parent + '/'`, durably. @returns how many @throws SQLite's error */
  async deleteUnder(parent: string): Promise<number> {
    const { changes } = await retryWhileBusy(() => {
      const deleted = this.deleteRange.run(parent, parent);
      if (deleted.changes > 0) this.recent.clear();
      return deleted;
    });
    if (changes > 0) await this.wrote();
    return changes;
  }

  /** Up to {@link SMALL_BLOB_PAGE} entries with keys after `afterKey` ('' for the first), in key order. @throws SQLite's error */
  page(afterKey: string): SmallBlobEntry[] {
    return this.selectPage.all(afterKey, SMALL_BLOB_PAGE) as SmallBlobEntry[];
  }

  /** Stops the background checkpoints and closes the connection (the last one checkpoints and removes the WAL). Never rejects. */
  async close(): Promise<void> {
    await this.checkpoints.close();
    await this.wal?.close();
    this.header?.close();
    this.header = null;
    this.recent.clear();
    if (this.database.open) this.database.close();
  }

  /** After a commit: waits for the WAL flush (with fsync), then lets the checkpointer know. */
  private async wrote(): Promise<void> {
    if (this.wal) await this.wal.flush();
    else this.checkpoints.wrote();
  }
}
