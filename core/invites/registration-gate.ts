import { DomainError } from '../shared/errors.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { Clock } from '../shared/clock.js';
import type { PlanCatalog, Plan } from '../plans/plan.js';
import type { InviteRepository } from './invite-repository.js';
import type { RegistrationMode } from './invite.js';

/** What the gate let through: the plan of the new account, and how to give the invite back. */
export interface RegistrationTicket {
  plan: Plan;
  /** Gives the invite back (usable again) when the account was not created after all; a no-op without invite. */
  release(): Promise<void>;
}

/**
 * Decides whether a new account may be created (`REGISTRATION`), for every way an account is
 * created (registration with a password, first sign-in through OIDC). Not a use case.
 * - `open`: always; an invite, if given, is ignored.
 * - `invite`: only with a valid invite, which is used up by this account (single use across
 *   processes: InviteRepository.claim is a conditional update); the invite's plan applies.
 * - `closed`: never.
 */
export class RegistrationGate {
  constructor(private readonly deps: { invites: InviteRepository; digest: SecretDigest; clock: Clock; plans: PlanCatalog; mode: RegistrationMode }) {}

  /** The configured mode. */
  get mode(): RegistrationMode {
    return this.deps.mode;
  }

  /**
   * Lets account `userId` be created, or refuses.
   * @param input.invite the invite token from the link, when the user has one
   * @param input.inviteHash instead of `invite`: its SHA-256 hex (kept by a sign-in in progress in place of the token)
   * @throws DomainError REGISTRATION_CLOSED (403) in `closed` mode; INVITE_REQUIRED (403) in `invite` mode without an invite;
   *         INVITE_INVALID (400) for an unknown, used, revoked or expired invite
   */
  async admit(input: { userId: string; invite?: string; inviteHash?: string }): Promise<RegistrationTicket> {
    const { mode, plans } = this.deps;
    if (mode === 'closed') throw new DomainError('REGISTRATION_CLOSED', 'This server does not accept new accounts.');
    if (mode === 'open') return { plan: plans.defaultPlan, release: async () => {} };
    const tokenHash = input.inviteHash ?? (input.invite ? this.deps.digest.sha256(input.invite) : undefined);
    if (tokenHash === undefined) {
      throw new DomainError('INVITE_REQUIRED', 'New accounts need an invite on this server: use the link from your invitation.');
    }
    const claimed = await this.deps.invites.claim({ tokenHash, userId: input.userId, now: this.deps.clock.now() });
    if (!claimed) throw new DomainError('INVITE_INVALID', 'This invite is not valid: it is unknown, already used, revoked or expired.');
    const plan = (claimed.planName === null ? undefined : plans.find(claimed.planName)) ?? plans.defaultPlan;
    return { plan, release: () => this.deps.invites.release({ id: claimed.id, userId: input.userId }) };
  }
}
