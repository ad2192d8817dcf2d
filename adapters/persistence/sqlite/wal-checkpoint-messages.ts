// The messages between the checkpoint worker's owner (CheckpointWorker, wal-checkpointer.ts) and its worker thread
// (wal-checkpoint-worker.ts), in a file of their own so that the worker does not import the
// module that starts it.

/** A message to the worker (wal-checkpoint-worker.ts). */
export type CheckpointRequest =
  | { id: number; type: 'checkpoint' | 'close'; path: string }
  /** Closes every connection of the worker before its thread is terminated (it ended idle). */
  | { id: number; type: 'retire' }
  | { id: number; type: 'write'; path: string; statements: readonly { sql: string; parameters: readonly unknown[] }[] };

/** The worker's answer to one {@link CheckpointRequest}: the row of `PRAGMA wal_checkpoint` (zeros for a write or close that succeeded), or the error. */
export type CheckpointReply =
  { id: number; ok: true; busy: boolean; log: number; checkpointed: number } | { id: number; ok: false; code: string | undefined; message: string };
