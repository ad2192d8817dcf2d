import type { Role, User } from '../accounts/user.js';
import type { Paged, Window } from '../shared/pagination.js';

/** Which accounts a search keeps by status: `active` (not suspended), `suspended`, `unconfirmed` (address not confirmed). */
export const ACCOUNT_STATUS_FILTERS = ['active', 'suspended', 'unconfirmed'] as const;
/** One of {@link ACCOUNT_STATUS_FILTERS}. */
export type AccountStatusFilter = (typeof ACCOUNT_STATUS_FILTERS)[number];

/**
 * Orders of an account search: by creation, e-mail, storage used, file count or last use; `-` in
 * front for descending. Ties go by account id, so pages never overlap.
 */
export const ACCOUNT_SORTS = ['created', '-created', 'email', '-email', 'storage', '-storage', 'files', '-files', 'last_seen', '-last_seen'] as const;
/** One of {@link ACCOUNT_SORTS}. */
export type AccountSort = (typeof ACCOUNT_SORTS)[number];

/** An account as the administrators' list shows it: counts only, never a file (docs/admin.md). */
export interface AccountSummary {
  user: User;
  /** Bytes stored (the account's totals). */
  storageBytes: number;
  filesCount: number;
  /** The last use of any of its sessions; null when it never signed in. */
  lastSeenAt: Date | null;
  /** Whether a second factor is on: a confirmed TOTP factor or at least one passkey. */
  mfaEnabled: boolean;
}

/** What {@link AccountDirectory.search} keeps and how it orders them. */
export interface AccountSearch {
  /** Part of the e-mail address (case-insensitive; `%` and `_` match themselves). */
  query?: string;
  status?: AccountStatusFilter;
  /** The plan name as stored on the account. */
  plan?: string;
  role?: Role;
  sort: AccountSort;
  window: Window;
}

/** Port: the accounts with their totals, for administrators (reads the accounts' totals, never the file records). */
export interface AccountDirectory {
  /** One page of the accounts matching `search`, in its order, and how many match in all. */
  search(search: AccountSearch): Promise<Paged<AccountSummary>>;
  /** One account's summary, or undefined when there is no such account. */
  summary(userId: string): Promise<AccountSummary | undefined>;
}
