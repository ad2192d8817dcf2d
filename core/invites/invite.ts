/** Who may create an account (`REGISTRATION`): anyone, holders of an invite, or nobody. */
export type RegistrationMode = 'open' | 'invite' | 'closed';

/** A single-use invitation to create an account, stored only as the SHA-256 digest of its token. */
export interface Invite {
  /** UUID. */
  id: string;
  /** SHA-256 hex of the token the invite link carries. */
  tokenHash: string;
  /** The plan the new account gets; null: the default plan. */
  planName: string | null;
  createdAt: Date;
  /** The invite is refused from this instant on; null: it never expires. */
  expiresAt: Date | null;
  /** When an account was created with it; null while unused. */
  usedAt: Date | null;
  /** The account created with it; null while unused (or after that account was deleted). */
  usedBy: string | null;
  /** When an administrator revoked it; null while not revoked. */
  revokedAt: Date | null;
}

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
