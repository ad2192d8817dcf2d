/**
 * A request body as a generator that remembers the error its own `next()` threw, so that a blob
 * store streaming it into a client library (which wraps every failure alike) can pass the body's
 * failures on as they are (the host's REQUEST_TIMEOUT, a client that went away) and turn only its
 * own into BLOB_STORE_UNAVAILABLE. Errors thrown into the generator from outside (a pipeline's) do
 * not count. Returning ends the body's iterator.
 */
export class WatchedBody {
  /** The error the body's `next()` threw, if it did. */
  private failure: { error: unknown } | undefined;

  constructor(private readonly source: AsyncIterable<Uint8Array>) {}

  /** Whether `error` is the one the body itself threw. */
  threw(error: unknown): boolean {
    return this.failure !== undefined && this.failure.error === error;
  }

  /** The body's chunks, in order. */
  async *chunks(): AsyncGenerator<Uint8Array> {
    const iterator = this.source[Symbol.asyncIterator]();
    try {
      for (;;) {
        let result: IteratorResult<Uint8Array>;
        try {
          result = await iterator.next();
        } catch (error) {
          this.failure = { error };
          throw error;
        }
        if (result.done) return;
        yield result.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
}
