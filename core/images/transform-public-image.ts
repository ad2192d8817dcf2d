import type { FileRepository } from '../files/file-repository.js';
import type { BlobStore } from '../files/blob-store.js';
import type { PublicFile, ReadPublicFile } from '../files/read-public-file.js';
import type { StoredFile } from '../files/stored-file.js';
import type { AccountPolicy } from '../plans/account-policy.js';
import { billingPeriodAt } from '../plans/billing-period.js';
import type { UsageMeter } from '../plans/usage-meter.js';
import type { UsageRepository } from '../plans/usage-repository.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { type ImageRequest, mimeTypeOf, normaliseImageRequest, variantName } from './image-params.js';
import type { ImageTransform, ImageTransformer } from './image-transformer.js';
import type { TransformSlots } from './transform-slots.js';

/** A derived image ready to be served: what is known before computing it, and a way to get its bytes. */
export interface PublicImage {
  file: StoredFile;
  /** Strong ETag, quoted: the source's SHA-256 and the variant name (same bytes for the same pair). */
  etag: string;
  /** MIME type of the derived image, e.g. `image/webp`. */
  contentType: string;
  /** True when the format was negotiated from `Accept` (`format=auto`): the response must say `Vary: Accept`. */
  varyAccept: boolean;
  /**
   * The derived image's bytes: from the blob store when cached, else computed once (concurrent
   * requests for the same variant share one computation), counted as one image operation and stored.
   * `size` is known (bytes) when it was computed here.
   * @throws DomainError IMAGE_OPS_LIMIT_REACHED (403), IMAGE_BUSY (503), IMAGE_UNREADABLE / IMAGE_TOO_LARGE (422),
   *         FILE_NOT_FOUND (404) when the source bytes are gone, BLOB_STORE_UNAVAILABLE (503)
   */
  open(): Promise<{ body: AsyncIterable<Uint8Array>; size?: number }>;
}

/**
 * Serves a public image file transformed (`GET /m/:file_id?w=&h=&fit=&format=&q=`, docs/images.md).
 * Finds the file as {@link ReadPublicFile} does (same host rules, one origin read), normalises the
 * parameters for its type, and names the derived image `<file blob key>/<variant name>` in the blob
 * store, so it is deleted with the file (`BlobStore.deleteUnder`). A cache miss is computed once
 * per variant in this process, under the {@link TransformSlots} bound, and counted in `image_ops`
 * (spec 2.6) after it succeeds. A plan's `imageOpsLimit` refuses new computations once the period's
 * count reaches it (exact within this process: admitted computations are reserved before they run;
 * other processes' unflushed counts can add up to 2 s of their work);
 * cached variants and originals are still served.
 * @throws DomainError FILE_NOT_FOUND (404), NOT_AN_IMAGE (400)
 */
export class TransformPublicImage {
  /** Computations in progress, by derived blob key: the single flight. */
  private readonly inFlight = new Map<string, Promise<Uint8Array>>();
  /** Computations admitted under a plan limit and not yet counted, by account. */
  private readonly reserved = new Map<string, number>();

  constructor(
    private readonly deps: {
      readPublicFile: ReadPublicFile;
      files: FileRepository;
      blobs: BlobStore;
      transformer: ImageTransformer;
      slots: TransformSlots;
      accounts: AccountPolicy;
      usage: UsageRepository;
      meter: UsageMeter;
      clock: Clock;
      /** Told about derived images that could not be stored (the request is still answered). */
      onBackgroundError?: (error: unknown) => void;
    },
  ) {}

  /**
   * @param input.request the checked parameters ({@link parseImageRequest})
   * @param input.accept the request's `Accept`, for `format=auto`
   * @param input.host as for {@link ReadPublicFile}
   */
  async execute(input: { fileId: string; host?: string; request: ImageRequest; accept?: string }): Promise<PublicImage> {
    const { file, open } = await this.deps.readPublicFile.execute({ fileId: input.fileId, host: input.host });
    return this.transformFile({ file, open, request: input.request, accept: input.accept });
  }

  /**
   * The transformation of a file already found and allowed by the caller (a signed URL's grant,
   * core/files/read-signed-file.ts), with the parameters exactly as given: the same variants,
   * cache, single flight, slots and image-ops limit as {@link execute}.
   * @throws DomainError NOT_AN_IMAGE (400)
   */
  transformFile(input: { file: StoredFile; open: PublicFile['open']; request: ImageRequest; accept?: string }): PublicImage {
    const { file, open } = input;
    const { transform, negotiated } = normaliseImageRequest(input.request, file.contentType, input.accept);
    const name = variantName(transform, this.deps.transformer.version);
    const key = `${file.blobKey}/${name}`;
    return {
      file,
      etag: `"${file.sha256}-${name}"`,
      contentType: mimeTypeOf(transform.format),
      varyAccept: negotiated,
      open: async () => {
        const cached = await this.deps.blobs.get(key);
        if (cached) return { body: cached };
        const bytes = await this.computeShared(file, key, transform, () => open(file.size > 0 ? { start: 0, end: file.size - 1 } : undefined));
        return { body: once(bytes), size: bytes.length };
      },
    };
  }

  private computeShared(file: StoredFile, key: string, transform: ImageTransform, openSource: () => Promise<AsyncIterable<Uint8Array>>): Promise<Uint8Array> {
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.compute(file, key, transform, openSource).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async compute(file: StoredFile, key: string, transform: ImageTransform, openSource: () => Promise<AsyncIterable<Uint8Array>>): Promise<Uint8Array> {
    const limited = await this.checkLimit(file.userId);
    try {
      const image = await this.deps.slots.run(async () => this.deps.transformer.transform({ source: await openSource(), transform }));
      this.deps.meter.recordImageOp(file.userId);
      await this.store(file, key, image.bytes, image.contentType);
      return image.bytes;
    } finally {
      if (limited) this.adjustReserved(file.userId, -1);
    }
  }

  /**
   * Applies the plan's image operation limit, counting what is written, what this process has
   * recorded, and what it has admitted but not yet counted. The reservations are read and taken in
   * one synchronous step after the last await, so concurrent checks in this process cannot both
   * take the last operation.
   * @returns true when a reservation was taken (release it when done)
   * @throws DomainError IMAGE_OPS_LIMIT_REACHED (403)
   */
  private async checkLimit(userId: string): Promise<boolean> {
    const { user, standing } = await this.deps.accounts.view(userId);
    const limit = standing.plan.imageOpsLimit;
    if (limit === undefined || limit === null) return false;
    const period = billingPeriodAt(user.createdAt, this.deps.clock.now());
    const written = await this.deps.usage.get({ userId, periodStart: period.start });
    const used = written.imageOps + this.deps.meter.pendingFor(userId, period).imageOps + (this.reserved.get(userId) ?? 0);
    if (used >= limit) {
      throw new DomainError('IMAGE_OPS_LIMIT_REACHED', `This account's plan allows ${limit} image transformations per billing period; they are used up until ${period.end.toISOString()}. Original files are still served.`, {
        image_ops_limit: limit,
        period_end: period.end.toISOString(),
      });
    }
    this.adjustReserved(userId, 1);
    return true;
  }

  private adjustReserved(userId: string, by: number): void {
    const count = (this.reserved.get(userId) ?? 0) + by;
    if (count > 0) this.reserved.set(userId, count);
    else this.reserved.delete(userId);
  }

  /**
   * Stores a computed image under `key`; a failure only costs a later recomputation. If the file was
   * deleted while this ran (after its derived images were removed), removes what was just stored.
   */
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
