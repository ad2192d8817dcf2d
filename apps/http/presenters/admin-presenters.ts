import { type Static, Type } from '@sinclair/typebox';
import type { AccountSummary } from '../../../core/admin/account-directory.js';
import type { AdminAuditEntry } from '../../../core/admin/admin-audit.js';
import type { AccountDetails } from '../../../core/admin/get-account-details.js';
import type { InviteView } from '../../../core/invites/manage-invites.js';
import type { InstanceCounts } from '../../../core/admin/instance-statistics.js';
import type { Plan } from '../../../core/plans/plan.js';
import { planFields } from '../../../core/plans/plan-overrides.js';

// How the admin API and the CLI present accounts and audit entries: one shape for both
// (docs/admin.md). JSON is snake_case, timestamps ISO 8601 UTC or null, sizes in bytes. Counts
// only: nothing here names a file.

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T) => Type.Union([schema, Type.Null()]);

/** The schema of {@link accountSummaryJson}. */
export const AdminAccountBody = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    suspended_at: Nullable(Type.String({ format: 'date-time' })),
    email_confirmed_at: Nullable(Type.String({ format: 'date-time' })),
    plan: Type.String({ description: 'The plan name as stored on the account (an unknown name means the default plan)' }),
    storage_bytes: Type.Integer(),
    files_count: Type.Integer(),
    max_upload_size_bytes: Nullable(Type.Integer({ description: "The account's own upload limit; null: the service default" })),
    storage_limit_bytes: Nullable(Type.Integer({ description: "Set by an administrator over the plan's; null: the plan's" })),
    file_count_limit: Nullable(Type.Integer({ description: "Set by an administrator over the plan's; null: the plan's" })),
    mfa_enabled: Type.Boolean({ description: 'A confirmed authenticator app or at least one passkey' }),
    created_at: Type.String({ format: 'date-time' }),
    last_seen_at: Nullable(Type.String({ format: 'date-time', description: 'Last use of any of its sessions' })),
  },
  { $id: 'AdminAccount' },
);

/** One account in the administrators' list (`GET /admin/users`, `users list --json`). */
export function accountSummaryJson(summary: AccountSummary) {
  const { user } = summary;
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    status: user.suspendedAt === null ? ('active' as const) : ('suspended' as const),
    suspended_at: iso(user.suspendedAt),
    email_confirmed_at: iso(user.emailConfirmedAt),
    plan: user.planName,
    storage_bytes: summary.storageBytes,
    files_count: summary.filesCount,
    max_upload_size_bytes: user.maxUploadSizeBytes,
    storage_limit_bytes: user.storageLimitBytes,
    file_count_limit: user.fileCountLimit,
    mfa_enabled: summary.mfaEnabled,
    created_at: user.createdAt.toISOString(),
    last_seen_at: iso(summary.lastSeenAt),
  };
}

/** The schema of {@link auditEntryJson}. */
export const AdminAuditBody = Type.Object(
  {
    id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    actor: Type.Object({ id: Nullable(Type.String()), email: Type.String({ description: 'The administrator, or "cli" for the command line on the server' }) }),
    action: Type.String(),
    target: Type.Union([Type.Object({ id: Type.String(), email: Nullable(Type.String()) }), Type.Null()]),
    client: Nullable(Type.String({ description: "The request's client address" })),
    before: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    after: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  },
  { $id: 'AdminAuditEntry' },
);

/** One audit entry (`GET /admin/audit`, `audit list`). */
export function auditEntryJson(entry: AdminAuditEntry) {
  return {
    id: entry.id,
    created_at: entry.createdAt.toISOString(),
    actor: { id: entry.actor.id, email: entry.actor.email },
    action: entry.action,
    target: entry.targetId === null ? null : { id: entry.targetId, email: entry.targetEmail },
    client: entry.actor.client,
    before: entry.before,
    after: entry.after,
  };
}

/** The schema of {@link accountDetailsJson}. */
export const AdminAccountDetailsBody = Type.Composite(
  [
    Type.Omit(AdminAccountBody, []),
    Type.Object({
      subscription: Type.Object({
        status: Type.String(),
        trial_ends_at: Nullable(Type.String({ format: 'date-time' })),
        access_until: Nullable(Type.String({ format: 'date-time' })),
      }),
      limits: Type.Object(
        {
          storage_limit_bytes: Type.Integer(),
          file_count_limit: Type.Integer(),
          upload_limit_bytes: Type.Integer(),
        },
        { description: "The limits in force: the plan's, or the account's own where an administrator set them" },
      ),
      usage: Type.Object({
        period_start: Type.String({ format: 'date-time' }),
        period_end: Type.String({ format: 'date-time' }),
        origin_reads: Type.Integer(),
        image_ops: Type.Integer(),
      }),
      recent_actions: Type.Array(AdminAuditBody),
      deletion: Type.Union(
        [
          Type.Object({
            state: Type.Literal('deleting'),
            requested_at: Type.String({ format: 'date-time' }),
            files_deleted: Type.Integer({ description: 'Files deleted so far; `files_count` is what is left' }),
          }),
          Type.Null(),
        ],
        {
          description:
            'The background deletion in progress (`DELETE /admin/users/:id` of a large account), resumed by any server process if the one running it stops; null when none',
        },
      ),
    }),
  ],
  { $id: 'AdminAccountDetails' },
);

/** One account with its standing, usage and recent administrator actions (`GET /admin/users/:id`, `users show`). */
export function accountDetailsJson(details: AccountDetails) {
  const { standing, usage } = details;
  return {
    ...accountSummaryJson(details.summary),
    subscription: { status: standing.status, trial_ends_at: iso(standing.trialEndsAt), access_until: iso(standing.accessUntil) },
    limits: {
      storage_limit_bytes: standing.plan.storageLimitBytes,
      file_count_limit: standing.plan.fileCountLimit,
      upload_limit_bytes: details.uploadLimitBytes,
    },
    usage: {
      period_start: usage.periodStart.toISOString(),
      period_end: usage.periodEnd.toISOString(),
      origin_reads: usage.originReads,
      image_ops: usage.imageOps,
    },
    recent_actions: details.recentActions.map(auditEntryJson),
    deletion: details.deletion
      ? { state: 'deleting' as const, requested_at: details.deletion.requestedAt.toISOString(), files_deleted: details.deletion.filesDeleted }
      : null,
  };
}

/** The schema of {@link inviteJson}. */
export const AdminInviteBody = Type.Object(
  {
    id: Type.String(),
    state: Type.Union([Type.Literal('usable'), Type.Literal('used'), Type.Literal('revoked'), Type.Literal('expired')]),
    plan: Nullable(Type.String({ description: 'The plan the new account gets; null: the default plan' })),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Nullable(Type.String({ format: 'date-time' })),
    used_at: Nullable(Type.String({ format: 'date-time' })),
    revoked_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'AdminInvite' },
);

/** One invite as `GET /admin/invites` and `invites list --json` show it (the link is not stored, so never shown again). */
export function inviteJson(invite: InviteView) {
  return {
    id: invite.id,
    state: invite.state,
    plan: invite.planName,
    created_at: invite.createdAt.toISOString(),
    expires_at: iso(invite.expiresAt),
    used_at: iso(invite.usedAt),
    revoked_at: iso(invite.revokedAt),
  };
}

/** The instance in counts (`GET /admin/stats`, `stats`); `instance` and `version` are added by the API. */
export function statsJson(stats: InstanceCounts) {
  return {
    accounts: stats.accounts,
    files: stats.files,
    bytes: stats.bytes,
    uploads_per_day: stats.uploadsPerDay,
    top_accounts: stats.topAccounts.map((a) => ({ id: a.id, email: a.email, storage_bytes: a.storageBytes, files_count: a.filesCount })),
  };
}

/** The schema of {@link planJson}. */
export const AdminPlanBody = Type.Object(
  {
    name: Type.String(),
    trial_days: Nullable(Type.Integer({ description: 'Days from sign-up until the trial ends; null: no trial end' })),
    storage_limit_bytes: Type.Integer(),
    file_count_limit: Type.Integer(),
    max_upload_size_bytes: Type.Integer({ description: 'Ceiling of the upload limit an account may set' }),
    image_ops_limit: Nullable(Type.Integer({ description: 'Image transformations per billing period; null: unlimited' })),
    default: Type.Boolean({ description: 'The plan of new accounts (DEFAULT_PLAN)' }),
  },
  { $id: 'AdminPlan' },
);

/** One plan as `GET /admin/plans` and `plans list` show it (the names of PLANS_FILE, in snake_case). */
export function planJson(plan: Plan, defaultPlan: string) {
  return { ...(planFields(plan) as Omit<Static<typeof AdminPlanBody>, 'default'>), default: plan.name === defaultPlan };
}
