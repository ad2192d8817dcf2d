import type { MfaChallenge, TotpFactor } from '../../../core/accounts/mfa-repository.js';
import type { OneTimeToken } from '../../../core/accounts/one-time-token-repository.js';
import type { RefreshToken, Session } from '../../../core/accounts/session-repository.js';
import type { User } from '../../../core/accounts/user.js';
import type { ActivityLogEntry } from '../../../core/activity/activity-log.js';
import type { ApiKey } from '../../../core/api-keys/api-key.js';
import type { CustomDomain } from '../../../core/domains/custom-domain.js';
import type { AccountTotals } from '../../../core/files/file-repository.js';
import type { ResumableUpload } from '../../../core/files/resumable-upload-repository.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import type { MediaFacts, MediaFactsState } from '../../../core/media/media-facts.js';
import type { PeriodCounts } from '../../../core/plans/usage-repository.js';
import type { Share } from '../../../core/shares/share.js';
import type { UploadUrlGrant } from '../../../core/files/upload-urls.js';
import type { Passkey } from '../../../core/passkeys/passkey.js';
import type { PasskeyChallenge } from '../../../core/passkeys/passkey-challenge-repository.js';
import type { Invite } from '../../../core/invites/invite.js';
import type { OidcFlow, SignInCode } from '../../../core/sso/oidc-flow-repository.js';
import type { OidcIdentityLink } from '../../../core/sso/oidc-identity-repository.js';

/** A row of {@link MemoryDatabase.files}. */
export interface MemoryFileRow {
  file: StoredFile;
  /** The folded name and file id (fileSearchText in file-search.ts), as the SQL adapter stores it. */
  searchText: string;
}

/** A row of {@link MemoryDatabase.resumableUploads}: the upload and its write lease. */
export interface MemoryResumableUploadRow extends ResumableUpload {
  leaseOwner: string | null;
  /** Unix ms. */
  leasedUntil: number | null;
}

/** A row of {@link MemoryDatabase.imageVariants}. */
export interface MemoryImageVariantRow {
  userId: string;
  state: 'computing' | 'stored';
  /** Holder of a `computing` claim. */
  token: string | null;
  /** Unix ms; the end of a `computing` claim's lease. */
  claimedUntil: number;
  sizeBytes: number;
}

/** A row of {@link MemoryDatabase.usagePeriods}. */
export interface MemoryUsageRow extends PeriodCounts {
  userId: string;
  /** Unix ms. */
  periodStart: number;
}

/**
 * The tables of one in-memory store, shared by the memory repositories built over it (see
 * createMemoryRepositories), as one SQL database is shared by the SQL repositories. Rows are
 * owned here: repositories store and hand out copies. Secondary maps are the unique indexes, and
 * {@link deleteUser} plays the schema's ON DELETE CASCADE. Only the memory repositories should
 * touch these Maps; every change of a table must keep its index in step.
 */
export class MemoryDatabase {
  /** `users` by id. */
  readonly users = new Map<string, User>();
  /** Unique index: normalised e-mail → user id. */
  readonly userIdByEmail = new Map<string, string>();
  /** `one_time_tokens` by token hash (unique). */
  readonly oneTimeTokens = new Map<string, OneTimeToken>();
  /** `sessions` by id. */
  readonly sessions = new Map<string, Session>();
  /** `refresh_tokens` by token hash; they belong to a session. */
  /** By token hash; `sealedSuccessor` is what the rotation of a rotated token kept (SessionRepository.rotate). */
  readonly refreshTokens = new Map<string, RefreshToken & { sealedSuccessor?: string | null }>();
  /** `api_keys` by id. */
  readonly apiKeys = new Map<string, ApiKey>();
  /** Unique index: key hash → key id. */
  readonly apiKeyIdByHash = new Map<string, string>();
  /** `files` by record id. */
  readonly files = new Map<string, MemoryFileRow>();
  /** Unique index: public file id → record id. */
  readonly fileRecordIdByFileId = new Map<string, string>();
  /** `image_variants`: by file record id, then variant name (core/images/image-variant-repository.ts). */
  readonly imageVariants = new Map<string, Map<string, MemoryImageVariantRow>>();
  /** `file_media` by file record id (migration 0047); removed with their file. */
  readonly mediaFacts = new Map<string, { facts: MediaFacts; state: MediaFactsState; computedAt: Date }>();
  /** `account_totals` by user id. */
  readonly accountTotals = new Map<string, AccountTotals>();
  /** `resumable_uploads` by upload id. */
  readonly resumableUploads = new Map<string, MemoryResumableUploadRow>();
  /** `usage_periods` by {@link usageKey}. */
  readonly usagePeriods = new Map<string, MemoryUsageRow>();
  /** `activity_logs` by id. */
  readonly activityLogs = new Map<string, ActivityLogEntry>();
  /** `custom_domains` by user id (one per account). */
  readonly customDomains = new Map<string, CustomDomain>();
  /** Unique index: hostname → user id. */
  readonly customDomainUserIdByHostname = new Map<string, string>();
  /** `shares` by id; removed with their file ({@link deleteSharesOf}) or user. */
  readonly shares = new Map<string, Share>();
  /** `users.signing_key` by user id (accounts that signed a URL). */
  readonly signingKeys = new Map<string, string>();
  /** `passkeys` by id. */
  readonly passkeys = new Map<string, Passkey>();
  /** Unique index: credential id → passkey id. */
  readonly passkeyIdByCredentialId = new Map<string, string>();
  /** `passkey_challenges` by challenge. */
  readonly passkeyChallenges = new Map<string, PasskeyChallenge>();
  /** `totp_factors` by user id. */
  readonly totpFactors = new Map<string, TotpFactor>();
  /** `recovery_codes`: by user id, then code hash → when it was used (null: unused). */
  readonly recoveryCodes = new Map<string, Map<string, Date | null>>();
  /** `mfa_challenges` by token hash. */
  readonly mfaChallenges = new Map<string, MfaChallenge>();
  /** `oidc_identities` by {@link oidcKey}. */
  readonly oidcIdentities = new Map<string, OidcIdentityLink>();
  /** `oidc_flows` by state hash. */
  readonly oidcFlows = new Map<string, OidcFlow>();
  /** `oidc_sign_in_codes` by code hash. */
  readonly signInCodes = new Map<string, SignInCode>();
  /** `invites` by id. */
  readonly invites = new Map<string, Invite>();
  /** `upload_urls` by id, with when each was claimed (null: unused); removed with their user. */
  readonly uploadUrls = new Map<string, { grant: UploadUrlGrant; usedAt: Date | null }>();

  /** The key of a row of {@link oidcIdentities}. */
  static oidcKey(issuer: string, subject: string): string {
    return JSON.stringify([issuer, subject]);
  }

  /** The key of an account's row in {@link usagePeriods}; `periodStart` in Unix ms. */
  static usageKey(userId: string, periodStart: number): string {
    return `${userId} ${periodStart}`;
  }

  /** True when the account exists (what a foreign key to `users` checks). */
  hasUser(userId: string): boolean {
    return this.users.has(userId);
  }

  /** Removes the shares and upload URLs made with the API key `apiKeyId` (the schema's cascades, migrations 0043 and 0046). */
  deleteSharesOfApiKey(apiKeyId: string): void {
    for (const [id, share] of this.shares) {
      if (share.apiKeyId === apiKeyId) this.shares.delete(id);
    }
    for (const [id, row] of this.uploadUrls) {
      if (row.grant.apiKeyId === apiKeyId) this.uploadUrls.delete(id);
    }
  }

  /** Removes the shares of the file with record id `fileRecordId` (the schema's cascade). */
  deleteSharesOf(fileRecordId: string): void {
    for (const [id, share] of this.shares) {
      if (share.fileRecordId === fileRecordId) this.shares.delete(id);
    }
  }

  /** Removes the account's `custom_domains` row and its hostname index entry, if any. */
  deleteCustomDomain(userId: string): void {
    const domain = this.customDomains.get(userId);
    if (!domain) return;
    this.customDomains.delete(userId);
    this.customDomainUserIdByHostname.delete(domain.hostname);
  }

  /**
   * Deletes the account and every row that refers to it (tokens, sessions and their refresh
   * tokens, API keys, files, totals, usage, logs, custom domain, passkeys and their challenges), synchronously, so no other call sees it half done.
   * @returns false when there was no such account
   */
  deleteUser(userId: string): boolean {
    const user = this.users.get(userId);
    if (!user) return false;
    this.users.delete(userId);
    this.userIdByEmail.delete(user.email);
    for (const [hash, token] of this.oneTimeTokens) {
      if (token.userId === userId) this.oneTimeTokens.delete(hash);
    }
    const sessionIds = new Set<string>();
    for (const [id, session] of this.sessions) {
      if (session.userId !== userId) continue;
      sessionIds.add(id);
      this.sessions.delete(id);
    }
    for (const [hash, token] of this.refreshTokens) {
      if (sessionIds.has(token.sessionId)) this.refreshTokens.delete(hash);
    }
    for (const [id, key] of this.apiKeys) {
      if (key.userId !== userId) continue;
      this.apiKeys.delete(id);
      this.apiKeyIdByHash.delete(key.keyHash);
    }
    for (const [id, row] of this.files) {
      if (row.file.userId !== userId) continue;
      this.files.delete(id);
      this.fileRecordIdByFileId.delete(row.file.fileId);
      this.imageVariants.delete(id);
      this.mediaFacts.delete(id);
    }
    this.accountTotals.delete(userId);
    for (const [id, row] of this.uploadUrls) {
      if (row.grant.userId === userId) this.uploadUrls.delete(id);
    }
    for (const [id, upload] of this.resumableUploads) {
      if (upload.userId === userId) this.resumableUploads.delete(id);
    }
    for (const [key, row] of this.usagePeriods) {
      if (row.userId === userId) this.usagePeriods.delete(key);
    }
    for (const [id, entry] of this.activityLogs) {
      if (entry.userId === userId) this.activityLogs.delete(id);
    }
    this.deleteCustomDomain(userId);
    this.signingKeys.delete(userId);
    this.totpFactors.delete(userId);
    this.recoveryCodes.delete(userId);
    for (const [hash, challenge] of this.mfaChallenges) {
      if (challenge.userId === userId) this.mfaChallenges.delete(hash);
    }
    for (const [id, share] of this.shares) {
      if (share.userId === userId) this.shares.delete(id);
    }
    for (const [id, passkey] of this.passkeys) {
      if (passkey.userId !== userId) continue;
      this.passkeys.delete(id);
      this.passkeyIdByCredentialId.delete(passkey.credentialId);
    }
    for (const [key, challenge] of this.passkeyChallenges) {
      if (challenge.userId === userId) this.passkeyChallenges.delete(key);
    }
    for (const [key, link] of this.oidcIdentities) {
      if (link.userId === userId) this.oidcIdentities.delete(key);
    }
    for (const [hash, code] of this.signInCodes) {
      if (code.userId === userId) this.signInCodes.delete(hash);
    }
    return true;
  }
}
