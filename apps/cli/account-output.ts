import type { AdminAccountView } from '../../core/admin/account-report.js';
import type { Paged } from '../../core/shared/pagination.js';
import { accountJson as presentAccount } from '../http/presenters/presenters.js';

// Admin views → what the CLI prints. JSON is snake_case with ISO 8601 UTC timestamps, like the API.

/**
 * One account as `users show` prints it: the API's presentation of an account (`accountJson` in
 * apps/http/presenters/presenters.ts, the one `GET /profile` shows) with the user's fields at the top level,
 * and the account's totals:
 * `{ id, email, created_at, email_confirmed_at,
 *    plan: { name, trial_ends_at, trial_active, storage_limit_bytes, file_count_limit, max_upload_size_bytes, image_ops_limit },
 *    subscription: { status, subscription_canceled_at, access_until }, upload_limit_bytes,
 *    totals: { storage_bytes, files_count } }`; timestamps ISO 8601 or null, sizes in bytes.
 */
export function accountJson(view: AdminAccountView) {
  const { user, ...account } = presentAccount(view);
  return { ...user, ...account, totals: { storage_bytes: view.totals.storageBytes, files_count: view.totals.filesCount } };
}

/** A page of accounts as `users list --json` prints it: `{ items: accountJson[], total, page, limit }`. */
export function accountPageJson(page: Paged<AdminAccountView>, request: { page: number; limit: number }) {
  return { items: page.items.map(accountJson), total: page.total, page: request.page, limit: request.limit };
}

const COLUMNS = ['EMAIL', 'PLAN', 'STATUS', 'CONFIRMED', 'FILES', 'STORAGE_BYTES', 'CREATED_AT'] as const;
/** Counts read best right-aligned. */
const RIGHT_ALIGNED = new Set<string>(['FILES', 'STORAGE_BYTES']);

/**
 * A page of accounts as `users list` prints it: a header, one row per account (e-mail, plan,
 * subscription status, confirmed yes/no, files, storage bytes, created_at) and a line with the
 * position in the whole list. Ends without a newline.
 */
export function accountTable(page: Paged<AdminAccountView>, request: { page: number; limit: number }): string {
  const first = (request.page - 1) * request.limit + 1;
  if (page.items.length === 0) {
    return page.total === 0 ? 'No accounts.' : `No accounts on page ${request.page} (${plural(page.total, 'account')} in all).`;
  }
  const rows = page.items.map(({ user, standing, totals }) => [
    user.email,
    standing.plan.name,
    standing.status,
    user.emailConfirmedAt === null ? 'no' : 'yes',
    String(totals.filesCount),
    String(totals.storageBytes),
    user.createdAt.toISOString(),
  ]);
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (RIGHT_ALIGNED.has(COLUMNS[i]) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const last = first + page.items.length - 1;
  return [line(COLUMNS), ...rows.map(line), '', `${first}-${last} of ${plural(page.total, 'account')} (page ${request.page}, limit ${request.limit}).`].join(
    '\n',
  );
}

/** `1 file`, `3 files`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
