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
