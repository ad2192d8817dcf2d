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
