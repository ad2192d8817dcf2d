import type { Passkey } from './passkey.js';

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
