/**
 * A passkey: a WebAuthn public key credential registered to an account (W3C WebAuthn Level 3,
 * §4 "credential record"). Only public material is stored: the private key never leaves the
 * authenticator, so nothing here is secret.
 */
export interface Passkey {
  /** UUID: the id of the passkey in the API (`/auth/passkeys/:id`). */
  id: string;
  userId: string;
  /** The owner's label ("Laptop", "Phone"), 1–100 characters. */
  name: string;
  /** The credential id the authenticator chose, base64url (WebAuthn §6.1); unique across accounts. */
  credentialId: string;
  /** The credential public key as a COSE_Key (RFC 9052 §7), base64url. */
  publicKey: string;
  /** The authenticator's signature counter at the last ceremony (WebAuthn §6.1.1); 0 when it keeps none. */
  counter: number;
  /** How the client may reach the authenticator (`internal`, `usb`, `hybrid`, `nfc`, `ble`), as it reported them. */
  transports: string[];
  createdAt: Date;
  /** The last sign-in with it; null before the first. */
  lastUsedAt: Date | null;
}

/** Longest passkey name, in characters. */
export const PASSKEY_NAME_MAX_LENGTH = 100;

/** True when `id` has the shape of a passkey id (a UUID), so malformed ids answer "not found" without a query. */
export function isPasskeyId(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}

/** Port: the passkeys of every account. */
export interface PasskeyRepository {
  /**
   * Stores a new passkey.
   * @returns false (and stores nothing) when a passkey with the same `credentialId` exists, of any account
   */
  insert(passkey: Passkey): Promise<boolean>;
  /** The account's passkeys, oldest first. */
  listForUser(userId: string): Promise<Passkey[]>;
  /** The passkey with this credential id (an indexed lookup), of any account. */
  findByCredentialId(credentialId: string): Promise<Passkey | undefined>;
  /** Renames one of the account's passkeys; undefined when the account has no passkey `id`. */
  rename(options: { userId: string; id: string; name: string }): Promise<Passkey | undefined>;
  /** Deletes one of the account's passkeys; false when the account has no passkey `id`. */
  delete(options: { userId: string; id: string }): Promise<boolean>;
  /**
   * Records a sign-in: sets the counter to `counter` and `lastUsedAt` to `at`, only while the stored
   * counter is still `previousCounter` (a compare-and-set, so two sign-ins with the same counter
   * value, from two processes, cannot both pass).
   * @returns false when the passkey is gone or its counter changed since it was read
   */
  recordUse(options: { id: string; previousCounter: number; counter: number; at: Date }): Promise<boolean>;
}
