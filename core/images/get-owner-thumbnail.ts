import type { BlobStore } from '../files/blob-store.js';
import type { FileRepository } from '../files/file-repository.js';
import { fileNotFound } from '../files/get-file.js';
import type { StoredFile } from '../files/stored-file.js';
import { mimeTypeOf, normaliseImageRequest, variantName } from './image-params.js';
import type { ImageTransformer } from './image-transformer.js';
import type { TransformSlots } from './transform-slots.js';

/** The side of the owner's thumbnails, in px: a `cover` square, as the dashboard's file tiles show it. */
export const OWNER_THUMBNAIL_SIDE = 320;

/** A thumbnail ready to be served (see {@link GetOwnerThumbnail}). */
export interface OwnerThumbnail {
  file: StoredFile;
  /** Strong ETag, quoted: the source's SHA-256 and the variant name. */
  etag: string;
  /** Always `image/webp`. */
  contentType: string;
  /**
   * The bytes: from the blob store when made before, else computed (under the slots' bound) and stored.
   * @throws DomainError IMAGE_BUSY (503), IMAGE_UNREADABLE / IMAGE_TOO_LARGE (422), FILE_NOT_FOUND (404) when the source bytes are gone
   */
  open(): Promise<{ body: AsyncIterable<Uint8Array>; size?: number }>;
}

/**
 * A 320×320 WebP thumbnail of one of the account's own image files, public or private, for the
 * account holder's own screens (the dashboard's file tiles, docs/dashboard.md). Not metered: it
 * counts neither as an origin read nor as an image operation (spec 2.6 meters what the public
 * reads), and no plan limit refuses it, since browsing one's own files must not use up the plan.
 * The image is the same variant as the public `/m/<id>?w=320&h=320&fit=cover&format=webp`, stored
 * under the same key (`<file blob key>/<variant>`), so it is made once for both and deleted with the file.
 * @throws DomainError FILE_NOT_FOUND (404, also for another account's file), NOT_AN_IMAGE (400)
 */
export class GetOwnerThumbnail {
  constructor(
    private readonly deps: {
      files: FileRepository;
      blobs: BlobStore;
      transformer: ImageTransformer;
      slots: TransformSlots;
      onBackgroundError?: (error: unknown) => void;
    },
  ) {}

  async execute(input: { userId: string; fileId: string }): Promise<OwnerThumbnail> {
    const file = await this.deps.files.findByFileId(input.fileId);
    if (!file || file.userId !== input.userId) throw fileNotFound();
    const { transform } = normaliseImageRequest(
      { width: OWNER_THUMBNAIL_SIDE, height: OWNER_THUMBNAIL_SIDE, fit: 'cover', format: 'webp' },
      file.contentType,
      undefined,
    );
    const name = variantName(transform, this.deps.transformer.version);
    const key = `${file.blobKey}/${name}`;
    return {
      file,
      etag: `"${file.sha256}-${name}"`,
      contentType: mimeTypeOf(transform.format),
      open: async () => {
        const cached = await this.deps.blobs.get(key);
        if (cached) return { body: cached };
        const image = await this.deps.slots.run(async () => {
          const source = await this.deps.blobs.get(file.blobKey, file.size > 0 ? { start: 0, end: file.size - 1 } : undefined);
          if (!source) throw fileNotFound();
          return this.deps.transformer.transform({ source, transform });
        });
        await this.store(file, key, image.bytes, image.contentType);
        return { body: once(image.bytes), size: image.bytes.length };
      },
    };
  }

  /** Stores the thumbnail; a failure only costs a later recomputation. Removes it again if the file was deleted meanwhile. */
  private async store(file: StoredFile, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    try {
      await this.deps.blobs.put({ key, body: once(bytes), contentType, maxBytes: bytes.length });
      if (!(await this.deps.files.findByFileId(file.fileId))) await this.deps.blobs.delete(key);
    } catch (error) {
      this.deps.onBackgroundError?.(error);
    }
  }
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
