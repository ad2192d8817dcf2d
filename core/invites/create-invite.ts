import { DomainError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { PlanCatalog } from '../plans/plan.js';
import { TOKEN_LENGTH } from '../accounts/account-options.js';
import type { Invite } from './invite.js';
import type { InviteRepository } from './invite-repository.js';

/** Lifetime of an invite when none is given: 7 days, in ms. */
export const DEFAULT_INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface CreateInviteInput {
  /** The plan the invited account gets; absent: the default plan. */
  planName?: string;
  /** How long the invite stays usable, in ms (> 0); absent: {@link DEFAULT_INVITE_TTL_MS}; null: forever. */
  ttlMs?: number | null;
}

export interface CreateInviteResult {
  invite: Invite;
  /** The secret token (base62, 40 characters); only its digest is stored, so it is shown once. */
  token: string;
  /** The dashboard's registration address with the token: `{PUBLIC_API_URL}/#/register?invite=…`. */
  link: string;
}

/**
 * Creates a single-use invite (administration, e.g. `cli invites create`), for `REGISTRATION=invite`.
 * @throws DomainError PLAN_NOT_FOUND (400) for an unknown plan, INVALID_EXPIRY (400) for a lifetime that is not positive
 */
export class CreateInvite {
  constructor(
    private readonly deps: { invites: InviteRepository; plans: PlanCatalog; ids: IdGenerator; digest: SecretDigest; clock: Clock; publicApiUrl: string },
  ) {}

  async execute(input: CreateInviteInput = {}): Promise<CreateInviteResult> {
    if (input.planName !== undefined && !this.deps.plans.find(input.planName)) {
      throw new DomainError('PLAN_NOT_FOUND', `There is no plan named "${input.planName}".`, { plans: this.deps.plans.all().map((p) => p.name) });
    }
    const ttlMs = input.ttlMs === undefined ? DEFAULT_INVITE_TTL_MS : input.ttlMs;
    if (ttlMs !== null && (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)) {
      throw new DomainError('INVALID_EXPIRY', 'An invite must stay valid for a positive duration.');
    }
    const now = this.deps.clock.now();
    const token = this.deps.ids.base62(TOKEN_LENGTH);
    const invite: Invite = {
      id: this.deps.ids.uuid(),
      tokenHash: this.deps.digest.sha256(token),
      planName: input.planName ?? null,
      createdAt: now,
      expiresAt: ttlMs === null ? null : new Date(now.getTime() + ttlMs),
      usedAt: null,
      usedBy: null,
      revokedAt: null,
    };
    await this.deps.invites.create(invite);
    const link = `${this.deps.publicApiUrl}/#/register?invite=${encodeURIComponent(token)}`;
    return { invite, token, link };
  }
}
