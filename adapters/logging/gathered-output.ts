import { writeSync } from 'node:fs';

/** Bytes a write to a pipe may hold and still never be interleaved with other writers' (Linux; POSIX's minimum is 512). */
export const PIPE_BUF = 4096;
/** Default of {@link GatheredOutputOptions.gatherBytes}: a Linux pipe's whole buffer. */
const GATHER_BYTES = 64 * 1024;
/** Default of {@link GatheredOutputOptions.flushEveryMs}. */
const FLUSH_EVERY_MS = 100;
/** How long a write waits before it tries again when the output is full (EAGAIN), ms. */
const FULL_WAIT_MS = 1;

/** Options of {@link GatheredOutput}. */
export interface GatheredOutputOptions {
  /** File descriptor the lines go to; default 1 (stdout). */
  fd?: number;
  /** Bytes of lines gathered before they are written; default 64 KiB. */
  gatherBytes?: number;
  /** Milliseconds after the first gathered line by which lines are written however few; default 100. */
  flushEveryMs?: number;
  /**
   * The write(2) of bytes `[offset, offset + length)` of `buffer`: returns the bytes written,
   * throws as `fs.writeSync` does (`code` EAGAIN when a non-blocking output is full). Default
   * `fs.writeSync` on `fd`; tests pass their own.
   */
  writeSync?: (buffer: Buffer, offset: number, length: number) => number;
}

/**
 * A log destination (pino's `{ write(line) }` stream) that gathers lines, each ending in `\n`, and
 * writes them with synchronous writes of at most {@link PIPE_BUF} bytes that end at a line end: the
 * lines of several processes sharing one pipe (the workers of one `npm start`) never interleave
 * inside a line (POSIX: a pipe write of at most PIPE_BUF bytes is atomic). A single line longer
 * than that is written alone.
 *
 * Lines are written once `gatherBytes` (default 64 KiB) have gathered, and `flushEveryMs` (default
 * 100 ms) after the first line gathered since the last write whatever has, all in one burst.
 * Gathering a pipe's worth is what makes the access log cheap: a write to a pipe that was empty
 * wakes its reader, and the writes that follow it in one burst, the pipe not yet empty, do not. In
 * the service, writes of 3 KiB as lines gathered (pino's `SonicBoom` cannot gather more than it
 * writes at once) cost about 7 µs per plain read, a tenth of its CPU (decision 0012,
 * docs/decisions/). The writes are synchronous: a reader that falls behind (EAGAIN on
 * a full non-blocking pipe: retried after {@link FULL_WAIT_MS} ms) slows the process down instead
 * of letting lines pile up in its memory. A partial write goes on from where it stopped. An output
 * that fails otherwise (EPIPE: its reader has gone) loses the rest of that burst, and the process
 * goes on. {@link flushSync} writes what is gathered at once (the owner calls it at exit).
 */
export class GatheredOutput {
  private readonly buffer: Buffer;
  private used = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly flushEveryMs: number;
  private readonly writeBytes: (buffer: Buffer, offset: number, length: number) => number;

  constructor(options: GatheredOutputOptions = {}) {
    const fd = options.fd ?? 1;
    this.buffer = Buffer.allocUnsafe(Math.max(PIPE_BUF, options.gatherBytes ?? GATHER_BYTES));
    this.flushEveryMs = options.flushEveryMs ?? FLUSH_EVERY_MS;
    this.writeBytes = options.writeSync ?? ((buffer, offset, length) => writeSync(fd, buffer, offset, length));
  }

  /** Gathers one line (ending in `\n`, as pino writes them); writes what is gathered first when the line does not fit. */
  write(line: string): boolean {
    const bytes = Buffer.byteLength(line);
    if (bytes > this.buffer.length - this.used) {
      this.flushSync();
      if (bytes > this.buffer.length) {
        this.writeOut(Buffer.from(line), bytes);
        return true;
      }
    }
    this.used += this.buffer.write(line, this.used);
    this.timer ??= setTimeout(this.flushSync, this.flushEveryMs).unref();
    return true;
  }

  /** Writes every gathered line now. */
  readonly flushSync = (): void => {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.used === 0) return;
    const used = this.used;
    this.used = 0;
    this.writeOut(this.buffer, used);
  };

  /** Writes bytes `[0, end)` of `buffer` in pieces of at most PIPE_BUF bytes that end at a line end (a longer line alone). */
  private writeOut(buffer: Buffer, end: number): void {
    let offset = 0;
    while (offset < end) {
      let pieceEnd = end;
      if (end - offset > PIPE_BUF) {
        const lineEnd = buffer.lastIndexOf(0x0a, offset + PIPE_BUF - 1);
        if (lineEnd >= offset) pieceEnd = lineEnd + 1;
        else {
          const longLineEnd = buffer.indexOf(0x0a, offset + PIPE_BUF);
          pieceEnd = longLineEnd === -1 || longLineEnd >= end ? end : longLineEnd + 1;
        }
      }
      if (!this.writeAll(buffer, offset, pieceEnd)) return;
      offset = pieceEnd;
    }
  }

  /** Writes bytes `[offset, end)`; false when the output failed (the rest is dropped, see the class). */
  private writeAll(buffer: Buffer, offset: number, end: number): boolean {
    while (offset < end) {
      try {
        offset += this.writeBytes(buffer, offset, end - offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
        Atomics.wait(SLEEP, 0, 0, FULL_WAIT_MS);
      }
    }
    return true;
  }
}

/** A cell nobody notifies: Atomics.wait on it is a plain sleep of the main thread. */
const SLEEP = new Int32Array(new SharedArrayBuffer(4));
