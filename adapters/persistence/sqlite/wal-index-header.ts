import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Bytes read from the start of the `-shm` file: the two copies of the WAL-index header, 48 bytes
 * each (https://sqlite.org/walformat.html, "The WAL-Index Header").
 */
const HEADER_BYTES = 96;
/** `iVersion` of the WAL-index header written by every SQLite since 3.7.0 (walformat.html, `WALINDEX_MAX_VERSION`). */
const WALINDEX_VERSION = 3007000;
/** Offset of `isInit` (1 once the header is initialised) in a header copy. */
const IS_INIT_OFFSET = 12;
/** The header is in the machine's byte order (walformat.html). */
const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Tells whether any connection, in any process, committed to a SQLite database in WAL mode since
 * the last call, by reading the WAL-index header from the database's `-shm` file: 96 bytes with
 * one `pread`, no lock taken.
 *
 * Why: `PRAGMA data_version` answers the same question but opens a read transaction to do so (two
 * `fcntl` lock calls on the `-shm` file), several times dearer than the `pread`, and more so under
 * load (decision 0006, docs/decisions/).
 *
 * How it is exact: a writer updates the header, copy 2 first and then copy 1, at the end of every
 * commit and before the commit returns (walformat.html: `iChange` is incremented by each
 * transaction, `mxFrame` is the last valid frame, the salts change when the WAL restarts), so a
 * commit acknowledged before a call changes the bytes that call reads; SQLite maps the `-shm` file
 * shared, and a `pread` of the same file sees the same pages (one page cache, Linux and the other
 * Unix kernels SQLite supports). Any difference in the 96 bytes counts as a commit, so a header read
 * while a writer rewrites it only reports a change that is not there yet (never hides one). A read
 * that is short, or finds a header that is not initialised or not of version 3007000, also counts
 * as a change.
 *
 * Only usable while the connection it was opened for stays open: that connection's lock keeps
 * SQLite from deleting or truncating the `-shm` file (it does so only when the last connection
 * closes). {@link WalIndexHeader.open} declines (returns `undefined`) where the header is not in a
 * file: an in-memory database, a connection not in WAL mode, `locking_mode=EXCLUSIVE`, no `-shm`
 * file, or a header it does not recognise; callers then ask `PRAGMA data_version`.
 */
export class WalIndexHeader {
  private last = Buffer.alloc(HEADER_BYTES);
  private next = Buffer.alloc(HEADER_BYTES);

  private constructor(private fd: number | undefined) {}

  /**
   * The header of `database`'s `-shm` file, or `undefined` when it cannot be used (see the class).
   * Call it after the connection has read or written the database in WAL mode (which creates the
   * `-shm` file), and {@link close} it before or with the connection.
   */
  static open(database: BetterSqlite3.Database): WalIndexHeader | undefined {
    if (database.memory || !database.open) return undefined;
    if (String(database.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return undefined;
    if (String(database.pragma('locking_mode', { simple: true })).toLowerCase() !== 'normal') return undefined;
    return WalIndexHeader.openFile(database.name);
  }

  /**
   * The header of the `-shm` file of the database file at `databasePath`, for a caller that knows
   * the database is in WAL mode with `locking_mode=NORMAL` and kept open by a connection of its
   * process (see the class); `undefined` when there is no `-shm` file or its header is not one this
   * class recognises. {@link close} it before that connection closes.
   */
  static openFile(databasePath: string): WalIndexHeader | undefined {
    let fd: number;
    try {
      fd = openSync(`${databasePath}-shm`, 'r');
    } catch {
      return undefined;
    }
    const header = new WalIndexHeader(fd);
    if (!header.readInto(header.last)) {
      header.close();
      return undefined;
    }
    return header;
  }

  /**
   * True when the header differs from what the previous call (or `open`) read, i.e. some
   * connection committed in between; also true when the header could not be read or is not valid.
   * @throws nothing: a failed read reports a change
   */
  changed(): boolean {
    const valid = this.readInto(this.next);
    const same = valid && this.next.equals(this.last);
    if (!same) [this.last, this.next] = [this.next, this.last];
    return !same;
  }

  /** Closes the `-shm` file descriptor (not the connection); `changed` reports a change afterwards. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Already closed: nothing is held any more.
    }
  }

  /** Reads the two header copies into `target`; false when that is not a full, initialised header of version 3007000. */
  private readInto(target: Buffer): boolean {
    if (this.fd === undefined) return false;
    let bytes: number;
    try {
      bytes = readSync(this.fd, target, 0, HEADER_BYTES, 0);
    } catch {
      return false;
    }
    if (bytes !== HEADER_BYTES) return false;
    const version = LITTLE_ENDIAN ? target.readUInt32LE(0) : target.readUInt32BE(0);
    return version === WALINDEX_VERSION && target[IS_INIT_OFFSET] === 1;
  }
}
