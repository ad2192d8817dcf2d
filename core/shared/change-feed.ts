/**
 * What a committed change touched, as far as caches care: the rows that requests look up on their
 * path (an account, an API key, a session, a custom hostname, a file). `everything` means "changes
 * may have been missed or are not itemised": drop every cached answer.
 *
 * - `account`: the user row (plan, subscription, settings, password, confirmation).
 * - `api_key`: an API key, by the SHA-256 (hex) of its secret, the value lookups are keyed by.
 * - `session`: a session (logout, reuse, password reset end it).
 * - `hostname`: a custom domain of `accountId` set, changed (verified) or removed; `hostname` is the
 *   name it had before or after the change (a change of name is two of these).
 * - `file`: a file record updated or deleted (rename, visibility, delete).
 * - `plans`: a plan set by an administrator (`plan_overrides`): every process reloads the plans
 *   (SyncPlans); no cached lookup is keyed by it.
 */
export type Change =
  | { kind: 'account'; accountId: string }
  | { kind: 'api_key'; keyHash: string }
  | { kind: 'session'; sessionId: string }
  | { kind: 'hostname'; hostname: string; accountId: string }
  | { kind: 'file'; fileId: string }
  | { kind: 'plans' }
  | { kind: 'everything' };

/** Called with every change a {@link ChangeFeed} delivers; must not throw. */
export type ChangeListener = (change: Change) => void;

/**
 * Port: the changes committed by every process sharing the database (this one included), for the
 * caches each process keeps (HostnameDirectory, the repositories' lookup caches), so that a change
 * made through one process is seen by every other one within 1 s (docs/scale-out.md).
 *
 * Adapters: in memory (one process, changes published by hand), SQLite (other connections' commits
 * seen through the WAL index, checked before each cached answer: delivered as `everything`), and
 * Postgres (`LISTEN`/`NOTIFY`, the notification sent by triggers in the transaction of the change,
 * itemised). When a feed cannot deliver (its connection is down) it delivers `everything` at once
 * and then again every fallback period, so caches never serve an answer older than that period,
 * and once more when it is back (what it missed while down).
 */
export interface ChangeFeed {
  /** Calls `listener` for every change delivered from now on; returns the function that stops it. */
  subscribe(listener: ChangeListener): () => void;
  /**
   * Call before answering from a cache. `undefined` when the listeners have been told of every
   * change this feed can know of now; otherwise a promise (never rejecting) that resolves once they
   * have. SQLite answers through it (one check of the WAL index per turn of the event loop);
   * Postgres delivers notifications as they arrive and returns `undefined`.
   */
  catchUp(): Promise<void> | undefined;
}

/**
 * A feed that never hears of other processes: for a core embedded in one process, whose own
 * changes are invalidated where they are made. Listeners are never called.
 */
export const NO_OTHER_PROCESSES: ChangeFeed = { subscribe: () => () => {}, catchUp: () => undefined };

/**
 * The cache tags a change invalidates (`<kind>:<key>`), for caches that index their entries by the
 * lookup key: `account:<id>`, `api_key:<hash>`, `session:<id>`, `hostname:<name>` and
 * `domain_of:<account id>` (a custom domain looked up by its account), `file:<file id>`.
 * `plans` has none (no lookup is keyed by a plan); `everything` has none either: it drops every entry.
 */
export function changeTags(change: Change): string[] {
  switch (change.kind) {
    case 'account':
      return [`account:${change.accountId}`];
    case 'api_key':
      return [`api_key:${change.keyHash}`];
    case 'session':
      return [`session:${change.sessionId}`];
    case 'hostname':
      return [`hostname:${change.hostname}`, `domain_of:${change.accountId}`];
    case 'file':
      return [`file:${change.fileId}`];
    case 'plans':
    case 'everything':
      return [];
  }
}
