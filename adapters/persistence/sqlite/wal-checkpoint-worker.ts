// The worker thread of wal-checkpointer.ts: runs SQLite's WAL checkpoints on connections of its
// own, so that copying pages into the database file and its two fsyncs never block the service's
// event loop. One worker per process serves every database file the process has open.
import BetterSqlite3 from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';
import type { CheckpointReply, CheckpointRequest } from './wal-checkpointer.js';

const connections = new Map<string, BetterSqlite3.Database>();

function connection(path: string): BetterSqlite3.Database {
  let database = connections.get(path);
  if (!database) {
    // fileMustExist: the service's own connection created the file and set journal_mode=WAL,
    // which is stored in the file; this connection only checkpoints and never waits for a lock.
    database = new BetterSqlite3(path, { fileMustExist: true, timeout: 0 });
    connections.set(path, database);
  }
  return database;
}

function handle(request: CheckpointRequest): CheckpointReply {
  try {
    if (request.type === 'close') {
      connections.get(request.path)?.close();
      connections.delete(request.path);
      return { id: request.id, ok: true, busy: false, log: 0, checkpointed: 0 };
    }
    // PASSIVE: copies every frame that no reader still needs, without waiting for readers or the
    // writer (https://www.sqlite.org/pragma.html#pragma_wal_checkpoint).
    const [row] = connection(request.path).pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    return { id: request.id, ok: true, busy: row!.busy !== 0, log: row!.log, checkpointed: row!.checkpointed };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { id: request.id, ok: false, code: typeof code === 'string' ? code : undefined, message: error instanceof Error ? error.message : String(error) };
  }
}

parentPort!.on('message', (request: CheckpointRequest) => parentPort!.postMessage(handle(request)));
