import { DomainError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';
import type { Invite } from './invite.js';
import type { InviteRepository } from './invite-repository.js';

/** An invite as administration sees it, with its state at the time of the listing. */
export interface InviteView extends Invite {
  state: 'usable' | 'used' | 'revoked' | 'expired';
}

/** Lists invites, newest first, with their state (administration). */
export class ListInvites {
  constructor(private readonly deps: { invites: InviteRepository; clock: Clock }) {}

  /** @param input.limit at most this many (default 100) */
  async execute(input: { limit?: number } = {}): Promise<InviteView[]> {
    const now = this.deps.clock.now().getTime();
    const invites = await this.deps.invites.list({ limit: input.limit ?? 100 });
    return invites.map((invite) => ({
      ...invite,
      state: invite.usedAt ? 'used' : invite.revokedAt ? 'revoked' : invite.expiresAt && invite.expiresAt.getTime() <= now ? 'expired' : 'usable',
    }));
  }
}

/**
 * Revokes an unused invite: its link stops working.
 * @throws DomainError INVITE_NOT_FOUND (404) when there is no such unused, unrevoked invite
 */
export class RevokeInvite {
  constructor(private readonly deps: { invites: InviteRepository; clock: Clock }) {}

  async execute(input: { id: string }): Promise<void> {
    const revoked = await this.deps.invites.revoke({ id: input.id, now: this.deps.clock.now() });
    if (!revoked) throw new DomainError('INVITE_NOT_FOUND', `There is no unused invite with id ${input.id}.`);
  }
}
