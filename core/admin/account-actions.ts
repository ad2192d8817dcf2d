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
  constructor(private readonly deps: { users: UserRepository; mfa: MfaRepository; passkeys: PasskeyRepository; sessions: SessionRepository; mailer: Mailer; trail: AdminTrail; clock: Clock }) {}

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
      actor: input.actor, action: 'reset_mfa', target: user,
      before: { totp: totpRemoved, passkeys: passkeysRemoved }, after: { totp: false, passkeys: 0 },
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
 * Deletes an account and everything of it, as `users delete` does (DeleteAccount: files, blobs,
 * uploads, logs, keys, sessions, in short steps). The account is suspended first, in one
 * transaction with the last-admin rule (UserRepository.applyAdminChanges), so the rule holds across
 * processes and nothing new arrives while it is deleted; a deletion that stops half-way leaves it
 * suspended, and deleting it again resumes. Audited once the account is gone (the entry keeps the
 * e-mail and the number of files deleted by that call).
 * @throws DomainError USER_NOT_FOUND (404), LAST_ADMIN (409)
 */
export class RemoveAccount {
  private readonly running: BackgroundWork;
  /** Account ids being deleted in the background by this process (a second DELETE answers their progress). */
  private readonly inProgress = new Set<string>();
  private stopping = false;

  constructor(private readonly deps: { users: UserRepository; files: FileRepository; deleteAccount: DeleteAccount; trail: AdminTrail; clock: Clock; onBackgroundError?: (error: unknown) => void }) {
    this.running = new BackgroundWork(deps.onBackgroundError);
  }

  /** Deletes the account while the caller waits (`users delete`). @returns how many files were deleted */
  async execute(input: { actor: AdminActor; account: AccountRef }): Promise<{ deletedFiles: number }> {
    const user = await this.suspended(input.account);
    const result = await this.deps.deleteAccount.execute({ email: user.email });
    await this.deps.trail.record({ actor: input.actor, action: 'delete_account', target: user, before: { files: result.deletedFiles }, tellAccount: false });
    return { deletedFiles: result.deletedFiles };
  }

  /**
   * Deletes the account (`DELETE /admin/users/:id`): at once when it holds at most one step of files
   * (DELETE_BATCH, 100), else in the background on this process, in the same short steps, the
   * caller answered with the files left; the progress is the account's file count (`GET
   * /admin/users/:id`) until it is gone (404). The background deletion stops between steps when
   * the process stops ({@link stop}); the account then stays suspended until deleted again.
   */
  async start(input: { actor: AdminActor; account: AccountRef }): Promise<RemoveAccountOutcome> {
    const user = await this.suspended(input.account);
    const { total } = await this.deps.files.list({ userId: user.id, filter: {}, window: { offset: 0, limit: 1 } });
    if (total <= DELETE_BATCH) {
      const result = await this.deps.deleteAccount.execute({ email: user.email });
      await this.deps.trail.record({ actor: input.actor, action: 'delete_account', target: user, before: { files: result.deletedFiles }, tellAccount: false });
      return { state: 'deleted', deletedFiles: result.deletedFiles };
    }
    if (!this.inProgress.has(user.id)) {
      this.inProgress.add(user.id);
      this.running.start(
        (async () => {
          const result = await this.deps.deleteAccount.execute({ email: user.email, shouldStop: () => this.stopping });
          if (result.finished) await this.deps.trail.record({ actor: input.actor, action: 'delete_account', target: user, before: { files: result.deletedFiles }, tellAccount: false });
        })().finally(() => this.inProgress.delete(user.id)),
      );
    }
    return { state: 'deleting', filesRemaining: total };
  }

  /** Stops the background deletions between two steps and resolves once they have. Never rejects. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running.settled();
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
