import type { Clock } from '../shared/clock.js';
import { DAY_MS } from '../shared/time.js';
import type { AdminAuditLog } from './admin-audit-log.js';

/** Deletes audit entries older than the retention (`ADMIN_AUDIT_RETENTION_DAYS`, default 365 days). */
export class PruneAdminAudit {
  constructor(private readonly deps: { audit: AdminAuditLog; clock: Clock; retentionDays: number }) {}

  /** @returns how many entries were deleted */
  execute(): Promise<number> {
    return this.deps.audit.deleteBefore(new Date(this.deps.clock.now().getTime() - this.deps.retentionDays * DAY_MS));
  }
}
