/** One logged API request of an account (spec 2.7). */
export interface ActivityLogEntry {
  /** UUID. */
  id: string;
  userId: string;
  /** HTTP method. */
  method: string;
  /** Request path, without the query string (so no secret in a query is ever stored). */
  path: string;
  statusCode: number;
  /** Request body size in bytes (Content-Length, or bytes received); null when unknown. */
  requestSizeBytes: number | null;
  createdAt: Date;
  /**
   * `auth` (`jwt` | `api_key`), `api_key_id` when a key was used, `file_id` where one applies,
   * `duration_ms`, `user_agent`, `ip`. Never a credential.
   */
  metadata: Record<string, unknown>;
}

/**
 * Which entries a list holds: `all`; `actions`, the requests that change something or sign in (every
 * method but GET, HEAD and OPTIONS: uploads, deletes, keys, settings, sign-ins); `reads`, the others.
 */
export type ActivityKind = 'all' | 'actions' | 'reads';

/** The methods of `reads` entries; every other method is an action. */
export const READ_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

/** A position in the newest-first order: the entries strictly older than this one (created_at, then id). */
export interface ActivityPosition {
  createdAt: Date;
  id: string;
}
