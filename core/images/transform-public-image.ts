import { setTimer } from '../shared/web-globals.js';
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
import type { IdGenerator } from '../shared/id-generator.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { fileNotFound } from '../files/get-file.js';
import { checkSizeLadder, DEFAULT_SIZE_LADDER, type ImageRequest, mimeTypeOf, normaliseImageRequest, snapToLadder, variantName } from './image-params.js';
import type { ImageVariantRepository, VariantKey } from './image-variant-repository.js';
import type { ImageTransform, ImageTransformer } from './image-transformer.js';
import { busy, type TransformSlots } from './transform-slots.js';

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
   * The derived image's bytes: from the blob store when stored, else computed once across processes
   * (concurrent requests for the same variant share one computation, or wait for another
   * process's), counted as one image operation and stored within the bounds (docs/images.md).
   * `size` is known (bytes) when it was computed here.
   * @throws DomainError RATE_LIMITED (429) past the client's limit for new variants,
   *         IMAGE_OPS_LIMIT_REACHED (403), IMAGE_BUSY (503), IMAGE_UNREADABLE / IMAGE_TOO_LARGE (422),
   *         FILE_NOT_FOUND (404) when the source bytes or the file are gone, BLOB_STORE_UNAVAILABLE (503)
   */
  open(): Promise<{ body: AsyncIterable<Uint8Array>; size?: number }>;
}

/** Stored variants per file, by default (`IMAGE_MAX_VARIANTS_PER_FILE`). */
export const DEFAULT_MAX_VARIANTS_PER_FILE = 20;

/** Options of {@link TransformPublicImage}. */
export interface TransformImageOptions {
  /** Variants stored per file (`IMAGE_MAX_VARIANTS_PER_FILE`, default 20); beyond it a new variant is computed and served, not stored. 0 stores none. */
  maxVariantsPerFile?: number;
  /** Widths and heights unsigned requests are snapped up to (`IMAGE_SIZE_LADDER`, px; default {@link DEFAULT_SIZE_LADDER}). */
  sizeLadder?: readonly number[];
  /**
   * Lease of a claim to compute a variant, in ms (default 60 s more than the slot wait): past it,
   * a claim whose process died is taken over. Longer than a computation may take (slot wait + 30 s).
   */
  claimLeaseMs?: number;
  /** How long a request waits for a variant another process is computing, in ms (default 30 s), before 503 IMAGE_BUSY. */
  claimWaitMs?: number;
  /** The slot wait (`IMAGE_QUEUE_TIMEOUT_MS`), for the default lease. */
  queueTimeoutMs?: number;
}

/** What a computation of a variant produced for the requests that waited for it. */
type Produced = { bytes: Uint8Array } | { stored: true };

/**
 * Serves a public image file transformed (`GET /m/:file_id?w=&h=&fit=&format=&q=`, docs/images.md).
 * Finds the file as {@link ReadPublicFile} does (same host rules, one origin read), snaps `w`/`h` of
 * unsigned requests up to the size ladder, normalises the parameters for its type, and names the
 * derived image `<file blob key>/<variant name>` in the blob store, so it is deleted with the file
 * (`BlobStore.deleteUnder`).
 *
 * A variant not yet stored costs the client one point of its rate limit (`RateLimits.imageTransform`),
 * then is computed **once across every process** sharing the database: the request that wins the
 * variant's claim ({@link ImageVariantRepository.claim}) computes it under the {@link TransformSlots}
 * bound, counts it in `image_ops` (spec 2.6), stores it and records it, its bytes counted in the
 * owner's `storage_bytes`; requests in this process share that computation (single flight), and
 * those of other processes wait for the stored variant (at most `claimWaitMs`, then IMAGE_BUSY).
 * A claim whose holder died expires after `claimLeaseMs`. A file holding `maxVariantsPerFile`
 * variants, or an owner whose storage limit a variant would pass, gets new variants computed
 * (and counted) but not stored.
 * A plan's `imageOpsLimit` refuses new computations once the period's count reaches it, exactly
 * across every process sharing the database: a computation under a limit is counted in the
 * stored `image_ops` before it runs ({@link UsageRepository.takeImageOp}, one atomic step) and
 * given back if it fails; stored variants and originals are still served. Without a limit it is
 * counted after it ran, through the {@link UsageMeter}'s batches.
 * @throws DomainError FILE_NOT_FOUND (404), NOT_AN_IMAGE (400)
 */
export class TransformPublicImage {
  /** Productions in progress in this process, by derived blob key: the single flight. */
  private readonly inFlight = new Map<string, Promise<Produced>>();
  private readonly maxVariantsPerFile: number;
  private readonly ladder: readonly number[];
  private readonly leaseMs: number;
  private readonly waitMs: number;

  /** @throws Error for an invalid size ladder or a negative variant cap (configuration bugs) */
  constructor(
    private readonly deps: {
      readPublicFile: ReadPublicFile;
      files: FileRepository;
      blobs: BlobStore;
      variants: ImageVariantRepository;
      transformer: ImageTransformer;
      slots: TransformSlots;
      accounts: AccountPolicy;
      usage: UsageRepository;
      meter: UsageMeter;
      limits: RateLimits;
      ids: IdGenerator;
      clock: Clock;
      options?: TransformImageOptions;
      /** Told about derived images that could not be stored (the request is still answered). */
      onBackgroundError?: (error: unknown) => void;
    },
  ) {
    const options = deps.options ?? {};
    this.maxVariantsPerFile = options.maxVariantsPerFile ?? DEFAULT_MAX_VARIANTS_PER_FILE;
    if (!Number.isInteger(this.maxVariantsPerFile) || this.maxVariantsPerFile < 0)
      throw new Error('The number of stored variants per file must be a whole number of 0 or more.');
    this.ladder = checkSizeLadder(options.sizeLadder ?? DEFAULT_SIZE_LADDER);
    this.leaseMs = options.claimLeaseMs ?? (options.queueTimeoutMs ?? 2_000) + 60_000;
    this.waitMs = options.claimWaitMs ?? 30_000;
  }

  /**
   * @param input.request the checked parameters ({@link parseImageRequest})
   * @param input.accept the request's `Accept`, for `format=auto`
   * @param input.host as for {@link ReadPublicFile}
   * @param input.client the client's address: a variant not yet stored counts one point of its rate limit; none without it
   * @param input.exactSize true to keep `w`/`h` as asked instead of snapping them to the size ladder
   *        (for requests whose parameters the owner vouched for, e.g. signed addresses)
   */
  async execute(input: { fileId: string; host?: string; request: ImageRequest; accept?: string; client?: string; exactSize?: boolean }): Promise<PublicImage> {
    const { file, open } = await this.deps.readPublicFile.execute({ fileId: input.fileId, host: input.host });
    const request = input.exactSize ? input.request : snapToLadder(input.request, this.ladder);
    return this.transformFile({ file, open, request, accept: input.accept, client: input.client });
  }

  /**
   * The transformation of a file already found and allowed by the caller (a signed URL's grant,
   * core/files/read-signed-file.ts), with the parameters exactly as given (no size ladder): the same
   * variants, claims, cache, single flight, slots and image-ops limit as {@link execute}.
   * @param input.client as for {@link execute}: a variant not yet stored counts toward its rate limit; none without it
   * @throws DomainError NOT_AN_IMAGE (400)
   */
  transformFile(input: { file: StoredFile; open: PublicFile['open']; request: ImageRequest; accept?: string; client?: string }): PublicImage {
    const { file, open } = input;
    const { transform, negotiated } = normaliseImageRequest(input.request, file.contentType, input.accept);
    const name = variantName(transform, this.deps.transformer.version);
    const key = `${file.blobKey}/${name}`;
    const openSource = () => open(file.size > 0 ? { start: 0, end: file.size - 1 } : undefined);
    return {
      file,
      etag: `"${file.sha256}-${name}"`,
      contentType: mimeTypeOf(transform.format),
      varyAccept: negotiated,
      open: async () => {
        const cached = await this.deps.blobs.get(key);
        if (cached) return { body: cached };
        await this.deps.limits.imageTransform(input.client);
        const variant: VariantKey = { fileRecordId: file.id, userId: file.userId, variant: name };
        for (let attempt = 0; ; attempt += 1) {
          const produced = await this.produceShared(file, key, variant, transform, openSource);
          if ('bytes' in produced) return { body: once(produced.bytes), size: produced.bytes.length };
          const stored = await this.deps.blobs.get(key);
          if (stored) return { body: stored };
          // Recorded as stored, yet its blob is gone (removed by hand, a lost disk): recorded anew.
          if (attempt > 0) throw busy();
          await this.deps.variants.forget(variant);
        }
      },
    };
  }

  private produceShared(
    file: StoredFile,
    key: string,
    variant: VariantKey,
    transform: ImageTransform,
    openSource: () => Promise<AsyncIterable<Uint8Array>>,
  ): Promise<Produced> {
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.produce(file, key, variant, transform, openSource).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /**
   * Claims the variant and computes it, or waits while another process holds its claim (polling
   * the claim, 20 ms doubling to 250 ms, at most `claimWaitMs`), or computes it without storing
   * when the file's variants are at their cap.
   * @throws DomainError IMAGE_BUSY (503) when the other process has not stored it in time; FILE_NOT_FOUND when the file was deleted
   */
  private async produce(
    file: StoredFile,
    key: string,
    variant: VariantKey,
    transform: ImageTransform,
    openSource: () => Promise<AsyncIterable<Uint8Array>>,
  ): Promise<Produced> {
    let waited = 0;
    let delay = 20;
    for (;;) {
      const token = this.deps.ids.uuid();
      const claim = await this.deps.variants.claim({
        ...variant,
        token,
        now: this.deps.clock.now(),
        leaseMs: this.leaseMs,
        maxPerFile: this.maxVariantsPerFile,
      });
      switch (claim) {
        case 'gone':
          throw fileNotFound();
        case 'stored':
          return { stored: true };
        case 'full':
          return { bytes: (await this.compute(file, transform, openSource)).bytes };
        case 'claimed':
          return { bytes: await this.computeAndStore(file, key, { ...variant, token }, transform, openSource) };
        case 'busy':
          if (waited >= this.waitMs) throw busy();
          await sleep(Math.min(delay, this.waitMs - waited));
          waited += delay;
          delay = Math.min(delay * 2, 250);
      }
    }
  }

  /** Computes the claimed variant, stores it and records it; the claim is released when that fails. */
  private async computeAndStore(
    file: StoredFile,
    key: string,
    claim: VariantKey & { token: string },
    transform: ImageTransform,
    openSource: () => Promise<AsyncIterable<Uint8Array>>,
  ): Promise<Uint8Array> {
    let image: { bytes: Uint8Array; contentType: string; storageLimitBytes: number };
    try {
      image = await this.compute(file, transform, openSource);
    } catch (error) {
      await this.deps.variants.release(claim).catch((failure: unknown) => this.deps.onBackgroundError?.(failure));
      throw error;
    }
    await this.store(file, key, claim, image);
    return image.bytes;
  }

  /** Computes a variant under the slots and the plan's limit, and counts it in `image_ops`. */
  private async compute(
    file: StoredFile,
    transform: ImageTransform,
    openSource: () => Promise<AsyncIterable<Uint8Array>>,
  ): Promise<{ bytes: Uint8Array; contentType: string; storageLimitBytes: number }> {
    const { taken, storageLimitBytes } = await this.takeUnderLimit(file.userId);
    let image: { bytes: Uint8Array; contentType: string };
    try {
      image = await this.deps.slots.run(async () => this.deps.transformer.transform({ source: await openSource(), transform }));
    } catch (error) {
      if (taken)
        await this.deps.usage
          .add([{ userId: file.userId, periodStart: taken.periodStart, originReads: 0, imageOps: -1 }])
          .catch((refund: unknown) => this.deps.onBackgroundError?.(refund));
      throw error;
    }
    if (!taken) this.deps.meter.recordImageOp(file.userId);
    return { bytes: image.bytes, contentType: image.contentType, storageLimitBytes };
  }

  /**
   * Applies the plan's image operation limit: under a limit, counts the operation in the stored
   * `image_ops` now, if the stored count plus this process's unwritten one leaves room
   * ({@link UsageRepository.takeImageOp}, atomic across processes).
   * @returns the period the operation was counted in (give it back if the computation fails), or
   *          undefined without a limit (count it once computed); and the plan's storage limit in bytes
   * @throws DomainError IMAGE_OPS_LIMIT_REACHED (403)
   */
  private async takeUnderLimit(userId: string): Promise<{ taken: { periodStart: Date } | undefined; storageLimitBytes: number }> {
    const { user, standing } = await this.deps.accounts.view(userId);
    const limit = standing.plan.imageOpsLimit;
    const storageLimitBytes = standing.plan.storageLimitBytes;
    if (limit === undefined || limit === null) return { taken: undefined, storageLimitBytes };
    const period = billingPeriodAt(user.createdAt, this.deps.clock.now());
    const pending = this.deps.meter.pendingFor(userId, period).imageOps;
    if (!(await this.deps.usage.takeImageOp({ userId, periodStart: period.start, limit, pending }))) {
      throw new DomainError(
        'IMAGE_OPS_LIMIT_REACHED',
        `This account's plan allows ${limit} image transformations per billing period; they are used up until ${period.end.toISOString()}. Original files are still served.`,
        {
          image_ops_limit: limit,
          period_end: period.end.toISOString(),
        },
      );
    }
    return { taken: { periodStart: period.start }, storageLimitBytes };
  }

  /**
   * Stores a computed variant under `key` and records it (its bytes counted in the owner's storage).
   * A failure only costs a later recomputation: the claim is released. A blob already under `key`
   * (left by a process that died before recording it) is recorded as it is. A variant past the
   * owner's storage limit, or whose file was deleted meanwhile, is removed again.
   */
  private async store(
    file: StoredFile,
    key: string,
    claim: VariantKey & { token: string },
    image: { bytes: Uint8Array; contentType: string; storageLimitBytes: number },
  ): Promise<void> {
    try {
      let sizeBytes = image.bytes.length;
      try {
        await this.deps.blobs.put({ key, body: once(image.bytes), contentType: image.contentType, maxBytes: image.bytes.length });
      } catch (error) {
        const existing = await this.deps.blobs.stat(key);
        if (!existing) throw error;
        sizeBytes = existing.size;
      }
      const recorded = await this.deps.variants.markStored({ ...claim, sizeBytes, storageLimitBytes: image.storageLimitBytes });
      if (recorded === 'storage_limit_reached' || (recorded === 'lost' && !(await this.deps.files.findByFileId(file.fileId)))) {
        await this.deps.blobs.delete(key);
      }
    } catch (error) {
      await this.deps.variants.release(claim).catch(() => undefined);
      this.deps.onBackgroundError?.(error);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimer(resolve, ms));
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
