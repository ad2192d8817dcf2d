import type { UserRepository } from '../accounts/user-repository.js';
import { servesFilesOf } from '../files/serving-owner.js';
import type { PasswordHasher } from '../accounts/password-hasher.js';
import type { BlobStore } from '../files/blob-store.js';
import type { FileReadCounts } from '../files/file-read-counts.js';
import type { FileRepository } from '../files/file-repository.js';
import { openBlob, type OwnFile } from '../files/read-own-file.js';
import { hasExpired, type StoredFile } from '../files/stored-file.js';
import type { UsageMeter } from '../plans/usage-meter.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { shareNotFound } from './manage-shares.js';
import { isShareId, isShareSpent, type Share } from './share.js';
import type { ShareRepository } from './share-repository.js';

/** What a share link's page shows. */
export interface SharePage {
  share: Share;
  file: StoredFile;
  /** A password is asked before the download. */
  needsPassword: boolean;
}

/** Finds a live share and its file. @throws SHARE_NOT_FOUND (404), SHARE_EXPIRED (410) */
async function liveShare(
  deps: { files: FileRepository; users: Pick<UserRepository, 'findById'>; shares: ShareRepository; clock: Clock },
  shareId: string,
): Promise<{ share: Share; file: StoredFile }> {
  const share = isShareId(shareId) ? await deps.shares.findById(shareId) : undefined;
  if (!share) throw shareNotFound();
  const file = await deps.files.findByFileId(share.fileId);
  const now = deps.clock.now();
  if (!file || file.id !== share.fileRecordId || hasExpired(file, now)) throw shareNotFound();
  // A suspended owner's links answer as if revoked (docs/admin.md).
  if (!(await servesFilesOf(deps.users, file.userId))) throw shareNotFound();
  if (isShareSpent(share, now)) throw shareExpired();
  return { share, file };
}

/**
 * `GET /share/:share_id` on the content origin: what the link's page shows (name, size, whether a
 * password is asked). Showing the page counts nothing.
 * @throws DomainError SHARE_NOT_FOUND (404) for an unknown or revoked link, or a deleted file;
 *         SHARE_EXPIRED (410) past its expiry or after its last allowed download
 */
export class ViewShare {
  constructor(private readonly deps: { files: FileRepository; users: Pick<UserRepository, 'findById'>; shares: ShareRepository; clock: Clock }) {}

  async execute(input: { shareId: string }): Promise<SharePage> {
    const { share, file } = await liveShare(this.deps, input.shareId);
    return { share, file, needsPassword: share.passwordHash !== null };
  }
}

/**
 * A download through a share link (`GET` or, with a password, `POST /share/:share_id/download`):
 * the password is checked (attempts per link and client are rate-limited before the hash is
 * even computed), then one download is claimed atomically (exactly `maxDownloads` succeed, however
 * many race for them), then the file is opened. Counts one origin read and one download of the file.
 * @throws DomainError SHARE_NOT_FOUND (404); SHARE_EXPIRED (410); SHARE_PASSWORD_REQUIRED (401) when a
 *         password is asked and none given, SHARE_PASSWORD_INVALID (403) for a wrong one; RATE_LIMITED (429)
 */
export class DownloadShare {
  constructor(
    private readonly deps: {
      files: FileRepository;
      users: Pick<UserRepository, 'findById'>;
      shares: ShareRepository;
      blobs: BlobStore;
      passwords: PasswordHasher;
      limits: RateLimits;
      meter: UsageMeter;
      counts: FileReadCounts;
      clock: Clock;
    },
  ) {}

  /** @param input.client the client's address, for the rate limit of password attempts */
  async execute(input: { shareId: string; password?: string; client?: string }): Promise<OwnFile> {
    const { share, file } = await liveShare(this.deps, input.shareId);
    if (share.passwordHash !== null) {
      if (input.password === undefined || input.password === '') throw new DomainError('SHARE_PASSWORD_REQUIRED', 'This link asks for a password.');
      await this.deps.limits.sharePasswordAttempt({ shareId: share.id, client: input.client });
      const matches = input.password.length <= 4096 && (await this.deps.passwords.verify({ hash: share.passwordHash, password: input.password }));
      if (!matches) throw new DomainError('SHARE_PASSWORD_INVALID', 'The password is not right.');
    }
    if (!(await this.deps.shares.claimDownload({ shareId: share.id, now: this.deps.clock.now() }))) throw shareExpired();
    this.deps.meter.recordRead(file.userId);
    this.deps.counts.record(file.fileId, 'download');
    return { file, open: openBlob(this.deps.blobs, file) };
  }
}

function shareExpired(): DomainError {
  return new DomainError('SHARE_EXPIRED', 'This share link has expired, or its downloads are used up.');
}
