import type { ActivityRecorder } from '../activity/activity-recorder.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { Paged, Window } from '../shared/pagination.js';

/**
 * Who performs an administrator action: an administrator's account (`id`, `email`, and the client
 * address of the request when it came through the API), or the CLI on the server ({@link CLI_ACTOR}).
 */
export interface AdminActor {
  /** The administrator's account id; null for the CLI. */
  id: string | null;
  /** The administrator's e-mail, or `cli`. */
  email: string;
  /** The client address of the request (see client-address.ts); null for the CLI. */
  client: string | null;
}

/** The operator at the server's shell: the CLI acts with every power, as the audit log records. */
export const CLI_ACTOR: AdminActor = { id: null, email: 'cli', client: null };

/**
 * What an administrator did (docs/admin.md, "Audit log"). The names are stable: the API and the
 * dashboard show them as they are.
 */
export type AdminAction =
  | 'promote'
  | 'demote'
  | 'suspend'
  | 'reinstate'
  | 'update_account'
  | 'revoke_sessions'
  | 'reset_mfa'
  | 'resend_confirmation'
  | 'confirm_account'
  | 'delete_account'
  | 'create_invite'
  | 'revoke_invite'
  | 'update_plan';

/** One row of the audit log. */
export interface AdminAuditEntry {
  /** UUID. */
  id: string;
  createdAt: Date;
  actor: AdminActor;
  action: AdminAction;
  /** The account acted on (null for actions on no account, e.g. an invite); the e-mail is kept after the account is deleted. */
  targetId: string | null;
  targetEmail: string | null;
  /** The changed fields before and after (JSON values); null when the action changes no field. */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Port: the audit log of administrator actions (docs/admin.md), kept `ADMIN_AUDIT_RETENTION_DAYS`. */
export interface AdminAuditLog {
  /** Stores one entry. */
  record(entry: AdminAuditEntry): Promise<void>;
  /** Entries newest first (created_at, then id, descending), all or those of one account (`targetId`). */
  list(options: { window: Window; targetId?: string }): Promise<Paged<AdminAuditEntry>>;
  /** Deletes entries created before `before`. @returns how many were deleted */
  deleteBefore(before: Date): Promise<number>;
}

/** Default of `ADMIN_AUDIT_RETENTION_DAYS`: days an audit entry is kept. */
export const DEFAULT_ADMIN_AUDIT_RETENTION_DAYS = 365;

/**
 * Writes what an administrator did: one audit entry, and one entry in the affected account's own
 * activity log (method `ADMIN`, path `/admin/<action>`, metadata `{ by: 'administrator', action }`)
 * so that its owner sees that an administrator acted on it, never which one. Not a use case: shared
 * by the admin use cases.
 */
export class AdminTrail {
  constructor(private readonly deps: { audit: AdminAuditLog; activity: ActivityRecorder; ids: IdGenerator; clock: Clock }) {}

  /** @throws what the audit log throws (the action is then reported as failed to the caller; it was done) */
  async record(options: {
    actor: AdminActor;
    action: AdminAction;
    target?: { id: string; email: string };
    before?: Record<string, unknown>;
    after?: Record<string, unknown>;
    /** Whether the account still exists to be told in its activity log (false after its deletion). */
    tellAccount?: boolean;
  }): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.audit.record({
      id: this.deps.ids.uuid(),
      createdAt: now,
      actor: options.actor,
      action: options.action,
      targetId: options.target?.id ?? null,
      targetEmail: options.target?.email ?? null,
      before: options.before ?? null,
      after: options.after ?? null,
    });
    if (options.target && options.tellAccount !== false) {
      this.deps.activity.record({
        userId: options.target.id,
        method: 'ADMIN',
        path: `/admin/${options.action}`,
        statusCode: 200,
        requestSizeBytes: null,
        createdAt: now,
        metadata: { by: 'administrator', action: options.action },
      });
    }
  }
}
