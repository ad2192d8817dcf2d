import path from 'node:path';
import { backup, BackupRefusal, restore } from './backup.js';
import { createLogger } from '../server/logging.js';
import { parseArgs } from 'node:util';
import { redactPostgresUrl } from '../../adapters/persistence/postgres/postgres-url.js';
import { type CopiedTable, copyDatabase, DestinationNotEmptyError } from '../../adapters/persistence/sql/copy-database.js';
import { type Config, ConfigError, parseBlobStoreUrl, parseDatabaseUrl } from '../server/config.js';
import { openBlobStore } from '../../adapters/blobs/open-blob-store.js';
import { openDatabase } from '../server/database.js';
import { type BlobCopyProgress, copyBlobs } from '../../adapters/blobs/copy-blobs.js';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import { normaliseEmail } from '../../core/accounts/user.js';
import type { Hangar } from '../../core/hangar.js';
import type { StorageReport } from '../../core/files/check-storage.js';
import type { BackfillProgress } from '../../core/media/backfill-media-facts.js';
import { accountJson, accountPageJson, accountTable, plural } from './account-output.js';
import { isoDateOrNone, pageOf, UsageError } from './arguments.js';
import { findHangarDatabase, noDatabaseMessage } from './database-check.js';
import { CLI_ACTOR } from '../../core/admin/admin-audit.js';
import { ACCOUNT_SORTS, ACCOUNT_STATUS_FILTERS } from '../../core/admin/account-directory.js';
import { accountDetailsJson, accountSummaryJson, auditEntryJson, inviteJson, planJson, statsJson } from '../http/presenters/admin-presenters.js';

/** An expected refusal of the CLI itself (not of a use case), e.g. `users delete` without `--yes`. Exit 1. */
export class Refusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Refusal';
  }
}

/**
 * The report of a check that found problems (`fsck`): printed on stdout like a result, but the
 * exit status is 1, so a cron job or a script notices.
 */
export class ProblemsFound extends Error {
  constructor(readonly report: string) {
    super('problems found');
    this.name = 'ProblemsFound';
  }
}

/** Work a command line asked for: one use case call. Resolves with what to print on stdout (no trailing newline). */
export type Work = (hangar: Hangar, context: WorkContext) => Promise<string>;

/** What the few commands that need more than the use cases get (`blobs copy`): the configured stores, and where progress goes. */
export interface WorkContext {
  /** The environment the configuration was read from (for a second store named on the command line). */
  env: Record<string, string | undefined>;
  blobs: BlobStore;
  files: FileRepository;
  /** Where progress lines go (stderr): rewritten in place on a terminal, a line now and then otherwise. */
  progress: NodeJS.WriteStream;
  /** The configured database for messages: the SQLite path, or the Postgres URL without its password. */
  databaseName: string;
}

/**
 * Work that opens what it needs itself instead of the configured service (`db copy` names its two
 * databases on the command line). Resolves with what to print on stdout (no trailing newline).
 */
export interface StandaloneWork {
  standalone: () => Promise<string>;
}

/** Work on the configured data itself, with the service not opened (`backup`, `restore`). Resolves with what to print. */
export interface ConfiguredWork {
  configured: (config: Config) => Promise<string>;
}

/** Option values as `node:util` `parseArgs` returns them. */
type Values = Record<string, string | boolean | undefined>;

/** One admin command: its words, usage, options, and how its arguments become work. A command is data, like an API route. */
interface Command {
  /** e.g. `users set-plan`. */
  name: string;
  /** Positional arguments, in order, as the usage shows them; each is required. */
  args: readonly string[];
  /** Options, as the usage shows them, e.g. `[--page N]`. */
  optionsSynopsis?: string;
  options?: Record<string, { type: 'string' | 'boolean' }>;
  summary: string;
  /** Checks the arguments (throws UsageError) before anything is opened, and returns the work. */
  prepare(args: string[], values: Values): Work | StandaloneWork | ConfiguredWork;
  /**
   * True for the one command allowed to create the database (`init`). Every other command on the
   * service refuses a database that does not exist or holds no Hangar schema (apps/cli/database-check.ts),
   * so a wrong DATA_DIR never becomes a new, empty instance.
   */
  createsDatabase?: true;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A database as `--from`/`--to` name it. */
type DatabaseLocation = Config['database'];

const COMMANDS: readonly Command[] = [
  {
    name: 'init',
    args: [],
    summary:
      'Creates the database (and DATA_DIR) the configuration names, or brings an existing one up to date; the only command that creates one. The server does it too at its first start.',
    createsDatabase: true,
    prepare: () => async (_hangar, context) => `Hangar database ready at ${context.databaseName}.`,
  },
  {
    name: 'users list',
    args: [],
    optionsSynopsis: '[--page N] [--limit N] [--json]',
    options: { page: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    summary: 'Accounts, oldest first, as a table (--limit 1-100, default 30); --json for { items, total, page, limit }.',
    prepare: (_args, values) => {
      const request = pageOf({ page: values.page as string | undefined, limit: values.limit as string | undefined });
      return async (hangar) => {
        const page = await hangar.listAccounts.execute(request);
        return values.json ? json(accountPageJson(page, request)) : accountTable(page, request);
      };
    },
  },
  {
    name: 'users show',
    args: ['<email>'],
    summary: 'One account as JSON: plan and trial, subscription, stored bytes and files.',
    prepare:
      ([email]) =>
      async (hangar) =>
        json(accountJson(await hangar.showAccount.execute({ email }))),
  },
  {
    name: 'users confirm',
    args: ['<email>'],
    summary: 'Marks the e-mail address confirmed, so the account can log in. Audited.',
    prepare:
      ([email]) =>
      async (hangar) => {
        const { user } = await hangar.confirmAccount.execute({ email, actor: CLI_ACTOR });
        return `${user.email}: e-mail address confirmed (${user.emailConfirmedAt?.toISOString()})`;
      },
  },
  {
    name: 'users reset-mfa',
    args: ['<email>'],
    summary:
      'Turns two-factor sign-in off (TOTP with its recovery codes, and every passkey), ends every session and mails the owner, for an owner who lost them; check who asks first. Audited.',
    prepare:
      ([email]) =>
      async (hangar) => {
        const { totpRemoved, passkeysRemoved } = await hangar.resetAccountMfa.execute({ actor: CLI_ACTOR, account: { email } });
        const address = normaliseEmail(email);
        return totpRemoved || passkeysRemoved > 0
          ? `${address}: two-factor sign-in turned off (${totpRemoved ? 'TOTP and recovery codes' : 'no TOTP'}, ${plural(passkeysRemoved, 'passkey')} removed); sessions ended`
          : `${address}: two-factor sign-in was not on; sessions ended`;
      },
  },
  {
    name: 'users set-plan',
    args: ['<email>', '<plan>'],
    summary: 'Moves the account to another plan (from PLANS_FILE); this lifts its trial end. Audited.',
    prepare:
      ([email, planName]) =>
      async (hangar) => {
        const { user, standing } = await hangar.changePlan.execute({ email, planName, actor: CLI_ACTOR });
        return `${user.email}: plan is now "${standing.plan.name}" (trial end lifted)`;
      },
  },
  {
    name: 'users set-access-until',
    args: ['<email>', '<ISO date|none>'],
    summary: 'Paid access until then (a future date lifts the trial end); "none" clears it. Audited.',
    prepare: ([email, value]) => {
      const accessUntil = isoDateOrNone('access_until', value);
      return async (hangar) => {
        const { user, standing } = await hangar.setSubscription.execute({ email, accessUntil, actor: CLI_ACTOR });
        return `${user.email}: access_until ${accessUntil === null ? 'cleared' : `is now ${accessUntil.toISOString()}`} (status ${standing.status})`;
      };
    },
  },
  {
    name: 'users set-canceled-at',
    args: ['<email>', '<ISO date|none>'],
    summary: 'When the paid subscription was canceled (access runs until access_until); "none" clears it. Audited.',
    prepare: ([email, value]) => {
      const subscriptionCanceledAt = isoDateOrNone('subscription_canceled_at', value);
      return async (hangar) => {
        const { user, standing } = await hangar.setSubscription.execute({ email, subscriptionCanceledAt, actor: CLI_ACTOR });
        const change = subscriptionCanceledAt === null ? 'cleared' : `is now ${subscriptionCanceledAt.toISOString()}`;
        return `${user.email}: subscription_canceled_at ${change} (status ${standing.status})`;
      };
    },
  },
  {
    name: 'users delete',
    args: ['<email>'],
    optionsSynopsis: '[--yes]',
    options: { yes: { type: 'boolean' } },
    summary: 'Deletes the account with its API keys, sessions, logs and files (blobs included); refuses without --yes.',
    prepare:
      ([email], values) =>
      async (hangar) => {
        if (!values.yes) {
          const { user, totals } = await hangar.showAccount.execute({ email });
          throw new Refusal(
            `This would delete ${user.email} with ${plural(totals.filesCount, 'file')} (${totals.storageBytes} bytes) and cannot be undone; add --yes to delete it.`,
          );
        }
        const { deletedFiles } = await hangar.removeAccount.execute({ actor: CLI_ACTOR, account: { email } });
        return `${normaliseEmail(email)}: account deleted, ${plural(deletedFiles, 'file')} removed`;
      },
  },
];

const DURATION_UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * An invite lifetime from `--expires`: a whole number with a unit, `30m`, `12h`, `7d` (at most 365 days), or `never`.
 * @returns milliseconds, null for never, undefined when the option is absent (the default, 7 days)
 * @throws UsageError
 */
export function inviteLifetimeOf(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.toLowerCase() === 'never') return null;
  const match = /^(\d{1,6})([mhd])$/.exec(value);
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2]] : 0;
  if (!match || ms <= 0 || ms > 365 * DURATION_UNITS_MS.d) {
    throw new UsageError(`--expires must be a duration such as 30m, 12h or 7d (at most 365d), or "never"; got "${value}".`);
  }
  return ms;
}

/** A limit from the command line: a whole number from `min`, or `none` (the plan's); undefined when the option is absent. @throws UsageError */
function limitOf(option: string, value: string | boolean | undefined, min: number): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new UsageError(`--${option} must be a whole number from ${min}, or "none"; got "${String(value)}".`);
  }
  return Number(value);
}

/**
 * The operator console's commands (docs/admin.md): the same use cases as `/admin`, acting as `cli`
 * in the audit log, and the same JSON for an account as `GET /admin/users/:id`.
 */
const ADMIN_COMMANDS: readonly Command[] = withAdminState([
  ...(
    [
      ['promote', { role: 'admin' }, "Makes the account an administrator (the /admin routes and the dashboard's Admin section). Audited."],
      ['demote', { role: 'user' }, 'Makes the administrator an ordinary account again; refused for the last active administrator. Audited.'],
      [
        'suspend',
        { status: 'suspended' },
        'Suspends the account: sign-in, refresh and API keys answer 403 and its files are not served, on every process within 1 s; nothing is deleted. Audited.',
      ],
      ['reinstate', { status: 'active' }, 'Ends a suspension: the account and its files work again. Audited.'],
    ] as const
  ).map(([word, changes, summary]): Command => ({
    name: `users ${word}`,
    args: ['<email>'],
    summary,
    prepare:
      ([email]) =>
      async (hangar) => {
        const user = await hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { email }, changes });
        return `${user.email}: role ${user.role}, ${user.suspendedAt === null ? 'active' : `suspended since ${user.suspendedAt.toISOString()}`}`;
      },
  })),
  {
    name: 'users inspect',
    args: ['<email>'],
    summary: 'One account as GET /admin/users/:id shows it (JSON): role, status, counts, limits, usage of the period, recent administrator actions.',
    prepare:
      ([email]) =>
      async (hangar) =>
        json(accountDetailsJson(await hangar.getAccountDetails.execute({ account: { email } }))),
  },
  {
    name: 'users search',
    args: [],
    optionsSynopsis: '[--q TEXT] [--status active|suspended|unconfirmed] [--plan NAME] [--sort -created] [--page N] [--limit N]',
    options: {
      q: { type: 'string' },
      status: { type: 'string' },
      plan: { type: 'string' },
      sort: { type: 'string' },
      page: { type: 'string' },
      limit: { type: 'string' },
    },
    summary: 'Accounts as GET /admin/users lists them (JSON { users, total, page, limit }), filtered and sorted.',
    prepare: (_args, values) => {
      const request = pageOf({ page: values.page as string | undefined, limit: values.limit as string | undefined });
      const status = values.status as string | undefined;
      if (status !== undefined && !(ACCOUNT_STATUS_FILTERS as readonly string[]).includes(status))
        throw new UsageError(`--status must be one of ${ACCOUNT_STATUS_FILTERS.join(', ')}.`);
      const sort = values.sort as string | undefined;
      if (sort !== undefined && !(ACCOUNT_SORTS as readonly string[]).includes(sort))
        throw new UsageError(`--sort must be one of ${ACCOUNT_SORTS.join(', ')}.`);
      return async (hangar) => {
        const page = await hangar.searchAccounts.execute({
          ...request,
          query: values.q as string | undefined,
          status: status as never,
          plan: values.plan as string | undefined,
          sort: sort as never,
        });
        return json({ users: page.items.map(accountSummaryJson), total: page.total, page: request.page, limit: request.limit });
      };
    },
  },
  {
    name: 'users set-limits',
    args: ['<email>'],
    optionsSynopsis: '[--storage-bytes N|none] [--files N|none] [--max-upload-bytes N|none]',
    options: { 'storage-bytes': { type: 'string' }, files: { type: 'string' }, 'max-upload-bytes': { type: 'string' } },
    summary: "The account's own limits over its plan's (\"none\": the plan's, or the service default for uploads). Audited.",
    prepare: ([email], values) => {
      const changes = {
        storageLimitBytes: limitOf('storage-bytes', values['storage-bytes'], 0),
        fileCountLimit: limitOf('files', values.files, 0),
        maxUploadSizeBytes: limitOf('max-upload-bytes', values['max-upload-bytes'], 1),
      };
      return async (hangar) => {
        await hangar.updateAccount.execute({ actor: CLI_ACTOR, account: { email }, changes });
        return json(accountDetailsJson(await hangar.getAccountDetails.execute({ account: { email } })));
      };
    },
  },
  {
    name: 'users revoke-sessions',
    args: ['<email>'],
    summary: 'Ends every session of the account (its API keys keep working). Audited.',
    prepare:
      ([email]) =>
      async (hangar) => {
        await hangar.revokeAccountSessions.execute({ actor: CLI_ACTOR, account: { email } });
        return `${normaliseEmail(email)}: every session ended`;
      },
  },
  {
    name: 'users resend-confirmation',
    args: ['<email>'],
    summary: 'Sends the confirmation e-mail again (at most one a minute per address). Audited when sent.',
    prepare:
      ([email]) =>
      async (hangar) => {
        const { sent } = await hangar.resendAccountConfirmation.execute({ actor: CLI_ACTOR, account: { email } });
        return `${normaliseEmail(email)}: ${sent ? 'confirmation e-mail sent' : 'not sent (already confirmed, or one was sent less than a minute ago)'}`;
      },
  },
  {
    name: 'plans list',
    args: [],
    summary: "The plans on offer as GET /admin/plans shows them (JSON): the plans file's, as administrators changed them, and those they added.",
    prepare: () => async (hangar) => json({ plans: hangar.plans.all().map((plan) => planJson(plan, hangar.plans.defaultPlan.name)) }),
  },
  {
    name: 'plans set',
    args: ['<name>'],
    optionsSynopsis: '--storage-bytes N --files N --max-upload-bytes N [--trial-days N|none] [--image-ops N|none]',
    options: {
      'storage-bytes': { type: 'string' },
      files: { type: 'string' },
      'max-upload-bytes': { type: 'string' },
      'trial-days': { type: 'string' },
      'image-ops': { type: 'string' },
    },
    summary: 'Sets a plan (replaces one of the plans file or adds one) for every process within 1 s, as PUT /admin/plans/:name. Audited.',
    prepare: ([name], values) => {
      const required = (option: string, min: number) => {
        const value = limitOf(option, values[option], min);
        if (value === undefined || value === null) throw new UsageError(`--${option} N is required.`);
        return value;
      };
      const plan = {
        name,
        storageLimitBytes: required('storage-bytes', 0),
        fileCountLimit: required('files', 0),
        maxUploadSizeBytes: required('max-upload-bytes', 1),
        trialDays: limitOf('trial-days', values['trial-days'] ?? 'none', 0) ?? null,
        imageOpsLimit: limitOf('image-ops', values['image-ops'] ?? 'none', 0) ?? null,
      };
      return async (hangar) => json(planJson(await hangar.setPlan.execute({ actor: CLI_ACTOR, plan }), hangar.plans.defaultPlan.name));
    },
  },
  {
    name: 'stats',
    args: [],
    summary:
      'The instance in counts as GET /admin/stats shows them (JSON): accounts by status, files, bytes, uploads and their bytes per day for 30 days, the 10 largest accounts.',
    prepare: () => async (hangar) => json(statsJson(await hangar.getInstanceStats.execute())),
  },
  {
    name: 'audit list',
    args: [],
    optionsSynopsis: '[--page N] [--limit N]',
    options: { page: { type: 'string' }, limit: { type: 'string' } },
    summary: 'The audit log of administrator actions as GET /admin/audit lists it (JSON { entries, total, page, limit }), newest first.',
    prepare: (_args, values) => {
      const request = pageOf({ page: values.page as string | undefined, limit: values.limit as string | undefined });
      return async (hangar) => {
        const page = await hangar.listAdminAudit.execute(request);
        return json({ entries: page.items.map(auditEntryJson), total: page.total, page: request.page, limit: request.limit });
      };
    },
  },
]);

/**
 * The commands working on the service, each with the plans administrators set loaded first (the
 * server processes load them every second; the CLI once, before its work) and the activity log
 * entries its work recorded (the affected owner's "by an administrator" line, buffered by
 * ActivityRecorder) written before the process ends.
 */
function withAdminState(commands: readonly Command[]): Command[] {
  return commands.map((command) => ({
    ...command,
    prepare: (args, values) => {
      const work = command.prepare(args, values);
      if (typeof work !== 'function') return work;
      return async (hangar, context) => {
        await hangar.syncPlans.execute();
        try {
          return await work(hangar, context);
        } finally {
          await hangar.activity.flush();
        }
      };
    },
  }));
}

/** Invites for REGISTRATION=invite. */
const INVITE_COMMANDS: readonly Command[] = [
  {
    name: 'invites create',
    args: [],
    optionsSynopsis: '[--plan NAME] [--expires 7d|12h|30m|never] [--json]',
    options: { plan: { type: 'string' }, expires: { type: 'string' }, json: { type: 'boolean' } },
    summary:
      "Prints a single-use invite link to the dashboard's registration (for REGISTRATION=invite); the account gets the plan (default: DEFAULT_PLAN). Expires in 7 days by default.",
    prepare: (_args, values) => {
      const ttlMs = inviteLifetimeOf(values.expires as string | undefined);
      const planName = values.plan as string | undefined;
      return async (hangar) => {
        const { invite, link } = await hangar.issueInvite.execute({ actor: CLI_ACTOR, planName, ttlMs });
        if (values.json) return json({ id: invite.id, link, plan: invite.planName, expires_at: invite.expiresAt?.toISOString() ?? null });
        return link;
      };
    },
  },
  {
    name: 'invites list',
    args: [],
    optionsSynopsis: '[--json]',
    options: { json: { type: 'boolean' } },
    summary: 'The latest 100 invites, newest first: id, state (usable, used, revoked, expired), plan, expiry. Links are not stored, so not shown.',
    prepare: (_args, values) => async (hangar) => {
      const invites = await hangar.listInvites.execute({ limit: 100 });
      const rows = invites.map(inviteJson);
      if (values.json) return json(rows);
      if (rows.length === 0) return 'No invites.';
      return rows.map((r) => `${r.id}  ${r.state.padEnd(7)}  plan ${r.plan ?? '(default)'}  expires ${r.expires_at ?? 'never'}`).join('\n');
    },
  },
  {
    name: 'invites revoke',
    args: ['<id>'],
    summary: 'Revokes an unused invite: its link stops working.',
    prepare:
      ([id]) =>
      async (hangar) => {
        await hangar.withdrawInvite.execute({ actor: CLI_ACTOR, id });
        return `invite ${id} revoked`;
      },
  },
];

/** Seconds fsck leaves a blob without a record alone by default: an upload in flight is never touched. */
export const FSCK_DEFAULT_GRACE_SECONDS = 3600;

/** The reconciler of blobs and records. */
const STORAGE_COMMANDS: readonly Command[] = [
  {
    name: 'fsck',
    args: [],
    optionsSynopsis: '[--repair] [--grace-seconds N] [--json]',
    options: { repair: { type: 'boolean' }, 'grace-seconds': { type: 'string' }, json: { type: 'boolean' } },
    summary:
      'Checks blobs against file records: lists blobs without a record (orphans, older than the grace period, default 3600 s) ' +
      'and records without a blob or with a blob of another size; --repair removes the orphans and abandoned temp files. Exit 1 when problems remain.',
    prepare: (_args, values) => {
      const graceText = values['grace-seconds'] as string | undefined;
      if (graceText !== undefined && !/^\d+$/.test(graceText)) throw new UsageError(`--grace-seconds must be a whole number of seconds, not "${graceText}".`);
      const graceSeconds = graceText === undefined ? FSCK_DEFAULT_GRACE_SECONDS : Number(graceText);
      const repair = values.repair === true;
      return async (hangar) => {
        const report = await hangar.checkStorage.execute({ repair, graceMs: graceSeconds * 1000 });
        const output = values.json ? json({ repair, grace_seconds: graceSeconds, ...report }) : storageReportText(report, { repair, graceSeconds });
        if (!report.clean) throw new ProblemsFound(output);
        return output;
      };
    },
  },
];

/** Media facts of stored files (docs/media.md). */
const MEDIA_COMMANDS: readonly Command[] = [
  {
    name: 'files backfill-media',
    args: [],
    optionsSynopsis: '[--batch N] [--concurrency N]',
    options: { batch: { type: 'string' }, concurrency: { type: 'string' } },
    summary:
      'Computes the media facts (width, height, duration, thumbhash) of every file that has none yet, in file record order, ' +
      '--batch files at a time (1-1000, default 100), --concurrency at once (1-16, default 2). Progress on stderr. ' +
      'Safe to interrupt and run again: a rerun takes up the files still without facts, and does nothing when none are left.',
    prepare: (_args, values) => {
      const batchSize = wholeOption(values.batch, '--batch', { min: 1, max: 1000, fallback: 100 });
      const concurrency = wholeOption(values.concurrency, '--concurrency', { min: 1, max: 16, fallback: 2 });
      return async (hangar, context) => {
        const progress = progressLine(context.progress, BACKFILL_PROGRESS);
        try {
          const report = await hangar.backfillMediaFacts.execute({ batchSize, concurrency, onProgress: progress.update });
          progress.end();
          return `files backfill-media: ${plural(report.done, 'file')} given media facts (${report.failed} unreadable: every fact null)${report.done === 0 ? '; every file already has them' : ''}`;
        } finally {
          progress.end();
        }
      };
    },
  },
];

/** A whole-number option between `min` and `max`, or `fallback` when absent. @throws UsageError otherwise */
function wholeOption(value: string | boolean | undefined, name: string, range: { min: number; max: number; fallback: number }): number {
  if (value === undefined) return range.fallback;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < range.min || Number(text) > range.max)
    throw new UsageError(`${name} must be a whole number from ${range.min} to ${range.max}, not "${text}".`);
  return Number(text);
}

/** Moving blobs between stores. */
const BLOB_COMMANDS: readonly Command[] = [
  {
    name: 'blobs copy',
    args: [],
    optionsSynopsis: '--to <s3://bucket/prefix|gs://bucket/prefix|file:dir> [--concurrency N]',
    options: { to: { type: 'string' }, concurrency: { type: 'string' } },
    summary:
      "Copies the blob of every file record from the configured store (BLOB_STORE_URL) to another, verifying each copy's size and SHA-256 " +
      'against the record; the target is configured by the same variables (S3_*, AWS_*, GCS_*). Resumable: blobs already in the target are read back ' +
      'and kept when they match. Progress on stderr. Then switch BLOB_STORE_URL (docs/s3.md). Exit 1 when a blob could not be copied.',
    prepare: (_args, values) => {
      const to = values.to;
      if (typeof to !== 'string' || to === '') throw new UsageError('--to <s3://bucket/prefix|gs://bucket/prefix|file:dir> is required.');
      const concurrencyText = (values.concurrency as string | undefined) ?? '4';
      if (!/^\d+$/.test(concurrencyText) || Number(concurrencyText) < 1 || Number(concurrencyText) > 64)
        throw new UsageError(`--concurrency must be a whole number from 1 to 64, not "${concurrencyText}".`);
      return async (_hangar, context) => {
        let target: Config['blobs'];
        try {
          target = parseBlobStoreUrl(to, context.env);
        } catch (error) {
          if (error instanceof ConfigError) throw new Refusal(`--to: ${error.message.replace(/^BLOB_STORE_URL: /, '')}`);
          throw error;
        }
        const store = await openBlobStore(target, { logger: createLogger({ level: 'warn', format: 'auto' }, undefined, 2) });
        const progress = progressLine(context.progress, BLOB_COPY_PROGRESS);
        try {
          const report = await copyBlobs({
            files: context.files,
            from: context.blobs,
            to: store,
            concurrency: Number(concurrencyText),
            onProgress: progress.update,
          });
          progress.end();
          const lines = [
            `blobs copy: ${plural(report.totalFiles, 'file record')} (${report.totalBytes} bytes) to ${to}`,
            `  copied and verified: ${report.copied}`,
            `  already in the target, verified: ${report.alreadyThere}`,
            `  not copied: ${report.problems}`,
            ...report.problemItems.map((p) => `    file ${p.fileId} (blob ${p.blobKey}): ${p.reason}${p.detail ? ` (${p.detail})` : ''}`),
            report.problems === 0
              ? `blobs copy: done; every blob is in the target: set BLOB_STORE_URL=${to}`
              : 'blobs copy: problems remain; run again once they are dealt with',
          ];
          if (report.problems > 0) throw new ProblemsFound(lines.join('\n'));
          return lines.join('\n');
        } finally {
          progress.end();
          await store.close?.();
        }
      };
    },
  },
];

/**
 * A progress line on `stream`: on a terminal, one line rewritten in place (at most every 100 ms);
 * otherwise (a log file, a pipe) a line at most every 5 s and the last one. `text` writes a
 * progress report; `done` tells the last one, written at once.
 */
function progressLine<P>(
  stream: NodeJS.WriteStream,
  format: { text: (progress: P) => string; done: (progress: P) => boolean },
): { update: (progress: P) => void; end: () => void } {
  const tty = stream.isTTY === true;
  let last = 0;
  let pending: P | undefined;
  let ended = false;
  const write = (p: P) => {
    stream.write(tty ? `\r${format.text(p)}\x1b[K` : `${format.text(p)}\n`);
    last = Date.now();
    pending = undefined;
  };
  return {
    update: (p) => {
      pending = p;
      if (format.done(p) || Date.now() - last >= (tty ? 100 : 5_000)) write(p);
    },
    end: () => {
      if (ended) return;
      ended = true;
      if (pending !== undefined) write(pending);
      if (tty) stream.write('\n');
    },
  };
}

/** `blobs copy`'s progress: files and bytes done of the whole. */
const BLOB_COPY_PROGRESS = {
  text: (p: BlobCopyProgress) => {
    const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
    const percent = p.totalBytes > 0 ? Math.floor((100 * p.doneBytes) / p.totalBytes) : p.totalFiles > 0 ? Math.floor((100 * p.doneFiles) / p.totalFiles) : 100;
    return `blobs copy: ${p.doneFiles}/${p.totalFiles} files, ${gib(p.doneBytes)}/${gib(p.totalBytes)} (${percent}%): ${p.copied} copied, ${p.alreadyThere} already there, ${p.problems} not copied`;
  },
  done: (p: BlobCopyProgress) => p.doneFiles >= p.totalFiles,
};

/** `files backfill-media`'s progress: files done of those without facts at the start. */
const BACKFILL_PROGRESS = {
  text: (p: BackfillProgress) =>
    `files backfill-media: ${p.done}/${p.total} files (${p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100}%), ${p.failed} unreadable`,
  done: (p: BackfillProgress) => p.done >= p.total,
};

/** fsck's report for people: one line per finding, then the items (at most 1 000 per list). */
function storageReportText(report: StorageReport, options: { repair: boolean; graceSeconds: number }): string {
  const lines = [
    `fsck: checked ${plural(report.blobsChecked, 'blob')} and ${plural(report.recordsChecked, 'file record')}${options.repair ? ' (repair)' : ''}`,
    `  orphan blobs (no record, older than ${options.graceSeconds} s): ${report.orphanBlobs.count} (${report.orphanBlobs.bytes} bytes)${options.repair ? `, removed ${report.orphanBlobs.count - report.repairFailures}` : ''}`,
    ...report.orphanBlobs.items.map((blob) => `    ${blob.key}  ${blob.size} bytes  ${blob.modifiedAt.toISOString()}`),
  ];
  if (report.repairFailures > 0) lines.push(`  orphan blobs that could not be removed (the store failed; run again): ${report.repairFailures}`);
  lines.push(`  blobs without a record but younger than the grace period (uploads in flight, left alone): ${report.youngBlobsSkipped}`);
  lines.push(`  records without a blob: ${report.recordsWithoutBlob.count}`);
  lines.push(...report.recordsWithoutBlob.items.map((r) => `    file ${r.fileId} of account ${r.userId}: blob ${r.blobKey} (${r.size} bytes) is missing`));
  lines.push(`  records whose blob has another size: ${report.sizeMismatches.count}`);
  lines.push(...report.sizeMismatches.items.map((r) => `    file ${r.fileId} of account ${r.userId}: record ${r.size} bytes, blob ${r.blobSize} bytes`));
  if (report.unrecognisedBlobs.count > 0) {
    lines.push(`  blobs with an unknown key shape (left alone): ${report.unrecognisedBlobs.count}`);
    lines.push(...report.unrecognisedBlobs.items.map((key) => `    ${key}`));
  }
  if (options.repair) lines.push(`  abandoned temp files removed: ${report.tempFilesRemoved}`);
  lines.push(report.clean ? 'fsck: clean' : 'fsck: problems remain');
  return lines.join('\n');
}

/** The admin commands on the database itself (not on accounts). */
const DB_COMMANDS: readonly Command[] = [
  {
    name: 'db copy',
    args: [],
    optionsSynopsis: '--from <sqlite:path|postgres://…> --to <sqlite:path|postgres://…>',
    options: { from: { type: 'string' }, to: { type: 'string' } },
    summary:
      'Copies every account, key, session, file record, log and total into an empty database (migrated first), e.g. SQLite to Postgres; reports rows per table. Blobs stay where they are.',
    prepare: (_args, values) => {
      const from = databaseOption('from', values.from);
      const to = databaseOption('to', values.to);
      return {
        standalone: async () => {
          const copied = await copyBetween(from, to);
          const width = Math.max(...copied.map((entry) => entry.table.length));
          const total = copied.reduce((sum, entry) => sum + entry.rows, 0);
          return [
            `Copied ${describeDatabase(from)} to ${describeDatabase(to)}:`,
            ...copied.map((entry) => `  ${entry.table.padEnd(width)}  ${String(entry.rows).padStart(9)}`),
            `  ${'total'.padEnd(width)}  ${String(total).padStart(9)}`,
          ].join('\n');
        },
      };
    },
  },
];

/** `--from`/`--to`: a database URL as DATABASE_URL takes it. @throws UsageError when missing or not one */
function databaseOption(name: 'from' | 'to', value: string | boolean | undefined): DatabaseLocation {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} <sqlite:path|postgres://…> is required.`);
  try {
    return parseDatabaseUrl(value, { name: `--${name}`, poolSize: 2 });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Opens both databases (migrating each, as a server start would), refuses a destination that
 * already holds accounts or a source that holds no Hangar schema (a missing SQLite file, an empty
 * Postgres schema: never created here), copies, and closes both.
 * @throws Refusal in those cases
 */
async function copyBetween(from: DatabaseLocation, to: DatabaseLocation): Promise<CopiedTable[]> {
  const source = await findHangarDatabase(from);
  if (!source.found) throw new Refusal(`--from: ${noDatabaseMessage(source).replace(/; set DATA_DIR.*$/, '.')}`);
  // Warnings (a lost Postgres connection) on stderr, apart from the report on stdout.
  const logger = createLogger({ level: 'warn', format: 'auto' }, undefined, 2);
  const opened = await openDatabase(from, logger, { shortLived: true });
  try {
    const destination = await openDatabase(to, logger, { shortLived: true });
    try {
      return await copyDatabase({ from: opened.db, to: destination.db });
    } catch (error) {
      if (error instanceof DestinationNotEmptyError) throw new Refusal(error.message);
      throw error;
    } finally {
      await destination.close();
    }
  } finally {
    await opened.close();
  }
}

/** A database for messages: the SQLite path, or the Postgres URL without its password. */
function describeDatabase(location: DatabaseLocation): string {
  return location.kind === 'sqlite' ? `sqlite:${location.path}` : redactPostgresUrl(location.url);
}

/** Backups of the embedded data (SQLite and blobs on disk): docs/operations.md, "Backups". */
const BACKUP_COMMANDS: readonly Command[] = [
  {
    name: 'backup',
    args: ['<dir>'],
    optionsSynopsis: '[--allow-empty]',
    options: { 'allow-empty': { type: 'boolean' } },
    summary:
      'A consistent copy of the SQLite database, the small-blob database, every blob file and the JWT secret into a new directory, with manifest.json (sizes, SHA-256); safe while servers run. ' +
      'Refuses a configuration that points at no Hangar database, and an instance without accounts or files unless --allow-empty; prints the accounts, files and bytes it holds.',
    prepare: ([dir], values) => ({
      configured: async (config) => {
        const target = path.resolve(dir);
        const result = await backup(config, target, { allowEmpty: values['allow-empty'] === true }).catch(refuseBackup);
        const bytes = result.manifest.files.reduce((sum, file) => sum + file.size, 0);
        return [
          `Backed up ${plural(result.contents.accounts, 'account')} and ${plural(result.contents.files, 'file')} (${result.contents.fileBytes} bytes of file contents) from ${result.database}`,
          `into ${target}: ${plural(result.manifest.files.length, 'backup file')}, ${bytes} bytes; everything acknowledged before ${result.manifest.started_at} is in it.`,
        ].join('\n');
      },
    }),
  },
  {
    name: 'restore',
    args: ['<dir>'],
    // Into an empty DATA_DIR by design: restore() refuses one that holds a database or blobs.
    createsDatabase: true,
    summary:
      'Restores a backup into the configured DATA_DIR (database and blob directory must not exist yet), after checking every file against manifest.json. Then start the servers and run fsck.',
    prepare: ([dir]) => ({
      configured: async (config) => {
        const manifest = await restore(config, path.resolve(dir)).catch(refuseBackup);
        return `Restored ${manifest.files.length} files from ${path.resolve(dir)} (backup of ${manifest.started_at}).`;
      },
    }),
  },
];

function refuseBackup(error: unknown): never {
  if (error instanceof BackupRefusal) throw new Refusal(error.message);
  throw error;
}

const ALL_COMMANDS: readonly Command[] = [
  ...withAdminState(COMMANDS),
  ...ADMIN_COMMANDS,
  ...withAdminState(INVITE_COMMANDS),
  ...STORAGE_COMMANDS,
  ...MEDIA_COMMANDS,
  ...BLOB_COMMANDS,
  ...DB_COMMANDS,
  ...BACKUP_COMMANDS,
];

function synopsis(command: Command): string {
  return [command.name, ...command.args, command.optionsSynopsis].filter((part) => part !== undefined).join(' ');
}

/** The help text: how to run the CLI, every command with its synopsis, and the exit codes. */
export function usageText(): string {
  return [
    'Hangar admin CLI: manage accounts with the same configuration (environment variables) as the server.',
    '',
    'Usage: hangar <command>   (from a checkout without npm link: npm run cli -- <command>)',
    '',
    'Commands:',
    '  start',
    '      Runs the server: the API and the content server, WORKERS processes (npm start does the same). SIGTERM drains and stops it.',
    ...ALL_COMMANDS.flatMap((c) => [`  ${synopsis(c)}`, `      ${c.summary}`]),
    '  help',
    '      This text (also --help, or no command).',
    '  version',
    '      The version and the commit this build was made from (also --version).',
    '',
    'Dates are ISO 8601: 2030-01-31 (midnight UTC) or 2030-01-31T12:00:00Z.',
    'Every command but init (and restore, into an empty DATA_DIR) refuses a database that does not exist or holds no',
    'Hangar schema: a wrong DATA_DIR or DATABASE_URL never becomes a new, empty instance.',
    'Exit codes: 0 done; 1 refused (no Hangar database, unknown account or plan, invalid e-mail, delete without --yes,',
    'backup of an empty instance without --allow-empty, db copy into a database that holds accounts or from one that',
    'holds no Hangar schema) or fsck found problems;',
    '2 invalid configuration; 64 wrong usage; 70 internal error.',
  ].join('\n');
}

/** What a command line asks for: the help text, one command's work on the service, or standalone work. */
export type Invocation =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; name: string; work: Work; createsDatabase: boolean }
  | { kind: 'standalone'; name: string; run: () => Promise<string> }
  | { kind: 'configured'; name: string; run: (config: Config) => Promise<string> };

/**
 * Parses the arguments after `main.js` (e.g. `['users', 'set-plan', 'a@example.com', 'pro']`).
 * `help`, `--help`, `-h` or nothing asks for the help text.
 * @throws UsageError for an unknown command or option, a missing or extra argument, or a value that does not parse
 */
export function parseInvocation(argv: readonly string[]): Invocation {
  if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  if (argv[0] === 'version' || argv[0] === '--version') return { kind: 'version' };
  const command = ALL_COMMANDS.find((c) => {
    const words = c.name.split(' ');
    return words.every((word, i) => argv[i] === word);
  });
  if (!command) {
    const group = ALL_COMMANDS.filter((c) => c.name.split(' ')[0] === argv[0]).map((c) => c.name.split(' ')[1]);
    if (group.length === 0) throw new UsageError(`unknown command "${argv[0]}".`);
    const what = argv[1] === undefined ? `"${argv[0]}" needs a command` : `unknown command "${argv[0]} ${argv[1]}"`;
    throw new UsageError(`${what}; "${argv[0]}" commands: ${group.join(', ')}.`);
  }
  const words = command.name.split(' ').length;
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv.slice(words), options: command.options ?? {}, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), synopsis(command));
  }
  if (parsed.positionals.length !== command.args.length) {
    const problem =
      parsed.positionals.length < command.args.length
        ? `missing ${command.args.slice(parsed.positionals.length).join(' ')}`
        : `unexpected argument "${parsed.positionals[command.args.length]}"`;
    throw new UsageError(`${command.name}: ${problem}.`, synopsis(command));
  }
  try {
    const work = command.prepare(parsed.positionals, parsed.values);
    if (typeof work === 'function') return { kind: 'run', name: command.name, work, createsDatabase: command.createsDatabase === true };
    return 'configured' in work
      ? { kind: 'configured', name: command.name, run: work.configured }
      : { kind: 'standalone', name: command.name, run: work.standalone };
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${command.name}: ${error.message}`, synopsis(command));
    throw error;
  }
}
