import type { FileHandle } from 'node:fs/promises';

/**
 * Writes every byte of `buffers` to `handle` with `writev`, however many calls a short write takes.
 * @param position byte offset in the file to write at, advancing with each call; null writes at
 *   (and advances) the file's own position
 * @throws the file system's error, as `FileHandle.writev` raises it (callers map it to their own)
 */
export async function writeBuffers(handle: FileHandle, buffers: Uint8Array[], position: number | null): Promise<void> {
  let pending = buffers;
  let at = position;
  for (;;) {
    const total = pending.reduce((sum, buffer) => sum + buffer.length, 0);
    const { bytesWritten } = await handle.writev(pending, at ?? undefined);
    if (bytesWritten >= total) return;
    if (at !== null) at += bytesWritten;
    pending = remainderAfter(pending, bytesWritten);
  }
}

/** What is left of `buffers` after their first `written` bytes (views, no copy). */
function remainderAfter(buffers: Uint8Array[], written: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  for (const buffer of buffers) {
    if (written >= buffer.length) {
      written -= buffer.length;
      continue;
    }
    rest.push(written > 0 ? buffer.subarray(written) : buffer);
    written = 0;
  }
  return rest;
}
