import type { ImageMetadataMode } from '../files/image-metadata/image-metadata-mode.js';
import type { Paged, Window } from '../shared/pagination.js';
import type { OneTimeTokenPurpose } from './one-time-token-repository.js';
import type { Role, User } from './user.js';

/** Fields {@link UserRepository.applyAdminChanges} sets on an account; an absent field stays as it is. */
export interface AdminAccountChanges {
  planName?: string;
  /** Set with `planName` (null lifts the trial). */
  trialEndsAt?: Date | null;
  role?: Role;
  /** A date suspends the account from then; null reinstates it. */
  suspendedAt?: Date | null;
  /** Bytes; null: the service default. */
  maxUploadSizeBytes?: number | null;
  /** Bytes; null: the plan's. */
  storageLimitBytes?: number | null;
  /** null: the plan's. */
  fileCountLimit?: number | null;
}

/** Port: persistence of users. "Not found" is `undefined`. */
export interface UserRepository {
  /**
   * Stores a new user.
   * @returns false (and stores nothing) when a user with the same e-mail already exists
   */
  create(user: User): Promise<boolean>;
  findById(id: string): Promise<User | undefined>;
  /** Looks up by normalised e-mail (exact match on the stored, lower-cased address). */
  findByEmail(email: string): Promise<User | undefined>;
  /** Sets `emailConfirmedAt` (if still null) and `updatedAt`. */
  markEmailConfirmed(options: { userId: string; at: Date }): Promise<void>;
  /** Replaces the password hash and sets `updatedAt`. */
  setPasswordHash(options: { userId: string; passwordHash: string; at: Date }): Promise<void>;
  /** Sets the account's upload limit in bytes (null = service default) and `updatedAt`. */
  setMaxUploadSize(options: { userId: string; maxUploadSizeBytes: number | null; at: Date }): Promise<void>;
  /** Sets what uploads of images keep of their metadata (docs/image-metadata.md) and `updatedAt`. */
  setImageMetadata(options: { userId: string; mode: ImageMetadataMode; at: Date }): Promise<void>;
  /** Moves the account to plan `planName` and sets its trial end (null lifts it), and `updatedAt`. */
  setPlan(options: { userId: string; planName: string; trialEndsAt: Date | null; at: Date }): Promise<void>;
  /** Sets the paid-access fields (billing), and `updatedAt`. Absent fields stay as they are. */
  setSubscription(options: { userId: string; accessUntil?: Date | null; subscriptionCanceledAt?: Date | null; at: Date }): Promise<void>;
  /** Sets the account's role and `updatedAt` (docs/admin.md). */
  setRole(options: { userId: string; role: Role; at: Date }): Promise<void>;
  /** Suspends the account from `suspendedAt`, or reinstates it (null), and sets `updatedAt` (docs/admin.md). */
  setSuspended(options: { userId: string; suspendedAt: Date | null; at: Date }): Promise<void>;
  /** Sets the account's own limits (null: the plan's) and `updatedAt`; an absent field stays as it is. */
  setLimits(options: { userId: string; storageLimitBytes?: number | null; fileCountLimit?: number | null; at: Date }): Promise<void>;
  /** How many accounts are administrators that are not suspended (the last-admin rule, docs/admin.md). */
  countActiveAdmins(): Promise<number>;
  /**
   * Applies every field of `changes` to one account at once, with `updatedAt`, as one transaction:
   * all of them or none. With `keepAnAdmin`, the change is refused (nothing written) when the account
   * is an active administrator (role admin, not suspended) and no other one is left; the check and
   * the write are atomic across processes, so two administrators demoting or suspending each other at
   * the same moment cannot both succeed (the last-admin rule, docs/admin.md).
   * @returns 'applied'; 'last_admin' when refused by the rule; 'not_found' when there is no such account
   */
  applyAdminChanges(options: { userId: string; changes: AdminAccountChanges; keepAnAdmin: boolean; at: Date }): Promise<'applied' | 'last_admin' | 'not_found'>;
  /** Every account, oldest first (created_at, then id, ascending): for administration. */
  list(options: { window: Window }): Promise<Paged<User>>;
  /**
   * Deletes the account and, with it, everything that refers to it in the database (keys,
   * sessions, tokens, file records, totals, usage, logs). Blobs are the caller's job.
   * @returns false when there was no such account
   */
  delete(userId: string): Promise<boolean>;
  /**
   * Atomically claims the right to send one e-mail of `purpose`: sets the purpose's slot
   * (`lastEmailSentAt` for `email_confirmation`, `lastResetEmailSentAt` for `password_reset`) to
   * `now` only when it is null or not after `now - minIntervalMs` (milliseconds). Each purpose has
   * its own slot: claiming one leaves the other as it is.
   * @returns true when claimed (send), false when an e-mail of this purpose went out too recently
   *          (do not send), or there is no such user
   */
  claimEmailSlot(options: { userId: string; purpose: OneTimeTokenPurpose; now: Date; minIntervalMs: number }): Promise<boolean>;
}
