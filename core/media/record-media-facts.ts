import type { BlobStore } from '../files/blob-store.js';
import type { Clock } from '../shared/clock.js';
import { isDomainError } from '../shared/errors.js';
import { type MediaFactsRepository, type MediaFactsState, type MediaSubject, NO_MEDIA_FACTS } from './media-facts.js';
import type { MediaProber } from './media-prober.js';

/** What {@link RecordMediaFacts} did with one file: its row's state, or `gone` when the file was deleted meanwhile. */
export type RecordedMediaFacts = MediaFactsState | 'gone';

/**
 * Computes one stored file's media facts from its blob and records them (issue #63, docs/media.md).
 * A file of a type no prober reads (a PDF, a text) is recorded at once with every fact null; an image,
 * audio or video file is read from the blob store as a stream (never the request's body: the facts
 * are computed after the upload is stored). A file whose bytes the prober cannot read (corrupt, or
 * not the type it claims) or whose blob is missing is recorded `failed`, every fact null, so the
 * backfill does not try it again.
 * @throws DomainError BLOB_STORE_UNAVAILABLE, DATABASE_UNAVAILABLE (503) when a store is out of reach: nothing is recorded, a later run retries
 */
export class RecordMediaFacts {
  constructor(private readonly deps: { media: MediaFactsRepository; prober: MediaProber; blobs: BlobStore; clock: Clock }) {}

  async execute(input: { file: MediaSubject }): Promise<RecordedMediaFacts> {
    const { file } = input;
    const { prober, blobs } = this.deps;
    let state: MediaFactsState = 'probed';
    let facts = NO_MEDIA_FACTS;
    if (prober.handles(file.contentType)) {
      try {
        facts = await prober.probe({
          contentType: file.contentType,
          size: file.size,
          read: async (range) => {
            const body = await blobs.get(file.blobKey, range);
            if (!body) throw new Error(`The blob of file ${file.id} is missing.`);
            return body;
          },
        });
      } catch (error) {
        if (isDomainError(error)) throw error;
        state = 'failed';
        facts = NO_MEDIA_FACTS;
      }
    }
    const saved = await this.deps.media.save({ fileRecordId: file.id, facts, state, computedAt: this.deps.clock.now() });
    return saved ? state : 'gone';
  }
}
