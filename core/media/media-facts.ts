import type { StoredFile } from '../files/stored-file.js';

/**
 * What Hangar knows of a file's picture or sound (issue #63, docs/media.md): each member null when
 * unknown (not an image, audio or video; a container that does not say; an unreadable file).
 */
export interface MediaFacts {
  /** Pixels, as the image is shown: after its EXIF orientation (a portrait photo stored sideways is taller than wide). Images, and videos whose container says. */
  width: number | null;
  /** Pixels, after the EXIF orientation, as {@link width}. */
  height: number | null;
  /** Seconds (fractional) of audio and video, from the container or the stream's frames. */
  durationSeconds: number | null;
  /** ThumbHash (https://evanw.github.io/thumbhash/) of an image, base64 with padding: a ~25-byte placeholder a client decodes while the image loads. */
  thumbhash: string | null;
}

/** Every fact unknown: what a File carries before its facts are computed, and for a file that is no media. */
export const NO_MEDIA_FACTS: Readonly<MediaFacts> = Object.freeze({ width: null, height: null, durationSeconds: null, thumbhash: null });

/**
 * How a file's facts were recorded: `probed` (read from its bytes; members may still be null when
 * the file says nothing of them), `failed` (its bytes could not be read as the media its type
 * claims: every member null). Either way the file has a row and the backfill passes it by.
 */
export type MediaFactsState = 'probed' | 'failed';

/** The part of a file record that computing its facts reads. */
export type MediaSubject = Pick<StoredFile, 'id' | 'blobKey' | 'contentType' | 'size'>;

/**
 * Port: the media facts of files (table `file_media`, migration 0047), one row per file record,
 * removed with the record.
 */
export interface MediaFactsRepository {
  /**
   * Records (or replaces) the facts of the file with record id `fileRecordId`.
   * @returns false when no such file exists (deleted meanwhile): nothing is stored then
   */
  save(options: { fileRecordId: string; facts: MediaFacts; state: MediaFactsState; computedAt: Date }): Promise<boolean>;
  /**
   * The facts of the files among `fileRecordIds` that have a row, by record id, in one read (a
   * listing's page of up to 1,000 files asks once). Files without a row are absent from the map.
   */
  findMany(fileRecordIds: readonly string[]): Promise<Map<string, MediaFacts>>;
  /**
   * Up to `limit` files of any account that have no row yet, in ascending order of record id,
   * after `afterId` (from the start when absent): the backfill walks them in bounded memory, and a
   * rerun starts again where rows are still missing. With `createdBefore`, only files created
   * strictly before it (the runtime's catch-up leaves the files just uploaded to the upload's own probe).
   */
  filesWithout(options: { afterId?: string; limit: number; createdBefore?: Date }): Promise<MediaSubject[]>;
  /** How many files have no row (counted whole: the backfill's total, read once per run). */
  countWithout(): Promise<number>;
}
