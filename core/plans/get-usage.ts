import type { FileRepository } from '../files/file-repository.js';
import type { Clock } from '../shared/clock.js';
import type { AccountPolicy } from './account-policy.js';
import { billingPeriodAt } from './billing-period.js';
import type { UsageMeter } from './usage-meter.js';
import type { UsageRepository } from './usage-repository.js';

/** Usage of the current billing period (spec 2.6). */
export interface Usage {
  /** Bytes stored now. */
  storageBytes: number;
  /** Files held now. */
  filesCount: number;
  /** Reads of the account's files by the content server in the period. */
  originReads: number;
  /** Image transformations in the period. */
  imageOps: number;
  periodStart: Date;
  periodEnd: Date;
}

/**
 * The account's usage (spec 4.15): current totals, and the period's counters as written plus what
 * this process has recorded but not yet written. The period is monthly, anchored on the creation day.
 * @throws DomainError UNAUTHORIZED when the account is gone
 */
export class GetUsage {
  constructor(private readonly deps: { accounts: AccountPolicy; files: FileRepository; usage: UsageRepository; meter: UsageMeter; clock: Clock }) {}

  async execute(input: { userId: string }): Promise<Usage> {
    const { user } = await this.deps.accounts.view(input.userId);
    const period = billingPeriodAt(user.createdAt, this.deps.clock.now());
    const [totals, counts] = await Promise.all([
      this.deps.files.totals(input.userId),
      this.deps.meter.countsFor(
        input.userId,
        period,
        () => this.deps.usage.get({ userId: input.userId, periodStart: period.start }),
        (counts) => counts,
      ),
    ]);
    return {
      storageBytes: totals.storageBytes,
      filesCount: totals.filesCount,
      originReads: counts.originReads,
      imageOps: counts.imageOps,
      periodStart: period.start,
      periodEnd: period.end,
    };
  }
}
