import { Type } from '@sinclair/typebox';
import { ACCOUNT_SORTS, ACCOUNT_STATUS_FILTERS } from '../../../core/admin/account-directory.js';
import type { Hangar } from '../../../core/hangar.js';
import { ADMIN_AUTH, defineRoute, type Route } from '../../http/route.js';
import {
  AdminAccountBody,
  AdminAccountDetailsBody,
  AdminAuditBody,
  AdminInviteBody,
  accountDetailsJson,
  accountSummaryJson,
  AdminPlanBody,
  auditEntryJson,
  inviteJson,
  planJson,
  statsJson,
} from '../../http/presenters/admin-presenters.js';
import { MAX_PLAN_NAME_LENGTH } from '../../../core/plans/plan-overrides.js';
import { MAX_INVITE_TTL_SECONDS } from '../../../core/admin/invite-actions.js';
import { Paged, PageQuery } from '../schemas.js';
import { errors } from '../../http/error-body.js';
import { type BuildInfo, readBuildInfo } from '../../http/build-info.js';

/** The instance as `GET /admin/stats` describes it: its configuration, without a secret. */
export interface AdminInstance {
  database: string;
  blob_store: string;
  registration: string;
  default_plan: string;
  public_api_url: string;
  public_content_url: string;
}

const StatsBody = Type.Object(
  {
    accounts: Type.Object({ total: Type.Integer(), active: Type.Integer(), suspended: Type.Integer(), unconfirmed: Type.Integer(), admins: Type.Integer() }),
    files: Type.Integer(),
    bytes: Type.Integer(),
    uploads_per_day: Type.Array(
      Type.Object({
        day: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
        files: Type.Integer(),
        bytes: Type.Integer({ description: 'Bytes of those files' }),
      }),
      { description: 'Files stored now, by day of upload, and their bytes, the last 30 days' },
    ),
    top_accounts: Type.Array(Type.Object({ id: Type.String(), email: Type.String(), storage_bytes: Type.Integer(), files_count: Type.Integer() })),
    instance: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description: 'Database and blob store kinds, registration mode, default plan, public URLs',
    }),
    version: Type.String(),
  },
  { $id: 'AdminStats' },
);

const literals = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)));
const UserParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ADMIN_ERRORS = ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED', 'USER_NOT_FOUND'] as const;

/**
 * The operator console's API (docs/admin.md): accounts and the audit log, for an administrator's
 * session token or an administrator's key with the `admin` scope ({@link ADMIN_AUTH}). Every route
 * answers counts and account fields only, never a file's name, bytes or thumbnail, and none signs
 * in as another account. Each change is recorded in the audit log.
 */
export function adminRoutes(hangar: Hangar, options: { instance?: AdminInstance; build?: BuildInfo } = {}): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/admin/users',
      operationId: 'adminListUsers',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'List accounts with their counts, filtered and sorted',
      description:
        '`q` matches part of the e-mail address; `status` is `active`, `suspended` or `unconfirmed`; `sort` is one of ' +
        `${ACCOUNT_SORTS.map((s) => `\`${s}\``).join(', ')} (\`-\` for descending; default \`-created\`).`,
      errorCodes: ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED'],
      query: Type.Object({
        ...PageQuery,
        q: Type.Optional(Type.String({ maxLength: 254 })),
        status: Type.Optional(literals(ACCOUNT_STATUS_FILTERS)),
        plan: Type.Optional(Type.String({ maxLength: 100 })),
        role: Type.Optional(literals(['user', 'admin'])),
        sort: Type.Optional(literals(ACCOUNT_SORTS)),
      }),
      responses: { 200: Paged('users', AdminAccountBody), ...errors(400, 401, 403) },
      handler: async ({ ctx, query }) => {
        const page = await hangar.searchAccounts.execute({
          page: query.page,
          limit: query.limit,
          query: query.q,
          status: query.status as never,
          plan: query.plan,
          role: query.role as never,
          sort: query.sort as never,
        });
        ctx.body = { users: page.items.map(accountSummaryJson), total: page.total, total_relation: 'eq', page: query.page, limit: query.limit };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/users/:id',
      operationId: 'adminGetUser',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'One account: its counts, limits, usage of the current period and the recent administrator actions on it',
      errorCodes: ADMIN_ERRORS,
      params: UserParams,
      responses: { 200: AdminAccountDetailsBody, ...errors(401, 403, 404) },
      handler: async ({ ctx, params }) => {
        ctx.body = accountDetailsJson(await hangar.getAccountDetails.execute({ account: { id: params.id } }));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/admin/users/:id',
      operationId: 'adminUpdateUser',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'Change an account: plan, status (suspend or reinstate), role and limits',
      description:
        "Absent fields stay as they are; a limit set to null returns to the plan's (or the service default). " +
        '`status: "suspended"` stops the account\'s sign-ins, refreshes, API keys and the serving of its files on every process within a second; nothing is deleted. ' +
        'A change that would leave no active administrator (demoting or suspending the last one) answers 409 `LAST_ADMIN`.',
      errorCodes: [...ADMIN_ERRORS, 'PLAN_NOT_FOUND', 'LAST_ADMIN'],
      params: UserParams,
      body: Type.Object(
        {
          plan: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          status: Type.Optional(literals(['active', 'suspended'])),
          role: Type.Optional(literals(['user', 'admin'])),
          max_upload_size_bytes: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
          storage_limit_bytes: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
          file_count_limit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      responses: { 200: AdminAccountDetailsBody, ...errors(400, 401, 403, 404, 409) },
      handler: async ({ ctx, params, body, admin }) => {
        await hangar.updateAccount.execute({
          actor: admin,
          account: { id: params.id },
          changes: {
            plan: body.plan,
            status: body.status as never,
            role: body.role as never,
            maxUploadSizeBytes: body.max_upload_size_bytes,
            storageLimitBytes: body.storage_limit_bytes,
            fileCountLimit: body.file_count_limit,
          },
        });
        ctx.body = accountDetailsJson(await hangar.getAccountDetails.execute({ account: { id: params.id } }));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/users/:id/revoke-sessions',
      operationId: 'adminRevokeUserSessions',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'End every session of an account (its API keys keep working)',
      errorCodes: ADMIN_ERRORS,
      params: UserParams,
      responses: { 204: null, ...errors(401, 403, 404) },
      handler: async ({ ctx, params, admin }) => {
        await hangar.revokeAccountSessions.execute({ actor: admin, account: { id: params.id } });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/users/:id/reset-mfa',
      operationId: 'adminResetUserMfa',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'Remove the authenticator app and every passkey of an account, end its sessions and mail its owner',
      description: 'For an owner who lost every second factor; check who is asking by other means first.',
      errorCodes: ADMIN_ERRORS,
      params: UserParams,
      responses: { 200: Type.Object({ totp_removed: Type.Boolean(), passkeys_removed: Type.Integer() }), ...errors(401, 403, 404) },
      handler: async ({ ctx, params, admin }) => {
        const result = await hangar.resetAccountMfa.execute({ actor: admin, account: { id: params.id } });
        ctx.body = { totp_removed: result.totpRemoved, passkeys_removed: result.passkeysRemoved };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/users/:id/resend-confirmation',
      operationId: 'adminResendUserConfirmation',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'Send the confirmation e-mail again (at most one a minute per address)',
      description: '`sent` is false when the address is already confirmed or an e-mail went out less than a minute ago.',
      errorCodes: ADMIN_ERRORS,
      params: UserParams,
      responses: { 200: Type.Object({ sent: Type.Boolean() }), ...errors(401, 403, 404) },
      handler: async ({ ctx, params, admin }) => {
        ctx.body = await hangar.resendAccountConfirmation.execute({ actor: admin, account: { id: params.id } });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/admin/users/:id',
      operationId: 'adminDeleteUser',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'Delete an account with its files, blobs, keys and sessions, as the CLI does',
      description:
        'The account is suspended first. An account of at most 100 files is deleted before the answer (200 `{ deleted_files }`); a larger one is deleted in the background ' +
        '(202 `{ state: "deleting", files_remaining }`, `Location` its admin page): poll `GET /admin/users/:id`, whose `files_count` falls and `deletion.files_deleted` grows until it answers 404. ' +
        'If the server process running it stops or dies, another one (or the same once restarted) resumes it within seconds; `DELETE` again changes nothing. The last active administrator cannot be deleted (409 `LAST_ADMIN`).',
      errorCodes: [...ADMIN_ERRORS, 'LAST_ADMIN'],
      params: UserParams,
      responses: {
        200: Type.Object({ deleted_files: Type.Integer() }),
        202: Type.Object({ state: Type.Literal('deleting'), files_remaining: Type.Integer({ description: 'Files left when the deletion started' }) }),
        ...errors(401, 403, 404, 409),
      },
      handler: async ({ ctx, params, admin }) => {
        const outcome = await hangar.removeAccount.start({ actor: admin, account: { id: params.id } });
        if (outcome.state === 'deleted') {
          ctx.body = { deleted_files: outcome.deletedFiles };
          return;
        }
        ctx.status = 202;
        ctx.set('location', `/admin/users/${params.id}`);
        ctx.body = { state: 'deleting', files_remaining: outcome.filesRemaining };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/invites',
      operationId: 'adminListInvites',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'The latest 100 invites, newest first, with their state (the links are not stored, so not shown)',
      errorCodes: ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED'],
      responses: { 200: Type.Object({ invites: Type.Array(AdminInviteBody) }), ...errors(401, 403) },
      handler: async ({ ctx }) => {
        ctx.body = { invites: (await hangar.listInvites.execute({ limit: 100 })).map(inviteJson) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/invites',
      operationId: 'adminCreateInvite',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'Create a single-use invite link for REGISTRATION=invite; the link is shown only here',
      description:
        '`plan`: the plan the new account gets (default: the default plan); `expires_in`: seconds it stays usable (default 7 days), or null for never.',
      errorCodes: ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED', 'PLAN_NOT_FOUND', 'INVALID_EXPIRY'],
      body: Type.Object(
        {
          plan: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          expires_in: Type.Optional(Type.Union([Type.Integer({ minimum: 60, maximum: MAX_INVITE_TTL_SECONDS }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      responses: { 201: Type.Composite([AdminInviteBody, Type.Object({ link: Type.String() })]), ...errors(400, 401, 403) },
      handler: async ({ ctx, body, admin }) => {
        const ttlMs = body.expires_in === undefined ? undefined : body.expires_in === null ? null : body.expires_in * 1000;
        const { invite, link } = await hangar.issueInvite.execute({ actor: admin, planName: body.plan, ttlMs });
        ctx.status = 201;
        ctx.body = { ...inviteJson({ ...invite, state: 'usable' }), link };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/admin/invites/:id',
      operationId: 'adminRevokeInvite',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'Revoke an unused invite: its link stops working',
      errorCodes: ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED', 'INVITE_NOT_FOUND'],
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      responses: { 204: null, ...errors(401, 403, 404) },
      handler: async ({ ctx, params, admin }) => {
        await hangar.withdrawInvite.execute({ actor: admin, id: params.id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/plans',
      operationId: 'adminListPlans',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'The plans on offer: those of the plans file, as administrators changed them, and those they added',
      errorCodes: ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED'],
      responses: { 200: Type.Object({ plans: Type.Array(AdminPlanBody) }), ...errors(401, 403) },
      handler: async ({ ctx }) => {
        const defaultPlan = hangar.plans.defaultPlan.name;
        ctx.body = { plans: hangar.plans.all().map((plan) => planJson(plan, defaultPlan)) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/admin/plans/:name',
      operationId: 'adminSetPlan',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'Set a plan (replace one of the plans file, or add one): every account on it gets these limits within 1 s on every process',
      description:
        'The body is the whole plan, in the names of PLANS_FILE. Kept in the database, over the plans file, so every process agrees. ' +
        'A trial already running keeps its end (`trial_days` counts from sign-up for new accounts).',
      errorCodes: ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED'],
      params: Type.Object({ name: Type.String({ minLength: 1, maxLength: MAX_PLAN_NAME_LENGTH }) }),
      body: Type.Object(
        {
          trial_days: Type.Union([Type.Integer({ minimum: 0, maximum: 36_500 }), Type.Null()]),
          storage_limit_bytes: Type.Integer({ minimum: 0 }),
          file_count_limit: Type.Integer({ minimum: 0 }),
          max_upload_size_bytes: Type.Integer({ minimum: 1 }),
          image_ops_limit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      responses: { 200: AdminPlanBody, ...errors(400, 401, 403) },
      handler: async ({ ctx, params, body, admin }) => {
        const plan = await hangar.setPlan.execute({
          actor: admin,
          plan: {
            name: params.name,
            trialDays: body.trial_days,
            storageLimitBytes: body.storage_limit_bytes,
            fileCountLimit: body.file_count_limit,
            maxUploadSizeBytes: body.max_upload_size_bytes,
            imageOpsLimit: body.image_ops_limit ?? null,
          },
        });
        ctx.body = planJson(plan, hangar.plans.defaultPlan.name);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/stats',
      operationId: 'adminInstanceStats',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'The instance in counts: accounts by status, files and bytes, uploads per day for 30 days, the 10 largest accounts, configuration and version',
      errorCodes: ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED'],
      responses: { 200: StatsBody, ...errors(401, 403) },
      handler: async ({ ctx }) => {
        ctx.body = {
          ...statsJson(await hangar.getInstanceStats.execute()),
          instance: options.instance ? { ...options.instance } : null,
          version: (options.build ?? readBuildInfo()).version,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/audit',
      operationId: 'adminListAudit',
      tag: 'admin',
      auth: ADMIN_AUTH,
      summary: 'The audit log of administrator actions, newest first',
      description: "Who, when, what, on which account, from which address, and the changed fields before and after. `user_id` keeps one account's entries.",
      errorCodes: ['ADMIN_REQUIRED', 'SECOND_FACTOR_REQUIRED', 'ACCOUNT_SUSPENDED'],
      query: Type.Object({ ...PageQuery, user_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      responses: { 200: Paged('entries', AdminAuditBody), ...errors(400, 401, 403) },
      handler: async ({ ctx, query }) => {
        const page = await hangar.listAdminAudit.execute({ page: query.page, limit: query.limit, targetId: query.user_id });
        ctx.body = { entries: page.items.map(auditEntryJson), total: page.total, total_relation: 'eq', page: query.page, limit: query.limit };
      },
    }),
  ];
}
