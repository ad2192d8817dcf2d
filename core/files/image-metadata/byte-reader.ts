/**
 * A pull reader over a streamed body (`AsyncIterable<Uint8Array>`) for the metadata parsers: reads
 * a few bytes at a time into memory (a segment header, a metadata segment of bounded size) and
 * passes long runs through chunk by chunk, so memory stays bounded by what a parser asks to hold.
 * `position` counts the bytes taken from the body so far.
 */
export class ByteReader {
  private readonly iterator: AsyncIterator<Uint8Array>;
  /** Bytes read from the body and not yet taken: `pending.subarray(pendingStart)`. */
  private pending: Uint8Array = new Uint8Array(0);
  private pendingStart = 0;
  private ended = false;
  /** Bytes taken so far. */
  position = 0;

  constructor(body: AsyncIterable<Uint8Array>) {
    this.iterator = body[Symbol.asyncIterator]();
  }

  private get available(): number {
    return this.pending.byteLength - this.pendingStart;
  }

  /** Reads from the body until `n` bytes are pending or it ended (joining the chunks once). */
  private async fill(n: number): Promise<void> {
    if (this.available >= n || this.ended) return;
    const parts = [this.pending.subarray(this.pendingStart)];
    let total = this.available;
    while (total < n) {
      const next = await this.iterator.next();
      if (next.done) {
        this.ended = true;
        break;
      }
      parts.push(next.value);
      total += next.value.byteLength;
    }
    const filled = parts.filter((part) => part.byteLength > 0);
    if (filled.length === 1) {
      this.pending = filled[0];
    } else {
      this.pending = new Uint8Array(total);
      let at = 0;
      for (const part of filled) {
        this.pending.set(part, at);
        at += part.byteLength;
      }
    }
    this.pendingStart = 0;
  }

  /** The next `n` bytes, fewer only when the body ends first (a copy the caller may change). */
  async read(n: number): Promise<Uint8Array> {
    await this.fill(n);
    const count = Math.min(n, this.available);
    // A copy made as a Uint8Array (a Buffer's `slice` would share the caller's memory).
    const out = new Uint8Array(count);
    out.set(this.pending.subarray(this.pendingStart, this.pendingStart + count));
    this.pendingStart += count;
    this.position += count;
    return out;
  }

  /** Puts `bytes` (the last ones read) back in front of the body. */
  unread(bytes: Uint8Array): void {
    const joined = new Uint8Array(bytes.byteLength + this.available);
    joined.set(bytes);
    joined.set(this.pending.subarray(this.pendingStart), bytes.byteLength);
    this.pending = joined;
    this.pendingStart = 0;
    this.position -= bytes.byteLength;
  }

  /** Yields the next `n` bytes as they arrive (fewer when the body ends first), holding none of them. */
  async *pass(n: number): AsyncGenerator<Uint8Array, void> {
    let left = n;
    while (left > 0) {
      if (this.available === 0) await this.fill(1);
      if (this.available === 0) return;
      const count = Math.min(left, this.available);
      const out = this.pending.subarray(this.pendingStart, this.pendingStart + count);
      this.pendingStart += count;
      this.position += count;
      left -= count;
      yield out;
    }
  }

  /** Drops the next `n` bytes (fewer when the body ends first). */
  async skip(n: number): Promise<void> {
    for await (const chunk of this.pass(n)) void chunk;
  }

  /** Yields everything left in the body, as it arrives. */
  async *rest(): AsyncGenerator<Uint8Array, void> {
    yield* this.pass(Number.POSITIVE_INFINITY);
  }

  /** Stops reading the body (its source is told, as a `for await` loop left early would). */
  async close(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      await this.iterator.return?.();
    }
  }
}

/** The arrays joined into a new one. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Emits `held` (bytes read but not yet emitted) and everything after it unchanged: where a parser stops understanding the bytes. */
export async function* passRest(held: Uint8Array, reader: ByteReader): AsyncGenerator<Uint8Array, void> {
  if (held.byteLength > 0) yield held;
  yield* reader.rest();
}
