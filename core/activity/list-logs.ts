import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { ActivityLogEntry, ActivityLogRepository } from './activity-log.js';

/** The account's activity log, newest first (spec 4.16).
 *  @throws DomainError VALIDATION_FAILED (400) when `page` or `limit` is out of bounds ({@link toWindow}) */
export class ListLogs {
  constructor(private readonly deps: { logs: ActivityLogRepository }) {}

  async execute(input: { userId: string } & PageRequest): Promise<Paged<ActivityLogEntry>> {
    return this.deps.logs.list({ userId: input.userId, window: toWindow(input) });
  }
}
