import type { Paged, Window } from '../shared/pagination.js';
import type { AdminAuditEntry } from './admin-audit.js';

/** Port: the audit log of administrator actions (docs/admin.md), kept `ADMIN_AUDIT_RETENTION_DAYS`. */
export interface AdminAuditLog {
  /** Stores one entry. */
  record(entry: AdminAuditEntry): Promise<void>;
  /** Entries newest first (created_at, then id, descending), all or those of one account (`targetId`). */
  list(options: { window: Window; targetId?: string }): Promise<Paged<AdminAuditEntry>>;
  /** Deletes entries created before `before`. @returns how many were deleted */
  deleteBefore(before: Date): Promise<number>;
}
