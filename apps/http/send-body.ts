import type { ServerResponse } from 'node:http';

/**
 * Writes a response body to `res` (status and headers already set on it) and ends it, keeping the
 * rule of borrowed chunks (core/files/blob-store.ts, BlobReadOptions): chunk n goes to
 * `res.write(chunk, callback)`, chunk n+1 is asked for while the socket sends chunk n, and chunk
 * n+2 only once the callback of chunk n said the socket is done with its memory. So a body read
 * through two reused buffers is sent without copies, at most two chunks are in flight whatever the
 * client's speed (backpressure: memory does not grow with the body), and the disk read of one
 * chunk overlaps the socket write of the one before. Works as well for chunks that are not borrowed.
 *
 * `first` is the result of the first `next()`, which the caller made before committing to the
 * response (so a body that fails at once is answered with an error status instead).
 *
 * Rejects, and closes the body (`return()`, not awaited: a stalled read must not hold this up),
 * when the client goes away (an Error with code ERR_STREAM_PREMATURE_CLOSE), when the body fails
 * (its own error), or when it yields more or fewer bytes than `expectedBytes` (the Content-Length
 * already sent). The caller then destroys the response: a client must never take a truncated body
 * for a whole one.
 * @param expectedBytes the body's length in bytes as announced, or undefined when none was (chunked encoding)
 */
export async function sendBody(
  res: ServerResponse,
  chunks: AsyncIterator<Uint8Array>,
  first: IteratorResult<Uint8Array>,
  expectedBytes?: number,
): Promise<void> {
  // One `close` listener for the whole body, failing whichever wait is current (as meteredBody
  // does: racing every wait against one long-lived promise would pile up reactions on it).
  let gone: Error | undefined;
  let failCurrentWait: ((reason: unknown) => void) | undefined;
  const onClose = () => {
    if (res.writableFinished) return;
    gone = clientGone();
    failCurrentWait?.(gone);
  };
  res.on('close', onClose);
  const wait = <T>(promise: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      promise.then(resolve, reject);
      if (gone) reject(gone);
      else failCurrentWait = reject;
    });

  let sent = 0;
  let ended = false;
  /** Settles once the socket is done with the chunk before the current one. */
  let previousReleased: Promise<void> | undefined;
  try {
    if (res.destroyed) throw clientGone();
    for (let result = first; !result.done;) {
      const chunk = result.value;
      sent += chunk.length;
      if (expectedBytes !== undefined && sent > expectedBytes) throw lengthMismatch(expectedBytes, 'more');
      const released = chunk.length > 0 ? written(res, chunk) : Promise.resolve();
      if (previousReleased) await wait(previousReleased);
      previousReleased = released;
      result = await wait(chunks.next());
    }
    if (previousReleased) await wait(previousReleased);
    if (expectedBytes !== undefined && sent !== expectedBytes) throw lengthMismatch(expectedBytes, 'fewer');
    ended = true;
    res.end();
  } finally {
    failCurrentWait = undefined;
    res.off('close', onClose);
    if (!ended) Promise.resolve(chunks.return?.()).catch(() => undefined);
  }
}

/** Writes one chunk; settles when the socket has taken it (after that its memory may be reused). */
function written(res: ServerResponse, chunk: Uint8Array): Promise<void> {
  const promise = new Promise<void>((resolve, reject) => {
    res.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
  // Awaited one chunk later; a failure meanwhile must not count as unhandled.
  promise.catch(() => undefined);
  return promise;
}

/** The client closed the connection before the whole body was sent (not logged: streamErrorHandler). */
function clientGone(): Error {
  return Object.assign(new Error('The client went away before the whole body was sent.'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

function lengthMismatch(expectedBytes: number, what: 'more' | 'fewer'): Error {
  return new Error(`The stored body has ${what} bytes than the ${expectedBytes} announced (its record's size).`);
}
