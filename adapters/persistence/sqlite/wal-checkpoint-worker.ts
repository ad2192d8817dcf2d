// The worker thread of wal-checkpointer.ts: runs, on connections of its own, SQLite's WAL
// checkpoints (copying pages into the database file and its two fsyncs) and batch writes handed
// to it (the activity log's), so that neither blocks the service's event loop. One worker per
// process serves every database file the process has open; requests run one at a time, in order.
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';
import type { CheckpointReply, CheckpointRequest } from './wal-checkpoint-messages.js';

/** How long a background write waits for another connection's write lock, in ms (as the service's own connection). */
const WRITE_BUSY_TIMEOUT_MS = 5000;

interface FileConnection {
  database: BetterSqlite3.Database;
  statements: Map<string, BetterSqlite3.Statement>;
  /** The WAL file, opened for fdatasync after a background write (undefined until the first). */
  wal: number | undefined;
}

const connections = new Map<string, FileConnection>();

function connection(path: string): FileConnection {
  let file = connections.get(path);
  if (!file) {
    // fileMustExist: the service's own connection created the file and set journal_mode=WAL, which
    // is stored in the file. The busy timeout applies to writes only: PASSIVE checkpoints never
    // wait for a lock (https://www.sqlite.org/pragma.html#pragma_wal_checkpoint).
    const database = new BetterSqlite3(path, { fileMustExist: true, timeout: WRITE_BUSY_TIMEOUT_MS });
    // NORMAL: a commit does not fsync the WAL while holding the write lock; write() flushes the WAL
    // itself after the commit, as the service's connection does (GroupCommitSqliteDriver).
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    file = { database, statements: new Map(), wal: undefined };
    connections.set(path, file);
  }
  return file;
}

/** Runs `statements` as one `BEGIN IMMEDIATE` transaction, then flushes the WAL to disk. */
function write(path: string, statements: readonly { sql: string; parameters: readonly unknown[] }[]): void {
  const file = connection(path);
  file.database
    .transaction(() => {
      for (const { sql, parameters } of statements) {
        let statement = file.statements.get(sql);
        if (!statement) file.statements.set(sql, (statement = file.database.prepare(sql)));
        statement.run(parameters);
      }
    })
    .immediate();
  file.wal ??= openSync(`${path}-wal`, 'r');
  try {
    fdatasyncSync(file.wal);
  } catch (error) {
    closeSync(file.wal);
    file.wal = undefined;
    throw error;
  }
}

function close(path: string): void {
  const file = connections.get(path);
  connections.delete(path);
  if (!file) return;
  if (file.wal !== undefined) closeSync(file.wal);
  file.database.close();
}

function handle(request: CheckpointRequest): CheckpointReply {
  try {
    if (request.type === 'retire') {
      for (const path of [...connections.keys()]) close(path);
      return { id: request.id, ok: true, busy: false, log: 0, checkpointed: 0 };
    }
    if (request.type === 'close') {
      close(request.path);
      return { id: request.id, ok: true, busy: false, log: 0, checkpointed: 0 };
    }
    if (request.type === 'write') {
      write(request.path, request.statements);
      return { id: request.id, ok: true, busy: false, log: 0, checkpointed: 0 };
    }
    // PASSIVE: copies every frame that no reader still needs, without waiting for readers or the
    // writer (https://www.sqlite.org/pragma.html#pragma_wal_checkpoint).
    const [row] = connection(request.path).database.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    return { id: request.id, ok: true, busy: row.busy !== 0, log: row.log, checkpointed: row.checkpointed };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { id: request.id, ok: false, code: typeof code === 'string' ? code : undefined, message: error instanceof Error ? error.message : String(error) };
  }
}

parentPort!.on('message', (request: CheckpointRequest) => parentPort!.postMessage(handle(request)));
