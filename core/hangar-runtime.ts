import type { Hangar } from './hangar.js';
import { isDomainError } from './shared/errors.js';
import { type Logger, SILENT_LOGGER } from './shared/logger.js';
import { PLAN_SYNC_INTERVAL_MS } from './plans/plan-overrides.js';
import { clearRepeatingTimer, clearTimer, setRepeatingTimer, setTimer, type TimerHandle } from './shared/web-globals.js';

/** Options of {@link HangarRuntime}; every interval is in milliseconds. */
export interface HangarRuntimeOptions {
  /** How often buffered usage counts, read counts and activity log entries are written; default 2 000. */
  flushIntervalMs?: number;
  /**
   * Runs the maintenance: pruning old activity log entries and purging spent credentials at start
   * and every `maintenanceIntervalMs`, deleting expired files every `expirySweepIntervalMs`, and
   * catching up media facts every `mediaCatchUpIntervalMs`. Default true. Of several processes
   * sharing one database, one is enough (the others: false).
   */
  maintenance?: boolean;
  /** Default 3 600 000 (an hour). */
  maintenanceIntervalMs?: number;
  /** How often the plans administrators set are checked whatever the change feed says (docs/admin.md); default PLAN_SYNC_INTERVAL_MS (1 000). */
  planSyncIntervalMs?: number;
  /** How often expired files are looked for (docs/private-files.md); default 30 000. */
  expirySweepIntervalMs?: number;
  /**
   * How often a small batch of files left without media facts is probed (CatchUpMediaFacts,
   * docs/media.md); default MEDIA_CATCH_UP_INTERVAL_MS (60 000). With maintenance only.
   */
  mediaCatchUpIntervalMs?: number;
  /**
   * How often this process looks for background account deletions no process holds (their process
   * stopped or died) and resumes them (docs/admin.md); default ACCOUNT_DELETION_SWEEP_MS (5 000).
   * Every process does, maintenance or not: a lease makes each deletion run on one at a time.
   */
  accountDeletionSweepMs?: number;
  /**
   * Where failures of the background work go (default: nowhere). An outage (a DomainError such as
   * DATABASE_UNAVAILABLE) is a `warn` entry `background_work_deferred` (the buffers keep what
   * failed and the next run retries it); anything else an `error` entry `internal_error`. Both carry
   * `work`: `flush`, `sync-plans`, `resume-account-deletions`, `prune-logs`, `prune-admin-audit`,
   * `purge-credentials`, `expire-files`, `expire-resumable-uploads`, `expire-upload-urls` or
   * `catch-up-media-facts`.
   */
  logger?: Logger;
}

/**
 * How often the change feed is asked to catch up for the plans, in ms (SyncPlans.catchUp): a
 * SQLite feed then reports another process's commit within this; Postgres's is told, so asking is free (decision 0022).
 */
export const PLAN_CATCH_UP_MS = 200;
/**
 * Least time between the starts of two plan checks set off by the change feed, in ms: on SQLite
 * every commit is a change that may concern the plans, and a busy server commits thousands a second.
 */
export const PLAN_SYNC_SPACING_MS = 50;
/** Default of {@link HangarRuntimeOptions.accountDeletionSweepMs}. */
export const ACCOUNT_DELETION_SWEEP_MS = 5_000;
/** Default of {@link HangarRuntimeOptions.mediaCatchUpIntervalMs}: with 20 files a run, at most 28,800 files a day, one probe at a time. */
export const MEDIA_CATCH_UP_INTERVAL_MS = 60_000;

/** The parts of {@link Hangar} whose work runs in the background. */
export type BackgroundHangar = Pick<
  Hangar,
  | 'usageMeter'
  | 'fileReadCounts'
  | 'activity'
  | 'mediaFactsQueue'
  | 'catchUpMediaFacts'
  | 'syncPlans'
  | 'pruneLogs'
  | 'pruneAdminAudit'
  | 'purgeCredentials'
  | 'expireFiles'
  | 'expireResumableUploads'
  | 'expireUploadUrls'
  | 'requestPasswordReset'
  | 'resendConfirmation'
  | 'removeAccount'
>;

/**
 * The background work of a running core, started and stopped in one place: the periodic flushes
 * of the buffered counters and log entries, the maintenance (log pruning, credential purge,
 * expired files, media facts left missing), and at stop the last flush and the e-mails still being prepared. A host calls
 * {@link start} once the core is built and awaits {@link stop} before it closes the ports (the
 * database). Timers do not keep a Node.js process alive by themselves. Never throws from a timer:
 * failures go to the logger.
 */
export class HangarRuntime {
  private readonly timers: TimerHandle[] = [];
  private sweeping: Promise<unknown> | undefined;
  private maintaining: Promise<void> | undefined;
  private catchingUp: Promise<void> | undefined;
  private syncing: Promise<void> | undefined;
  /** A change arrived while a check ran: check once more after it (the running one may have read before the commit). */
  private syncAgain = false;
  private lastSyncStart = Number.NEGATIVE_INFINITY;
  private syncTimer?: TimerHandle;
  private stopWatching: (() => void) | undefined;
  private started = false;
  /** Aborted by {@link stop}: a media catch-up in flight ends after its current file. */
  private readonly stopping = { aborted: false };
  private readonly logger: Logger;

  constructor(
    private readonly hangar: BackgroundHangar,
    private readonly options: HangarRuntimeOptions = {},
  ) {
    this.logger = options.logger ?? SILENT_LOGGER;
  }

  /**
   * Starts the timers; with maintenance, also prunes and purges once now (not awaited).
   * @throws Error when already started
   */
  start(): void {
    if (this.started) throw new Error('HangarRuntime already started.');
    this.started = true;
    this.stopping.aborted = false;
    this.timers.push(setRepeatingTimer(() => void this.flush(), this.options.flushIntervalMs ?? 2_000));
    // Plans set by administrators through any process (docs/admin.md): checked when the change feed
    // reports a change that may concern them (within PLAN_CATCH_UP_MS on SQLite, a few ms on
    // Postgres), and every second besides.
    this.stopWatching = this.hangar.syncPlans.watch(() => this.plansMayHaveChanged());
    this.timers.push(setRepeatingTimer(() => void this.hangar.syncPlans.catchUp(), PLAN_CATCH_UP_MS));
    this.timers.push(setRepeatingTimer(() => void this.syncPlans(), this.options.planSyncIntervalMs ?? PLAN_SYNC_INTERVAL_MS));
    void this.syncPlans();
    this.timers.push(setRepeatingTimer(() => void this.resumeDeletions(), this.options.accountDeletionSweepMs ?? ACCOUNT_DELETION_SWEEP_MS));
    void this.resumeDeletions();
    if (this.options.maintenance ?? true) {
      this.timers.push(setRepeatingTimer(() => void this.maintain(), this.options.maintenanceIntervalMs ?? 60 * 60 * 1000));
      this.timers.push(setRepeatingTimer(() => void this.sweepExpired(), this.options.expirySweepIntervalMs ?? 30_000));
      if (this.hangar.catchUpMediaFacts)
        this.timers.push(setRepeatingTimer(() => void this.catchUpMediaFacts(), this.options.mediaCatchUpIntervalMs ?? MEDIA_CATCH_UP_INTERVAL_MS));
      void this.maintain();
    }
  }

  /**
   * Stops the timers, waits for the media probes running (those waiting are dropped: the catch-up finds them), the maintenance, expiry sweep and media catch-up in flight, writes what the buffers hold, and waits
   * for the e-mails use cases are still preparing (password reset, confirmation) to be handed to
   * the mailer. Never rejects. After it, the host may close the database.
   */
  async stop(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearRepeatingTimer(timer);
    this.stopWatching?.();
    this.stopWatching = undefined;
    clearTimer(this.syncTimer);
    this.syncTimer = undefined;
    this.started = false;
    this.stopping.aborted = true;
    // Background account deletions stop between two steps and release their leases (another
    // process, or this one's next start, resumes them).
    await this.hangar.removeAccount.stop();
    // Probes still waiting are left to the catch-up (docs/media.md); those running finish first.
    await this.hangar.mediaFactsQueue?.stop();
    await Promise.all([this.sweeping, this.maintaining, this.syncing, this.catchingUp]);
    // Each flush writes what was buffered when it started (FlushQueue): the second takes what a
    // response finishing during the first recorded.
    await this.flush();
    await this.flush();
    await this.hangar.requestPasswordReset.settled();
    await this.hangar.resendConfirmation.settled();
  }

  /** Writes the buffered usage counts, read counts and activity log entries now. Never rejects. */
  flush(): Promise<void> {
    return this.run('flush', () => Promise.all([this.hangar.usageMeter.flush(), this.hangar.fileReadCounts.flush(), this.hangar.activity.flush()]));
  }

  /**
   * Loads the plans administrators set when they changed; one check at a time, and a call during
   * one makes it check once more after (it may have read before the change). Never rejects.
   */
  syncPlans(): Promise<void> {
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      do {
        this.syncAgain = false;
        this.lastSyncStart = Date.now();
        await this.run('sync-plans', () => this.hangar.syncPlans.execute());
      } while (this.syncAgain);
    })().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  /** A change that may concern the plans: one check within PLAN_SYNC_SPACING_MS of the last start, however many changes arrive. */
  private plansMayHaveChanged(): void {
    if (this.syncTimer !== undefined || !this.started) return;
    const wait = Math.max(0, this.lastSyncStart + PLAN_SYNC_SPACING_MS - Date.now());
    this.syncTimer = setTimer(() => {
      this.syncTimer = undefined;
      void this.syncPlans();
    }, wait);
  }

  /** Takes the background account deletions no process holds and resumes them here. Never rejects. */
  resumeDeletions(): Promise<void> {
    return this.run('resume-account-deletions', () => this.hangar.removeAccount.resumePending());
  }

  /**
   * Prunes old activity log entries and purges spent credentials now, one task after the other (a
   * background chore: it holds one database connection at a time, not three while the service
   * starts); one run at a time (a call during one joins it). Never rejects.
   */
  maintain(): Promise<void> {
    this.maintaining ??= (async () => {
      await this.run('prune-logs', () => this.hangar.pruneLogs.execute());
      await this.run('prune-admin-audit', () => this.hangar.pruneAdminAudit.execute());
      await this.run('purge-credentials', () => this.hangar.purgeCredentials.execute());
    })().then(() => {
      this.maintaining = undefined;
    });
    return this.maintaining;
  }

  /** Deletes the files whose expiry has passed; one sweep at a time (a call during one joins it). Never rejects. */
  sweepExpired(): Promise<unknown> {
    this.sweeping ??= Promise.all([
      this.run('expire-files', () => this.hangar.expireFiles.execute()),
      this.run('expire-resumable-uploads', () => this.hangar.expireResumableUploads.execute()),
      this.run('expire-upload-urls', () => this.hangar.expireUploadUrls.execute()),
    ]).finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /**
   * Probes a small batch of the files left without media facts (CatchUpMediaFacts); one run at a
   * time (a call during one joins it); nothing without a media prober. Never rejects.
   */
  catchUpMediaFacts(): Promise<void> {
    const catchUp = this.hangar.catchUpMediaFacts;
    if (!catchUp) return Promise.resolve();
    this.catchingUp ??= this.run('catch-up-media-facts', () => catchUp.execute({ signal: this.stopping })).finally(() => {
      this.catchingUp = undefined;
    });
    return this.catchingUp;
  }

  private async run(work: string, task: () => Promise<unknown>): Promise<void> {
    try {
      await task();
    } catch (error) {
      if (isDomainError(error)) this.logger.warn('background_work_deferred', { work, code: error.code, message: error.message });
      else this.logger.error('internal_error', { work, error: error instanceof Error ? error : String(error) });
    }
  }
}
