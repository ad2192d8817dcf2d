import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { ActivityLogEntry, ActivityLogRepository } from './activity-log.js';

/** The account's activity log, newest first (spec 4.16). Page bounds are checked at the edge. */
export class ListLogs {
  constructor(private readonly deps: { logs: ActivityLogRepository }) {}

  execute(input: { userId: string } & PageRequest): Promise<Paged<ActivityLogEntry>> {
    return this.deps.logs.list({ userId: input.userId, window: toWindow(input) });
  }
}
