import { confirmationEmail, mfaResetEmail } from '../accounts/emails.js';
import type { Mailer } from '../accounts/mailer.js';
import type { MfaRepository } from '../accounts/mfa-repository.js';
import type { OneTimeLinks } from '../accounts/one-time-links.js';
import type { SessionRepository } from '../accounts/session-repository.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { PasskeyRepository } from '../passkeys/passkey.js';
import type { Clock } from '../shared/clock.js';
import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import type { AdminActor, AdminAuditEntry, AdminAuditLog, AdminTrail } from './admin-audit.js';
import { type AccountRef, accountOf, lastAdmin } from './admin-target.js';
import type { DeleteAccount } from './delete-account.js';

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

/**
 * Deletes an account and everything of it, as `users delete` does (DeleteAccount: files, blobs,
 * uploads, logs, keys, sessions). The account is suspended first, in one transaction with the
 * last-admin rule (UserRepository.applyAdminChanges), so the rule holds across processes; a deletion
 * that fails half-way leaves it suspended. Audited (the entry keeps the e-mail).
 * @returns how many files were deleted
 * @throws DomainError USER_NOT_FOUND (404), LAST_ADMIN (409)
 */
export class RemoveAccount {
  constructor(private readonly deps: { users: UserRepository; deleteAccount: DeleteAccount; trail: AdminTrail; clock: Clock }) {}

  async execute(input: { actor: AdminActor; account: AccountRef }): Promise<{ deletedFiles: number }> {
    const user = await accountOf(this.deps.users, input.account);
    // Suspended first, atomically with the last-admin rule: two administrators deleting each other
    // at the same moment cannot both pass it, and nothing new arrives while the account is deleted.
    const outcome = user.suspendedAt !== null ? 'applied' : await this.deps.users.applyAdminChanges({ userId: user.id, changes: { suspendedAt: this.deps.clock.now() }, keepAnAdmin: true, at: this.deps.clock.now() });
    if (outcome === 'last_admin') lastAdmin(user);
    const result = await this.deps.deleteAccount.execute({ email: user.email });
    await this.deps.trail.record({ actor: input.actor, action: 'delete_account', target: user, before: { files: result.deletedFiles }, tellAccount: false });
    return result;
  }
}

/** The audit log, newest first (`GET /admin/audit`, `audit list`). @throws DomainError VALIDATION_FAILED (400) for a page out of range */
export class ListAdminAudit {
  constructor(private readonly deps: { audit: AdminAuditLog }) {}

  execute(input: PageRequest & { targetId?: string }): Promise<Paged<AdminAuditEntry>> {
    return this.deps.audit.list({ window: toWindow(input), targetId: input.targetId });
  }
}
