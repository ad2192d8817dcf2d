import type { Clock } from '../shared/clock.js';
import type { UploadUrlRepository } from './upload-url-repository.js';

/**
 * The sweep of signed upload URLs (docs/media.md): the grants whose lifetime has passed are deleted
 * (an expired URL answers UPLOAD_URL_INVALID from then on, as it no longer exists; the files it uploaded
 * stay). One DELETE over the `expires_at` index; safe in several processes at once.
 * @returns how many grants were removed
 */
export class ExpireUploadUrls {
  constructor(private readonly deps: { uploadUrls: UploadUrlRepository; clock: Clock }) {}

  async execute(): Promise<number> {
    return this.deps.uploadUrls.deleteExpired(this.deps.clock.now());
  }
}
