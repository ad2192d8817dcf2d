import { DomainError } from '../../core/shared/errors.js';

/** File-system errors that mean "no space left" (the disk, or the user's quota): 507, not 503. */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/**
 * The one error callers of the local stores (files, small blobs) see for a failure of the file
 * system or the small blobs' database; the cause (with paths) stays for the logs only.
 * STORAGE_FULL (507) when the disk or quota is full, else BLOB_STORE_UNAVAILABLE (503).
 * A DomainError passes through as it is.
 * @param action what failed, completing "The blob store could not …"
 */
export function unavailable(action: string, cause: unknown): DomainError {
  if (cause instanceof DomainError) return cause;
  const code = (cause as { code?: unknown } | undefined)?.code;
  const full = typeof code === 'string' && NO_SPACE.has(code);
  const error = full
    ? new DomainError('STORAGE_FULL', 'The blob store has no space left; nothing was stored. Try again later.')
    : new DomainError('BLOB_STORE_UNAVAILABLE', `The blob store could not ${action}.`);
  error.cause = cause;
  return error;
}

/** The errors made by {@link alreadyExists} (a caller bug, passed on as they are, never as BLOB_STORE_UNAVAILABLE). */
const ALREADY_EXISTS = new WeakSet<Error>();

/** The Error of a put under a taken key (blobs are never replaced): a bug in the caller, whose keys are fresh. */
export function alreadyExists(key: string): Error {
  const error = new Error(`A blob already exists under ${key}; blobs are never replaced (the caller must use a fresh key).`);
  ALREADY_EXISTS.add(error);
  return error;
}

/** Whether `error` was made by {@link alreadyExists}. */
export function isAlreadyExists(error: unknown): boolean {
  return error instanceof Error && ALREADY_EXISTS.has(error);
}

/** Whether `error` carries the system error code `code` (`ENOENT`…). */
export function hasCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
