import { confirmationEmail, mfaResetEmail } from '../accounts/emails.js';
import type { Mailer } from '../accounts/mailer.js';
import type { MfaRepository } from '../accounts/mfa-repository.js';
import type { OneTimeLinks } from '../accounts/one-time-links.js';
import type { SessionRepository } from '../accounts/session-repository.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { PasskeyRepository } from '../passkeys/passkey-repository.js';
import type { Clock } from '../shared/clock.js';
import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { AdminActor, AdminAuditEntry } from './admin-audit.js';
import type { AdminTrail } from './admin-trail.js';
import type { AdminAuditLog } from './admin-audit-log.js';
import { type AccountRef, accountOf, lastAdmin } from './admin-target.js';
import { DELETE_BATCH, type DeleteAccount } from './delete-account.js';
import type { User } from '../accounts/user.js';
import type { FileRepository } from '../files/file-repository.js';
import { BackgroundWork } from '../shared/background-work.js';
import type { Failpoints } from '../shared/failpoints.js';
import type { IdGenerator } from '../shared/id-generator.js';
import { clearRepeatingTimer, setRepeatingTimer } from '../shared/web-globals.js';
import type { AccountDeletion, AccountDeletionQueue } from './account-deletion-queue.js';
import { DomainError } from '../shared/errors.js';

/**
 * Ends every session of an account (`POST /admin/users/:id/revoke-sessions`, `users revoke-sessions`):
 * its access tokens stop working at once (their session is checked on each request) and its refresh
 * tokens with them. API keys are left as they are. Audited.
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class RevokeAccountSessions {
  constructor(private readonly deps: { users: UserRepository; sessions: SessionRepository; trail: AdminTrail; clock: Clock }) {}

  async execute(input: { actor: AdminActor; account: AccountRef }): Promise<void> {
    const user = await accountOf(this.deps.users, input.account);
    await this.deps.sessions.revokeAllForUser({ userId: user.id, at: this.deps.clock.now() });
    await this.deps.trail.record({ actor: input.actor, action: 'revoke_sessions', target: user });
  }
}

/**
 * Turns every second factor of an account off for its owner who lost them (`POST
 * /admin/users/:id/reset-mfa`, `users reset-mfa`): removes the TOTP factor with its recovery codes
 * and every passkey, ends every session, and mails the owner. The operator must have checked who is
 * asking, by other means. Audited, with the factors there were before.
 * @returns what was removed
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class ResetAccountMfa {
  constructor(
    private readonly deps: {
      users: UserRepository;
      mfa: MfaRepository;
      passkeys: PasskeyRepository;
      sessions: SessionRepository;
      mailer: Mailer;
      trail: AdminTrail;
      clock: Clock;
    },
  ) {}

  async execute(input: { actor: AdminActor; account: AccountRef }): Promise<{ totpRemoved: boolean; passkeysRemoved: number }> {
    const user = await accountOf(this.deps.users, input.account);
    const totpRemoved = (await this.deps.mfa.findTotp(user.id)) !== undefined;
    await this.deps.mfa.deleteTotp(user.id);
    let passkeysRemoved = 0;
    for (const passkey of await this.deps.passkeys.listForUser(user.id)) {
      if (await this.deps.passkeys.delete({ userId: user.id, id: passkey.id })) passkeysRemoved++;
    }
    await this.deps.sessions.revokeAllForUser({ userId: user.id, at: this.deps.clock.now() });
    await this.deps.mailer.send(mfaResetEmail(user.email));
    await this.deps.trail.record({
      actor: input.actor,
      action: 'reset_mfa',
      target: user,
      before: { totp: totpRemoved, passkeys: passkeysRemoved },
      after: { totp: false, passkeys: 0 },
    });
    return { totpRemoved, passkeysRemoved };
  }
}

/**
 * Sends the confirmation e-mail again (`POST /admin/users/:id/resend-confirmation`), at most one a
 * minute per address as for the owner. Audited when one was sent.
 * @returns whether a link went out: false when the address is already confirmed or one was sent less than a minute ago
 * @throws DomainError USER_NOT_FOUND (404)
 */
export class ResendAccountConfirmation {
  constructor(private readonly deps: { users: UserRepository; links: OneTimeLinks; trail: AdminTrail }) {}

  async execute(input: { actor: AdminActor; account: AccountRef }): Promise<{ sent: boolean }> {
    const user = await accountOf(this.deps.users, input.account);
    if (user.emailConfirmedAt !== null) return { sent: false };
    const sent = await this.deps.links.send({ user, purpose: 'email_confirmation', redirectTo: null, compose: confirmationEmail });
    if (sent) await this.deps.trail.record({ actor: input.actor, action: 'resend_confirmation', target: user });
    return { sent };
  }
}

/** What {@link RemoveAccount.start} did: deleted at once, or started in the background. */
export type RemoveAccountOutcome = { state: 'deleted'; deletedFiles: number } | { state: 'deleting'; filesRemaining: number };

/**
 * How long a process holds a background account deletion without renewing its lease, in ms: after
 * a process died, another one resumes its deletions within this (plus ACCOUNT_DELETION_SWEEP_MS).
 * The lease is renewed after every step and every third of this while a step runs.
 */
export const ACCOUNT_DELETION_LEASE_MS = 15_000;

/**
 * Deletes an account and everything of it, as `users delete` does (DeleteAccount: files, blobs,
 * uploads, logs, keys, sessions, in short steps). The account is suspended first, in one
 * transaction with the last-admin rule (UserRepository.applyAdminChanges), so the rule holds across
 * processes and nothing new arrives while it is deleted. A background deletion is recorded
 * (AccountDeletionQueue) and run under a lease by one process at a time: a process that stops
 * releases it between two steps, one that dies lets it lapse, and any process then resumes it
 * ({@link resumePending}, run by HangarRuntime). Audited once the account is gone (the entry keeps
 * the e-mail and the number of files deleted, over every run).
 * @throws DomainError USER_NOT_FOUND (404), LAST_ADMIN (409)
 */
export class RemoveAccount {
  private readonly running: BackgroundWork;
  /** This process's name on the leases it takes. */
  private readonly owner: string;
  private readonly leaseMs: number;
  private stopping = false;

  /** @param deps.leaseMs default {@link ACCOUNT_DELETION_LEASE_MS} */
  constructor(
    private readonly deps: {
      users: UserRepository;
      files: FileRepository;
      deleteAccount: DeleteAccount;
      deletions: AccountDeletionQueue;
      trail: AdminTrail;
      clock: Clock;
      ids: IdGenerator;
      leaseMs?: number;
      onBackgroundError?: (error: unknown) => void;
      /** Crash tests only: `between_account_deletion_steps` is reached after each step's progress is recorded. */
      failpoints?: Failpoints;
    },
  ) {
    this.running = new BackgroundWork(deps.onBackgroundError);
    this.owner = deps.ids.uuid();
    this.leaseMs = deps.leaseMs ?? ACCOUNT_DELETION_LEASE_MS;
  }

  /** Deletes the account while the caller waits (`users delete`). @returns how many files were deleted */
  async execute(input: { actor: AdminActor; account: AccountRef }): Promise<{ deletedFiles: number }> {
    const user = await this.suspended(input.account);
    const result = await this.deps.deleteAccount.execute({ account: { id: user.id } });
    // A background deletion of it, if any, has nothing left to do (its process then writes no entry).
    await this.deps.deletions.remove({ userId: user.id });
    await this.deps.trail.record({ actor: input.actor, action: 'delete_account', target: user, before: { files: result.deletedFiles }, tellAccount: false });
    return { deletedFiles: result.deletedFiles };
  }

  /**
   * Deletes the account (`DELETE /admin/users/:id`): at once when it holds at most one step of files
   * (DELETE_BATCH, 100) and no background deletion of it is recorded, else in the background, in the
   * same short steps, the caller answered with the files left. The deletion is recorded first, so it
   * survives this process; this process takes it at once unless another one holds it. The progress
   * is the account's file count and {@link progress} (`GET /admin/users/:id`) until it is gone (404).
   * A second call while it runs changes nothing and answers the files left.
   */
  async start(input: { actor: AdminActor; account: AccountRef }): Promise<RemoveAccountOutcome> {
    const user = await this.suspended(input.account);
    const { total } = await this.deps.files.list({ userId: user.id, filter: {}, window: { offset: 0, limit: 1 } });
    if (total <= DELETE_BATCH && !(await this.deps.deletions.find(user.id))) {
      const result = await this.deps.deleteAccount.execute({ account: { id: user.id } });
      await this.deps.trail.record({ actor: input.actor, action: 'delete_account', target: user, before: { files: result.deletedFiles }, tellAccount: false });
      return { state: 'deleted', deletedFiles: result.deletedFiles };
    }
    await this.deps.deletions.request({ userId: user.id, email: user.email, requestedAt: this.deps.clock.now(), actor: input.actor });
    if (!this.stopping) {
      const claimed = await this.claim(user.id);
      if (claimed) this.run(claimed);
    }
    return { state: 'deleting', filesRemaining: total };
  }

  /** The account's background deletion in progress, if any (when asked, who asked, files deleted so far). */
  progress(userId: string): Promise<AccountDeletion | undefined> {
    return this.deps.deletions.find(userId);
  }

  /**
   * Takes every recorded deletion no process holds (its process stopped or died) and runs it in the
   * background here. Resolves once they are taken, not done. @returns how many were taken
   */
  async resumePending(): Promise<number> {
    let taken = 0;
    while (!this.stopping) {
      const claimed = await this.claim();
      if (!claimed) break;
      this.run(claimed);
      taken++;
    }
    return taken;
  }

  /** Stops the background deletions between two steps, releasing their leases, and resolves once they have. Never rejects. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running.settled();
  }

  private claim(userId?: string): Promise<AccountDeletion | undefined> {
    const now = this.deps.clock.now();
    return this.deps.deletions.claim({ owner: this.owner, now, until: new Date(now.getTime() + this.leaseMs), userId });
  }

  /** Runs a claimed deletion in the background while the lease holds; its failures go to onBackgroundError. */
  private run(deletion: AccountDeletion): void {
    const { deletions } = this.deps;
    const ours = { userId: deletion.userId, owner: this.owner };
    let held = true;
    const renew = async (filesDeleted: number) => {
      const until = new Date(this.deps.clock.now().getTime() + this.leaseMs);
      if (held) held = await deletions.renew({ ...ours, until, filesDeleted });
    };
    this.running.start(
      (async () => {
        const heartbeat = setRepeatingTimer(() => void renew(0).catch(() => {}), Math.max(1, Math.floor(this.leaseMs / 3)));
        try {
          let deletedFiles = 0;
          if (await this.deps.users.findById(deletion.userId)) {
            const result = await this.deps.deleteAccount.execute({
              account: { id: deletion.userId },
              shouldStop: () => this.stopping || !held,
              afterStep: async (deleted) => {
                deletedFiles += deleted;
                await renew(deleted);
                await this.deps.failpoints?.reach('between_account_deletion_steps');
              },
            });
            if (!result.finished) {
              if (held) await deletions.release(ours);
              return;
            }
          }
          // Gone (here, or by a run that died before it could remove the record): one entry, by whoever removes the record.
          if (await deletions.remove(ours)) {
            const target = { id: deletion.userId, email: deletion.email };
            await this.deps.trail.record({
              actor: deletion.actor,
              action: 'delete_account',
              target,
              before: { files: deletion.filesDeleted + deletedFiles },
              tellAccount: false,
            });
          }
        } catch (error) {
          // Free it for the next sweep (of any process) rather than after the lease lapses.
          await deletions.release(ours).catch(() => {});
          throw error;
        } finally {
          clearRepeatingTimer(heartbeat);
        }
      })(),
    );
  }

  /** The account, suspended (atomically with the last-admin rule) unless it already was. @throws USER_NOT_FOUND, LAST_ADMIN */
  private async suspended(account: AccountRef): Promise<User> {
    const user = await accountOf(this.deps.users, account);
    if (user.suspendedAt !== null) return user;
    const now = this.deps.clock.now();
    const outcome = await this.deps.users.applyAdminChanges({ userId: user.id, changes: { suspendedAt: now }, keepAnAdmin: true, at: now });
    if (outcome === 'last_admin') lastAdmin(user);
    if (outcome === 'not_found') throw new DomainError('USER_NOT_FOUND', 'No account with this id.');
    return user;
  }
}

/** The audit log, newest first (`GET /admin/audit`, `audit list`). @throws DomainError VALIDATION_FAILED (400) for a page out of range */
export class ListAdminAudit {
  constructor(private readonly deps: { audit: AdminAuditLog }) {}

  execute(input: PageRequest & { targetId?: string }): Promise<Paged<AdminAuditEntry>> {
    return this.deps.audit.list({ window: toWindow(input), targetId: input.targetId });
  }
}
