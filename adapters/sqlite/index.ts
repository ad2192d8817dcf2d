// SQLite machinery shared by the service's database (adapters/persistence/sqlite) and the
// local-disk small-blob store (adapters/blobs): WAL flushes off the event loop (group commit),
// waiting for other processes' locks, and the background worker that checkpoints and writes batches.
export * from './wal-checkpointer.js';
export * from './wal-flusher.js';
