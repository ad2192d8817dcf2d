import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import { FlushQueue } from '../shared/flush-queue.js';
import { billingPeriodAt, utcDay } from './billing-period.js';
import type { PeriodCounts, UsageRepository } from './usage-repository.js';

/** Reads of the stored counts {@link UsageMeter.countsFor} makes at most while writes keep overlapping them. */
const STORED_READ_ATTEMPTS = 5;

/** Counts of one account on one UTC day, not yet written. */
type Bucket = { userId: string; day: number } & PeriodCounts;

/**
 * Counts reads (and image operations) in memory and writes them in batches, so counting adds no
 * database write to a request. `record*` is synchronous and O(1); the host calls {@link flush} (HangarRuntime does)
 * every few seconds and at shutdown. Counts are bucketed by account and UTC day, and mapped to
 * billing periods at flush time (periods begin at midnight UTC, so a day never straddles two).
 * A failed flush puts its counts back, so nothing is lost while the process lives.
 * Several processes each keep their own buffer and add into the same rows.
 */
export class UsageMeter {
  private pending = new Map<string, Bucket>();
  /** The batch being written: still counted by {@link pendingFor} until the write succeeds. */
  private inFlight: Bucket[] = [];
  private readonly flushes = new FlushQueue(async () => {
    if (this.pending.size > 0) await this.write();
  });

  constructor(private readonly deps: { usage: UsageRepository; users: UserRepository; clock: Clock }) {}

  /** Counts one read of a file of `userId` now. */
  recordRead(userId: string): void {
    this.bucket(userId).originReads += 1;
  }

  /** Counts one image transformation for `userId` now. */
  recordImageOp(userId: string): void {
    this.bucket(userId).imageOps += 1;
  }

  /** Counts recorded but not yet written, for one account (so a reader sees its own reads at once). */
  pendingFor(userId: string, period: { start: Date; end: Date }): PeriodCounts {
    const counts = { originReads: 0, imageOps: 0 };
    for (const entry of [...this.pending.values(), ...this.inFlight]) {
      if (entry.userId === userId && entry.day >= period.start.getTime() && entry.day < period.end.getTime()) {
        counts.originReads += entry.originReads;
        counts.imageOps += entry.imageOps;
      }
    }
    return counts;
  }

  /**
   * The account's counts in `period`: the stored ones (`readStored`) plus {@link pendingFor}, each
   * batch counted once. A batch stays in the pending counts until its write has ended, while the
   * database may show it as soon as the write commits; so the stored counts are read when no write
   * overlaps the read (FlushQueue.readBetweenWrites: it waits for a running write, and reads again,
   * up to {@link STORED_READ_ATTEMPTS} times, when one started meanwhile). `use` gets the counts in
   * the same synchronous step as the pending ones are read (nothing is recorded in between), and its
   * result is returned.
   * @throws what `readStored` or `use` throws
   */
  async countsFor<T>(
    userId: string,
    period: { start: Date; end: Date },
    readStored: () => Promise<PeriodCounts>,
    use: (counts: PeriodCounts) => T,
  ): Promise<T> {
    const stored = await this.flushes.readBetweenWrites(readStored, STORED_READ_ATTEMPTS);
    const pending = this.pendingFor(userId, period);
    return use({ originReads: stored.originReads + pending.originReads, imageOps: stored.imageOps + pending.imageOps });
  }

  /**
   * Writes what is recorded when the write starts, in one batch (see FlushQueue: counts recorded
   * meanwhile wait for the next flush). @throws the repository's error (counts are kept)
   */
  flush(): Promise<void> {
    return this.flushes.flush();
  }

  private bucket(userId: string): Bucket {
    const day = utcDay(this.deps.clock.now());
    const key = `${userId} ${day}`;
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { userId, day, originReads: 0, imageOps: 0 };
      this.pending.set(key, entry);
    }
    return entry;
  }

  private async write(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.inFlight = batch;
    try {
      const created = new Map<string, Date | undefined>();
      for (const { userId } of batch) {
        if (!created.has(userId)) created.set(userId, (await this.deps.users.findById(userId))?.createdAt);
      }
      const entries = batch.flatMap((entry) => {
        const createdAt = created.get(entry.userId);
        if (!createdAt) return [];
        const periodStart = billingPeriodAt(createdAt, new Date(entry.day)).start;
        return [{ userId: entry.userId, periodStart, originReads: entry.originReads, imageOps: entry.imageOps }];
      });
      await this.deps.usage.add(entries);
      this.inFlight = [];
    } catch (error) {
      this.inFlight = [];
      for (const entry of batch) {
        const key = `${entry.userId} ${entry.day}`;
        const current = this.pending.get(key);
        if (current) {
          current.originReads += entry.originReads;
          current.imageOps += entry.imageOps;
        } else {
          this.pending.set(key, entry);
        }
      }
      throw error;
    }
  }
}
