import type { AccountDirectory, AccountSearch, AccountSummary } from '../../../core/admin/account-directory.js';
import type { User } from '../../../core/accounts/user.js';
import type { Paged } from '../../../core/shared/pagination.js';
import { copyDate, copyNullableDate } from './copy-date.js';
import type { MemoryDatabase } from './memory-database.js';

/** {@link AccountDirectory} over a {@link MemoryDatabase}: the same answers as the SQL adapter. */
export class MemoryAccountDirectory implements AccountDirectory {
  constructor(private readonly db: MemoryDatabase) {}

  async search(search: AccountSearch): Promise<Paged<AccountSummary>> {
    const query = search.query?.trim().toLowerCase();
    const matching = [...this.db.users.values()]
      .filter((user) => !query || user.email.includes(query))
      .filter((user) => search.status !== 'active' || user.suspendedAt === null)
      .filter((user) => search.status !== 'suspended' || user.suspendedAt !== null)
      .filter((user) => search.status !== 'unconfirmed' || user.emailConfirmedAt === null)
      .filter((user) => search.plan === undefined || user.planName === search.plan)
      .filter((user) => search.role === undefined || user.role === search.role)
      .map((user) => this.summaryOf(user));
    const descending = search.sort.startsWith('-');
    const key = descending ? search.sort.slice(1) : search.sort;
    const value = (s: AccountSummary): number | string =>
      key === 'email'
        ? s.user.email
        : key === 'storage'
          ? s.storageBytes
          : key === 'files'
            ? s.filesCount
            : key === 'last_seen'
              ? (s.lastSeenAt?.getTime() ?? 0)
              : s.user.createdAt.getTime();
    matching.sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      const order = x < y ? -1 : x > y ? 1 : a.user.id < b.user.id ? -1 : a.user.id > b.user.id ? 1 : 0;
      return descending ? -order : order;
    });
    const { offset, limit } = search.window;
    return { items: matching.slice(offset, offset + limit), total: matching.length };
  }

  async summary(userId: string): Promise<AccountSummary | undefined> {
    const user = this.db.users.get(userId);
    return user && this.summaryOf(user);
  }

  private summaryOf(user: User): AccountSummary {
    const totals = this.db.accountTotals.get(user.id);
    let lastSeen = 0;
    for (const session of this.db.sessions.values()) if (session.userId === user.id) lastSeen = Math.max(lastSeen, session.lastUsedAt.getTime());
    const totp = this.db.totpFactors.get(user.id);
    const passkey = [...this.db.passkeys.values()].some((p) => p.userId === user.id);
    return {
      user: {
        ...user,
        emailConfirmedAt: copyNullableDate(user.emailConfirmedAt),
        lastEmailSentAt: copyNullableDate(user.lastEmailSentAt),
        lastResetEmailSentAt: copyNullableDate(user.lastResetEmailSentAt),
        trialEndsAt: copyNullableDate(user.trialEndsAt),
        accessUntil: copyNullableDate(user.accessUntil),
        subscriptionCanceledAt: copyNullableDate(user.subscriptionCanceledAt),
        suspendedAt: copyNullableDate(user.suspendedAt),
        createdAt: copyDate(user.createdAt),
        updatedAt: copyDate(user.updatedAt),
      },
      storageBytes: totals?.storageBytes ?? 0,
      filesCount: totals?.filesCount ?? 0,
      lastSeenAt: lastSeen === 0 ? null : new Date(lastSeen),
      mfaEnabled: (totp !== undefined && totp.confirmedAt !== null) || passkey,
    };
  }
}
