import type { AccountStanding } from '../plans/account-standing.js';
import type { AccountPolicy } from '../plans/account-policy.js';
import type { GetUsage, Usage } from '../plans/get-usage.js';
import type { AccountDirectory, AccountSummary } from './account-directory.js';
import type { AdminAuditEntry } from './admin-audit.js';
import type { AdminAuditLog } from './admin-audit-log.js';
import type { AccountDeletion, AccountDeletionQueue } from './account-deletion-queue.js';
import { type AccountRef, accountOf, noAccountWithId, whileAccountExists } from './admin-target.js';
import type { UserRepository } from '../accounts/user-repository.js';

/** How many recent administrator actions {@link GetAccountDetails} lists. */
export const RECENT_ADMIN_ACTIONS = 20;

/** One account as an administrator's page shows it: its summary, standing, usage of the period and the recent administrator actions on it. */
export interface AccountDetails {
  summary: AccountSummary;
  standing: AccountStanding;
  /** The account's effective upload limit in bytes. */
  uploadLimitBytes: number;
  usage: Usage;
  recentActions: AdminAuditEntry[];
  /** The background deletion of the account in progress (`DELETE /admin/users/:id`), if any. */
  deletion: AccountDeletion | undefined;
}

/**
 * One account for administrators (`GET /admin/users/:id`, `users show`): counts only, never a file.
 * @throws DomainError USER_NOT_FOUND (404), also when a background deletion removes the account while it is read
 */
export class GetAccountDetails {
  constructor(
    private readonly deps: {
      users: UserRepository;
      directory: AccountDirectory;
      accounts: AccountPolicy;
      usage: GetUsage;
      audit: AdminAuditLog;
      deletions: AccountDeletionQueue;
    },
  ) {}

  async execute(input: { account: AccountRef }): Promise<AccountDetails> {
    const user = await accountOf(this.deps.users, input.account);
    const [summary, view, usage, recent, deletion] = await whileAccountExists(
      Promise.all([
        this.deps.directory.summary(user.id),
        this.deps.accounts.view(user.id),
        this.deps.usage.execute({ userId: user.id }),
        this.deps.audit.list({ targetId: user.id, window: { offset: 0, limit: RECENT_ADMIN_ACTIONS } }),
        this.deps.deletions.find(user.id),
      ]),
    );
    if (!summary) throw noAccountWithId();
    return { summary, standing: view.standing, uploadLimitBytes: view.uploadLimitBytes, usage, recentActions: recent.items, deletion };
  }
}
