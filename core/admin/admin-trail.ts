import type { ActivityRecorder } from '../activity/activity-recorder.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { AdminAuditLog } from './admin-audit-log.js';
import type { AdminAction, AdminActor } from './admin-audit.js';

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
