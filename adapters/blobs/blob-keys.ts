/** A whole key: segments of what `core/files/blob-store.ts` allows between slashes, joined by single slashes. */
const KEY = /^[0-9A-Za-z_-]+(?:\/[0-9A-Za-z_-]+)*$/;

/**
 * Checks a blob key: [0-9A-Za-z_-] segments joined by `/`, none empty (so no leading, trailing or
 * doubled slash, no `.` or `..`). A bad key is a bug in the caller, never user input, hence a plain Error.
 * @throws Error when `key` is not a valid blob key
 */
export function assertBlobKey(key: string): void {
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new Error(`Invalid blob key ${JSON.stringify(key)}: expected [0-9A-Za-z_-] segments joined by '/'.`);
  }
}

/**
 * Checks a `maxBytes` limit: a non-negative safe integer (bytes).
 * @throws Error otherwise (a bug in the caller)
 */
export function assertMaxBytes(maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new Error(`Invalid maxBytes ${String(maxBytes)}: expected a non-negative integer number of bytes.`);
  }
}

/**
 * Checks the parent key of {@link BlobStore.deleteUnder}: a valid key of at least two segments.
 * @throws Error otherwise (a bug in the caller)
 */
export function assertParentKey(key: string): void {
  assertBlobKey(key);
  if (key.split('/').length < 2) throw new Error(`Invalid parent key ${JSON.stringify(key)}: expected at least two segments.`);
}

/** Whether `key` is a valid blob key (the rules of {@link assertBlobKey}), for names found in a listing. */
export function isBlobKey(key: string): boolean {
  try {
    assertBlobKey(key);
    return true;
  } catch {
    return false;
  }
}
