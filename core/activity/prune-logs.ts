import type { Clock } from '../shared/clock.js';
import { DAY_MS } from '../shared/time.js';
import type { ActivityLogRepository } from './activity-log-repository.js';

/** Deletes activity log entries older than the retention (`LOG_RETENTION_DAYS`, default 30 days). */
export class PruneLogs {
  constructor(private readonly deps: { logs: ActivityLogRepository; clock: Clock; retentionDays: number }) {}

  /** @returns how many entries were deleted */
  execute(): Promise<number> {
    return this.deps.logs.deleteBefore(new Date(this.deps.clock.now().getTime() - this.deps.retentionDays * DAY_MS));
  }
}

/** Default of `LOG_RETENTION_DAYS`. */
export const DEFAULT_LOG_RETENTION_DAYS = 30;
