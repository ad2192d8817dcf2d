import type { PasswordHasher } from '../accounts/password-hasher.js';
import type { ApiKeyRepository } from '../api-keys/api-key-repository.js';
import { mintingKey } from '../api-keys/minting-key.js';
import type { FileOptions } from '../files/file-options.js';
import { checkExpiry } from '../files/file-expiry.js';
import type { FileRepository } from '../files/file-repository.js';
import { fileNotFound } from '../files/get-file.js';
import { hasExpired, isFileId } from '../files/stored-file.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import { MAX_SHARE_DOWNLOADS, MAX_SHARE_PASSWORD_BYTES, type Share, SHARE_ID_LENGTH } from './share.js';
import type { ShareRepository } from './share-repository.js';

/** A share with its link. */
export interface ShareView {
  share: Share;
  /** `{cdn_url}/share/<share id>`. */
  url: string;
}

/** The link of a share (on the default content URL). */
export function shareView(share: Share, options: Pick<FileOptions, 'publicContentUrl'>): ShareView {
  return { share, url: `${options.publicContentUrl}/share/${share.id}` };
}

/**
 * `POST /files/:id/shares` (docs/private-files.md, as Pingvin Share / Zipline): a link on the content origin
 * that serves one of the user's files, private or public, until `expiresAt` or `maxDownloads`
 * downloads; with a password, only to those who give it (stored as an argon2id hash). Every value
 * is checked before anything is stored. A link made with an API key goes with it: revoking the key
 * removes the link (the repository's cascade), and the link expires no later than the key
 * (docs/api-keys.md, "What outlives a credential"); one made with a session outlives the session.
 * @throws DomainError INVALID_EXPIRY (400) for an expiry not in the future; VALIDATION_FAILED (400)
 *         for a password of more than 1 KiB or an empty one, or max_downloads outside 1–1,000,000;
 *         FILE_NOT_FOUND (404), also for another account's file;
 *         UNAUTHORIZED / API_KEY_EXPIRED (401) when the request's API key was revoked or expired meanwhile
 */
export class CreateShare {
  constructor(
    private readonly deps: {
      files: FileRepository;
      shares: ShareRepository;
      apiKeys: ApiKeyRepository;
      passwords: PasswordHasher;
      ids: IdGenerator;
      clock: Clock;
      options: Pick<FileOptions, 'publicContentUrl'>;
    },
  ) {}

  /** @param input.apiKeyId the API key the request came with, if any (the link is tied to it) */
  async execute(input: { userId: string; fileId: string; expiresAt?: Date; password?: string; maxDownloads?: number; apiKeyId?: string }): Promise<ShareView> {
    const now = this.deps.clock.now();
    let expiresAt = checkExpiry(input.expiresAt ?? null, now);
    if (input.password !== undefined) {
      if (input.password === '') throw new DomainError('VALIDATION_FAILED', 'A share password cannot be empty; leave it out for a link without one.');
      if (utf8Length(input.password) > MAX_SHARE_PASSWORD_BYTES) {
        throw new DomainError('VALIDATION_FAILED', `A share password is at most ${MAX_SHARE_PASSWORD_BYTES} bytes.`);
      }
    }
    const max = input.maxDownloads;
    if (max !== undefined && (!Number.isSafeInteger(max) || max < 1 || max > MAX_SHARE_DOWNLOADS)) {
      throw new DomainError('VALIDATION_FAILED', `max_downloads must be a whole number from 1 to ${MAX_SHARE_DOWNLOADS}.`);
    }
    const file = isFileId(input.fileId) ? await this.deps.files.findByFileId(input.fileId) : undefined;
    if (!file || file.userId !== input.userId || hasExpired(file, now)) throw fileNotFound();
    const minter = input.apiKeyId === undefined ? undefined : await mintingKey(this.deps.apiKeys, { apiKeyId: input.apiKeyId, userId: input.userId, now });
    if (minter?.expiresAt && (expiresAt === null || expiresAt.getTime() > minter.expiresAt.getTime())) expiresAt = new Date(minter.expiresAt.getTime());
    const share: Share = {
      id: this.deps.ids.base62(SHARE_ID_LENGTH),
      userId: input.userId,
      fileId: file.fileId,
      fileRecordId: file.id,
      passwordHash: input.password === undefined ? null : await this.deps.passwords.hash(input.password),
      expiresAt,
      maxDownloads: max ?? null,
      downloads: 0,
      createdAt: now,
      apiKeyId: minter?.id ?? null,
    };
    await this.deps.shares.insert(share);
    return shareView(share, this.deps.options);
  }
}

/** Bytes of `text` in UTF-8 (lone surrogates count as the 3 bytes of U+FFFD). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
