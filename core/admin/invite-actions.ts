import type { CreateInvite, CreateInviteInput, CreateInviteResult } from '../invites/create-invite.js';
import type { RevokeInvite } from '../invites/manage-invites.js';
import type { AdminActor } from './admin-audit.js';
import type { AdminTrail } from './admin-trail.js';

/** Longest lifetime of an invite the admin API creates: 365 days, in seconds (as the CLI's `--expires`). */
export const MAX_INVITE_TTL_SECONDS = 365 * 24 * 3600;

/**
 * Creates an invite as an administrator (`POST /admin/invites`, `invites create`): CreateInvite, then
 * an audit entry `create_invite` with the invite's id, plan and expiry (never its token).
 * @throws what CreateInvite throws: PLAN_NOT_FOUND (400), INVALID_EXPIRY (400)
 */
export class IssueInvite {
  constructor(private readonly deps: { createInvite: CreateInvite; trail: AdminTrail }) {}

  async execute(input: CreateInviteInput & { actor: AdminActor }): Promise<CreateInviteResult> {
    const created = await this.deps.createInvite.execute({ planName: input.planName, ttlMs: input.ttlMs });
    const { invite } = created;
    await this.deps.trail.record({
      actor: input.actor,
      action: 'create_invite',
      after: { invite_id: invite.id, plan: invite.planName, expires_at: invite.expiresAt?.toISOString() ?? null },
    });
    return created;
  }
}

/**
 * Revokes an unused invite as an administrator (`DELETE /admin/invites/:id`, `invites revoke`): RevokeInvite, then
 * an audit entry `revoke_invite`.
 * @throws DomainError INVITE_NOT_FOUND (404)
 */
export class WithdrawInvite {
  constructor(private readonly deps: { revokeInvite: RevokeInvite; trail: AdminTrail }) {}

  async execute(input: { actor: AdminActor; id: string }): Promise<void> {
    await this.deps.revokeInvite.execute({ id: input.id });
    await this.deps.trail.record({
      actor: input.actor,
      action: 'revoke_invite',
      before: { invite_id: input.id, state: 'usable' },
      after: { invite_id: input.id, state: 'revoked' },
    });
  }
}
