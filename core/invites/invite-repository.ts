import type { Invite } from './invite.js';

/** Port: persistence of invites. "Not found" is `undefined`. */
export interface InviteRepository {
  /** @throws the store's error on a duplicate id or token hash */
  create(invite: Invite): Promise<void>;
  /** Every invite, newest first (created_at, then id, descending): for administration; at most `limit`. */
  list(options: { limit: number }): Promise<Invite[]>;
  /**
   * Atomically uses an invite for account `userId`: succeeds once, for an unused, unrevoked invite
   * with `now < expiresAt` (or no expiry), setting `usedAt` and `usedBy`; a conditional update,
   * so two requests (in any processes) never both use one invite.
   * @returns the invite as it now is, or undefined when unknown, used, revoked or expired
   */
  claim(options: { tokenHash: string; userId: string; now: Date }): Promise<Invite | undefined>;
  /** Undoes a claim made for `userId` whose account was not created after all (it is usable again). */
  release(options: { id: string; userId: string }): Promise<void>;
  /**
   * Revokes an unused invite.
   * @returns false when there is no such invite, or it was already used or revoked
   */
  revoke(options: { id: string; now: Date }): Promise<boolean>;
}
