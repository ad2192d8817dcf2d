import { expect } from 'chai';
import { SharpImageTransformer } from '../../adapters/images/sharp-image-transformer.js';
import {
  createHangar,
  type HangarOptions,
  type ImageRequest,
  type ImageTransform,
  type ImageTransformer,
  normaliseImageRequest,
  parseImageRequest,
  TransformSlots,
} from '../../core/index.js';
import { animatedGif, corruptPng, describeImage, exifJpeg, pixelAt, pngBomb, solidPng } from '../support/images.js';
import { bodyOf, collect, createMemoryHangar, expectDomainError, gate, MIB, settle, withTrialPlan } from '../support/memory-hangar.js';

/** The real sharp transformer, counting its calls; `hold` keeps every call waiting until opened. */
class CountingTransformer implements ImageTransformer {
  calls = 0;
  hold: Promise<void> | undefined;
  constructor(private readonly inner: ImageTransformer = new SharpImageTransformer()) {}
  get version(): string {
    return this.inner.version;
  }
  async transform(options: { source: AsyncIterable<Uint8Array>; transform: ImageTransform }) {
    this.calls += 1;
    await this.hold;
    return this.inner.transform(options);
  }
}

async function world(
  options: {
    imageOpsLimit?: number | null;
    storageLimitBytes?: number;
    images?: HangarOptions['images'];
    rateLimits?: HangarOptions['rateLimits'];
    transformer?: ImageTransformer;
  } = {},
) {
  const transformer = options.transformer ?? new CountingTransformer();
  const w = createMemoryHangar(
    {
      defaultMaxUploadSizeBytes: MIB,
      ...withTrialPlan({ storageLimitBytes: options.storageLimitBytes ?? 10 * MIB, imageOpsLimit: options.imageOpsLimit }),
      images: options.images,
      rateLimits: options.rateLimits,
    },
    () => ({ images: transformer }),
  );
  const alice = await w.registerConfirmed('alice@example.com');
  const uploadImage = async (bytes: Uint8Array, contentType = 'image/jpeg') =>
    (await w.upload(alice.userId, { body: bodyOf(bytes), contentType, fileName: 'pic' })).file;
  /**
   * Asks for a variant and reads it whole, as the content server would. Sizes are taken exactly as
   * asked (`exactSize`), unless `options.ladder`: the size ladder has tests of its own.
   */
  const fetchVariant = async (fileId: string, request: ImageRequest, accept?: string, options: { ladder?: boolean; client?: string } = {}) => {
    const image = await w.hangar.transformPublicImage.execute({ fileId, request, accept, exactSize: !options.ladder, client: options.client });
    const opened = await image.open();
    return { image, bytes: await collect(opened.body) };
  };
  const imageOps = async () => (await w.usage(alice.userId)).imageOps;
  return { ...w, alice, transformer: transformer as CountingTransformer, uploadImage, fetchVariant, imageOps };
}

describe('Image parameters (parseImageRequest, normaliseImageRequest)', () => {
  it('reads w, h, fit, format and q, and ignores other parameters', () => {
    expect(parseImageRequest({ w: '320', h: '200', fit: 'contain', format: 'webp', q: '70', v: 'cache-buster' })).to.deep.equal({
      width: 320,
      height: 200,
      fit: 'contain',
      format: 'webp',
      quality: 70,
    });
  });

  it('answers undefined without image parameters, so the original is served', () => {
    expect(parseImageRequest({})).to.equal(undefined);
    expect(parseImageRequest({ download: '1' })).to.equal(undefined);
  });

  for (const [query, parameter] of [
    [{ w: '0' }, 'w'],
    [{ w: '4097' }, 'w'],
    [{ h: '-5' }, 'h'],
    [{ w: '12.5' }, 'w'],
    [{ w: '' }, 'w'],
    [{ w: 'abc' }, 'w'],
    [{ fit: 'stretch' }, 'fit'],
    [{ format: 'gif' }, 'format'],
    [{ format: 'WEBP' }, 'format'],
    [{ q: '0' }, 'q'],
    [{ q: '101' }, 'q'],
    [{ w: ['10', '20'] }, 'w'],
  ] as const) {
    it(`refuses ${JSON.stringify(query)} with INVALID_TRANSFORM naming ${parameter}`, async () => {
      const error = await expectDomainError(
        Promise.resolve().then(() => parseImageRequest(query)),
        'INVALID_TRANSFORM',
      );
      expect((error.details as { parameter: string }).parameter).to.equal(parameter);
    });
  }

  it('accepts the bounds 1 and 4096 px and quality 1 and 100', () => {
    expect(parseImageRequest({ w: '1', h: '4096', q: '100' })).to.deep.equal({ width: 1, height: 4096, quality: 100 });
    expect(parseImageRequest({ q: '1' })).to.deep.equal({ quality: 1 });
  });

  it('negotiates format=auto from Accept: AVIF, then WebP, else JPEG for a JPEG and PNG for the rest', () => {
    const auto = (accept: string | undefined, type = 'image/jpeg') => normaliseImageRequest({ format: 'auto' }, type, accept);
    expect(auto('image/avif,image/webp,*/*')).to.deep.include({ negotiated: true }).and.nested.include({ 'transform.format': 'avif' });
    expect(auto('image/webp,*/*;q=0.8').transform.format).to.equal('webp');
    expect(auto('image/avif;q=0, image/webp').transform.format).to.equal('webp');
    expect(auto('*/*').transform.format).to.equal('jpeg');
    expect(auto(undefined, 'image/gif').transform.format).to.equal('png');
  });

  it('keeps the source format when none is asked, and gives equal requests one normal form', () => {
    expect(normaliseImageRequest({ width: 100 }, 'image/png', undefined)).to.deep.equal({
      transform: { width: 100, height: undefined, fit: 'cover', format: 'png', quality: undefined },
      negotiated: false,
    });
    const a = normaliseImageRequest({ width: 100, fit: 'contain', format: 'webp' }, 'image/jpeg', undefined);
    const b = normaliseImageRequest({ width: 100, format: 'webp', quality: 80 }, 'image/jpeg', undefined);
    expect(a).to.deep.equal(b);
  });

  it('refuses parameters on a file that is not a raster image with NOT_AN_IMAGE', async () => {
    for (const type of ['text/plain', 'image/svg+xml', 'application/pdf']) {
      await expectDomainError(
        Promise.resolve().then(() => normaliseImageRequest({ width: 10 }, type, undefined)),
        'NOT_AN_IMAGE',
      );
    }
  });
});

describe('TransformPublicImage', function () {
  this.timeout(20_000);

  it('applies the EXIF orientation, resizes, converts and strips metadata (golden: 64×48 JPEG, orientation 6 → 24×32 WebP)', async () => {
    const w = await world();
    const source = await exifJpeg(64, 48, 6);
    expect(await describeImage(source)).to.include({ width: 64, height: 48, orientation: 6, exif: true });
    const file = await w.uploadImage(source);
    const { image, bytes } = await w.fetchVariant(file.fileId, { width: 24, format: 'webp' });
    expect(image.contentType).to.equal('image/webp');
    expect(await describeImage(bytes)).to.deep.equal({
      format: 'webp',
      width: 24,
      height: 32,
      pages: 1,
      orientation: undefined,
      exif: false,
      xmp: false,
      icc: false,
    });
    // Shown upright, the stored left half (red) is on top: orientation 6 turns the image 90° clockwise.
    const [r, , b] = await pixelAt(bytes, 12, 4);
    expect(r).to.be.above(150);
    expect(b).to.be.below(80);
  });

  it('fits both sides as asked: cover crops to the box, inside keeps the ratio within it, fill stretches', async () => {
    const w = await world();
    const file = await w.uploadImage(await solidPng(80, 40), 'image/png');
    const size = async (request: ImageRequest) => {
      const { bytes } = await w.fetchVariant(file.fileId, request);
      const { width, height, format } = await describeImage(bytes);
      return { width, height, format };
    };
    expect(await size({ width: 30, height: 30, fit: 'cover' })).to.deep.equal({ width: 30, height: 30, format: 'png' });
    expect(await size({ width: 30, height: 30, fit: 'inside' })).to.deep.equal({ width: 30, height: 15, format: 'png' });
    expect(await size({ width: 30, height: 30, fit: 'contain', format: 'jpeg' })).to.deep.equal({ width: 30, height: 30, format: 'jpeg' });
    expect(await size({ width: 30, height: 10, fit: 'fill', format: 'avif' })).to.deep.equal({ width: 30, height: 10, format: 'heif' });
    expect(await size({ width: 20, height: 20, fit: 'outside' })).to.deep.equal({ width: 40, height: 20, format: 'png' });
  });

  it('never enlarges: a 4096 px request on an 80 px image gives 80 px', async () => {
    const w = await world();
    const file = await w.uploadImage(await solidPng(80, 40), 'image/png');
    const { bytes } = await w.fetchVariant(file.fileId, { width: 4096, format: 'webp' });
    expect(await describeImage(bytes)).to.include({ width: 80, height: 40 });
  });

  it('keeps an animated GIF animated as WebP, and takes its first frame for PNG', async () => {
    const w = await world();
    const file = await w.uploadImage(await animatedGif(40, 30, 3), 'image/gif');
    const webp = await w.fetchVariant(file.fileId, { width: 20, format: 'webp' });
    expect(await describeImage(webp.bytes)).to.include({ format: 'webp', width: 20, height: 15, pages: 3 });
    const png = await w.fetchVariant(file.fileId, { width: 20, format: 'png' });
    expect(await describeImage(png.bytes)).to.include({ format: 'png', width: 20, height: 15, pages: 1 });
    // The first frame is red.
    expect((await pixelAt(png.bytes, 10, 7))[0]).to.be.above(200);
  });

  it('computes a variant once: the second request reads the cache and image_ops stays at 1', async () => {
    const w = await world();
    const file = await w.uploadImage(await exifJpeg());
    const first = await w.fetchVariant(file.fileId, { width: 32, format: 'webp' });
    expect(await w.imageOps()).to.equal(1);
    const second = await w.fetchVariant(file.fileId, { width: 32, format: 'webp', quality: 80 });
    expect(second.bytes.equals(first.bytes)).to.equal(true);
    expect(second.image.etag).to.equal(first.image.etag);
    expect(w.transformer.calls).to.equal(1);
    expect(await w.imageOps()).to.equal(1);
    await w.fetchVariant(file.fileId, { width: 33, format: 'webp' });
    expect(await w.imageOps()).to.equal(2);
  });

  it('gives each variant its own strong ETag, made of the source hash and the variant', async () => {
    const w = await world();
    const file = await w.uploadImage(await exifJpeg());
    const a = await w.hangar.transformPublicImage.execute({ fileId: file.fileId, request: { width: 32, format: 'webp' } });
    const b = await w.hangar.transformPublicImage.execute({ fileId: file.fileId, request: { width: 32, format: 'png' } });
    expect(a.etag)
      .to.match(/^"[0-9a-f]{64}-[0-9A-Za-z_-]+"$/)
      .and.contain(file.sha256);
    expect(a.etag).to.not.equal(b.etag);
    expect(a.varyAccept).to.equal(false);
    const auto = await w.hangar.transformPublicImage.execute({ fileId: file.fileId, request: { width: 32, format: 'auto' }, accept: 'image/webp' });
    expect(auto.varyAccept).to.equal(true);
    expect(auto.etag).to.equal(a.etag);
  });

  it('computes a new variant once for 8 concurrent requests and counts one image operation', async () => {
    const w = await world();
    const file = await w.uploadImage(await exifJpeg());
    const held = gate();
    w.transformer.hold = held.promise;
    const requests = Array.from({ length: 8 }, () => w.fetchVariant(file.fileId, { width: 16, format: 'png' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    held.open();
    const results = await Promise.all(requests);
    expect(w.transformer.calls).to.equal(1);
    expect(new Set(results.map((r) => r.bytes.toString('base64'))).size).to.equal(1);
    expect(await w.imageOps()).to.equal(1);
  });

  it('stores the variant under the file’s key and deletes it with the file', async () => {
    const w = await world();
    const file = await w.uploadImage(await exifJpeg());
    await w.fetchVariant(file.fileId, { width: 16, format: 'webp' });
    await w.fetchVariant(file.fileId, { width: 17, format: 'png' });
    const derived = w.blobs.putKeys.filter((key) => key.startsWith(`${file.blobKey}/`));
    expect(derived).to.have.length(2);
    expect(await w.blobs.liveKeys()).to.include.members(derived);
    await w.hangar.deleteFile.execute({ userId: w.alice.userId, fileId: file.fileId });
    expect(await w.blobs.liveKeys()).to.deep.equal([]);
  });

  it('deletes variants on bulk delete and account delete too', async () => {
    const w = await world();
    const one = await w.uploadImage(await exifJpeg());
    const two = await w.uploadImage(await exifJpeg(40, 40, 1));
    await w.fetchVariant(one.fileId, { width: 16 });
    await w.fetchVariant(two.fileId, { width: 16 });
    await w.hangar.bulkDeleteFiles.execute({ userId: w.alice.userId, ids: [one.fileId] });
    expect((await w.blobs.liveKeys()).some((key) => key.startsWith(one.blobKey))).to.equal(false);
    expect((await w.blobs.liveKeys()).filter((key) => key.startsWith(two.blobKey))).to.have.length(2);
    await w.hangar.deleteAccount.execute({ email: 'alice@example.com' });
    expect(await w.blobs.liveKeys()).to.deep.equal([]);
  });

  it('removes a variant that finished computing after its file was deleted', async () => {
    const w = await world();
    const file = await w.uploadImage(await exifJpeg());
    const held = gate();
    w.transformer.hold = held.promise;
    const pending = w.fetchVariant(file.fileId, { width: 16, format: 'webp' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await w.hangar.deleteFile.execute({ userId: w.alice.userId, fileId: file.fileId });
    held.open();
    await pending;
    expect(await w.blobs.liveKeys()).to.deep.equal([]);
  });

  it('refuses new transformations past the plan’s image_ops_limit, still serving cached variants and originals', async () => {
    const w = await world({ imageOpsLimit: 2 });
    const file = await w.uploadImage(await exifJpeg());
    await w.fetchVariant(file.fileId, { width: 10 });
    await w.fetchVariant(file.fileId, { width: 11 });
    const refused = await expectDomainError(w.fetchVariant(file.fileId, { width: 12 }), 'IMAGE_OPS_LIMIT_REACHED');
    expect(refused.details).to.include({ image_ops_limit: 2 });
    expect(await w.imageOps()).to.equal(2);
    expect((await w.fetchVariant(file.fileId, { width: 10 })).bytes.length).to.be.above(0);
    const original = await w.hangar.readPublicFile.execute({ fileId: file.fileId });
    expect((await collect(await original.open())).length).to.equal(file.size);
  });

  it('lets exactly the limit through when distinct new variants arrive together', async () => {
    const w = await world({ imageOpsLimit: 3 });
    const file = await w.uploadImage(await exifJpeg());
    const { values, codes } = await settle(Array.from({ length: 8 }, (_, i) => w.fetchVariant(file.fileId, { width: 10 + i })));
    expect(values).to.have.length(3);
    expect(codes).to.deep.equal(Array(5).fill('IMAGE_OPS_LIMIT_REACHED'));
    expect(await w.imageOps()).to.equal(3);
  });

  it('gives the operation back when the transformation fails: the limit is spent only on variants computed', async () => {
    const sharp = new SharpImageTransformer();
    let failures = 1;
    const transformer: ImageTransformer = {
      version: sharp.version,
      async transform(options) {
        if (failures-- > 0) throw new Error('the transformer crashed');
        return sharp.transform(options);
      },
    };
    const w = await world({ imageOpsLimit: 1, transformer });
    const file = await w.uploadImage(await exifJpeg());
    const [failed] = await Promise.allSettled([w.fetchVariant(file.fileId, { width: 10 })]);
    expect(failed.status === 'rejected' && String(failed.reason)).to.include('the transformer crashed');
    expect(await w.imageOps()).to.equal(0);
    expect((await w.fetchVariant(file.fileId, { width: 10 })).bytes.length).to.be.above(0);
    expect(await w.imageOps()).to.equal(1);
  });

  it('counts the limit from the start of each billing period', async () => {
    const w = await world({ imageOpsLimit: 1 });
    const file = await w.uploadImage(await exifJpeg());
    await w.fetchVariant(file.fileId, { width: 10 });
    await expectDomainError(w.fetchVariant(file.fileId, { width: 11 }), 'IMAGE_OPS_LIMIT_REACHED');
    await w.hangar.usageMeter.flush();
    w.clock.advance(32 * 24 * 60 * 60 * 1000);
    await w.fetchVariant(file.fileId, { width: 11 });
    expect(await w.imageOps()).to.equal(1);
  });

  it('answers IMAGE_BUSY when every slot stays taken past the queue timeout, and computes nothing for it', async () => {
    const w = await world({ images: { concurrency: 1, queueTimeoutMs: 30 } });
    const file = await w.uploadImage(await exifJpeg());
    const held = gate();
    w.transformer.hold = held.promise;
    const first = w.fetchVariant(file.fileId, { width: 10 });
    const busy = await expectDomainError(w.fetchVariant(file.fileId, { width: 11 }), 'IMAGE_BUSY');
    expect(busy.details).to.deep.equal({ retry_after_seconds: 1 });
    held.open();
    await first;
    expect(w.transformer.calls).to.equal(1);
    expect(await w.imageOps()).to.equal(1);
  });

  it('refuses a decompression bomb (a 274-byte PNG claiming 2.5 gigapixels) with IMAGE_TOO_LARGE, counting nothing', async () => {
    const w = await world();
    const bomb = pngBomb();
    expect(bomb.length).to.be.below(300);
    const file = await w.uploadImage(bomb, 'image/png');
    const started = Date.now();
    await expectDomainError(w.fetchVariant(file.fileId, { width: 10 }), 'IMAGE_TOO_LARGE');
    expect(Date.now() - started).to.be.below(2_000);
    expect(await w.imageOps()).to.equal(0);
  });

  it('answers IMAGE_UNREADABLE for an image that cannot be decoded (garbage after a PNG signature, a truncated JPEG)', async () => {
    const w = await world();
    const file = await w.uploadImage(corruptPng(), 'image/png');
    await expectDomainError(w.fetchVariant(file.fileId, { width: 10 }), 'IMAGE_UNREADABLE');
    const truncated = (await exifJpeg(200, 200, 1)).subarray(0, 600);
    const cut = await w.uploadImage(truncated, 'image/jpeg');
    await expectDomainError(w.fetchVariant(cut.fileId, { width: 10 }), 'IMAGE_UNREADABLE');
    expect(await w.imageOps()).to.equal(0);
  });

  it('answers NOT_AN_IMAGE for a text file and FILE_NOT_FOUND for a private image', async () => {
    const w = await world();
    const text = (await w.upload(w.alice.userId, { size: 50, contentType: 'text/plain' })).file;
    await expectDomainError(w.hangar.transformPublicImage.execute({ fileId: text.fileId, request: { width: 10 } }), 'NOT_AN_IMAGE');
    const hidden = (await w.upload(w.alice.userId, { body: bodyOf(await exifJpeg()), contentType: 'image/jpeg', isPublic: false })).file;
    await expectDomainError(w.hangar.transformPublicImage.execute({ fileId: hidden.fileId, request: { width: 10 } }), 'FILE_NOT_FOUND');
  });
});

describe('TransformSlots', () => {
  it('runs at most `concurrency` at once and hands slots over in arrival order', async () => {
    const slots = new TransformSlots({ concurrency: 2, queueTimeoutMs: 1_000 });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        slots.run(async () => {
          running += 1;
          peak = Math.max(peak, running);
          order.push(i);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running -= 1;
        }),
      ),
    );
    expect(peak).to.equal(2);
    expect(order).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(slots.active).to.equal(0);
  });

  it('refuses at once when the waiting line is full', async () => {
    const slots = new TransformSlots({ concurrency: 1, queueTimeoutMs: 1_000, maxWaiting: 1 });
    const held = gate();
    const running = slots.run(() => held.promise);
    const waiting = slots.run(async () => 'second');
    await expectDomainError(
      slots.run(async () => 'third'),
      'IMAGE_BUSY',
    );
    held.open();
    await running;
    expect(await waiting).to.equal('second');
  });
});

describe('TransformPublicImage: variants bounded (size ladder, per-file cap, storage, rate limit) and claimed once across processes', () => {
  const variantKeys = (w: Awaited<ReturnType<typeof world>>, blobKey: string) =>
    w.blobs.liveKeys().then((keys) => keys.filter((key) => key.startsWith(`${blobKey}/`)));

  it('snaps w and h of an unsigned request up to the size ladder, so nearby sizes share one stored variant; exactSize keeps them', async () => {
    const w = await world();
    const file = await w.uploadImage(await exifJpeg(640, 480, 1));
    const a = await w.fetchVariant(file.fileId, { width: 100, format: 'png' }, undefined, { ladder: true });
    const b = await w.fetchVariant(file.fileId, { width: 120, format: 'png' }, undefined, { ladder: true });
    expect((await describeImage(a.bytes)).width).to.equal(128);
    expect(b.image.etag).to.equal(a.image.etag);
    expect(w.transformer.calls).to.equal(1);
    const exact = await w.fetchVariant(file.fileId, { width: 100, format: 'png' });
    expect((await describeImage(exact.bytes)).width).to.equal(100);
    const above = await w.fetchVariant(file.fileId, { width: 4000, height: 17, format: 'png', fit: 'fill' }, undefined, { ladder: true });
    expect(await describeImage(above.bytes)).to.include({ width: 640, height: 32 });
  });

  it('snaps to a configured ladder', async () => {
    const w = await world({ images: { sizeLadder: [50, 200] } });
    const file = await w.uploadImage(await exifJpeg(640, 480, 1));
    const { bytes } = await w.fetchVariant(file.fileId, { width: 51, format: 'png' }, undefined, { ladder: true });
    expect((await describeImage(bytes)).width).to.equal(200);
  });

  it('stores at most maxVariantsPerFile variants of a file; beyond that it computes, serves and counts each request without storing', async () => {
    const w = await world({ images: { maxVariantsPerFile: 2 } });
    const file = await w.uploadImage(await exifJpeg(200, 200, 1));
    await w.fetchVariant(file.fileId, { width: 16, format: 'png' });
    await w.fetchVariant(file.fileId, { width: 32, format: 'png' });
    const third = await w.fetchVariant(file.fileId, { width: 64, format: 'png' });
    expect((await describeImage(third.bytes)).width).to.equal(64);
    await w.fetchVariant(file.fileId, { width: 64, format: 'png' });
    expect(await variantKeys(w, file.blobKey)).to.have.length(2);
    expect(await w.imageOps()).to.equal(4);
    // The stored ones are still served from the store.
    await w.fetchVariant(file.fileId, { width: 16, format: 'png' });
    expect(w.transformer.calls).to.equal(4);
  });

  it('counts stored variants in the owner’s storage_bytes, and deleting the file releases them with it', async () => {
    const w = await world();
    const file = await w.uploadImage(await exifJpeg(200, 200, 1));
    const { bytes } = await w.fetchVariant(file.fileId, { width: 64, format: 'png' });
    expect(await w.totals(w.alice.userId)).to.deep.equal({ storageBytes: file.size + bytes.length, filesCount: 1 });
    await w.hangar.deleteFile.execute({ userId: w.alice.userId, fileId: file.fileId });
    expect(await w.totals(w.alice.userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    expect(await variantKeys(w, file.blobKey)).to.deep.equal([]);
  });

  it('serves, but does not store, a variant that would take the owner past the storage limit', async () => {
    const source = await exifJpeg(200, 200, 1);
    const w = await world({ storageLimitBytes: source.length + 10 });
    const file = await w.uploadImage(source);
    const { bytes } = await w.fetchVariant(file.fileId, { width: 64, format: 'png' });
    expect(bytes.length).to.be.above(10);
    expect(await variantKeys(w, file.blobKey)).to.deep.equal([]);
    expect((await w.totals(w.alice.userId)).storageBytes).to.equal(source.length);
  });

  it('rate-limits new variants per client address with RATE_LIMITED, while stored variants and other clients are still served', async () => {
    const w = await world({ rateLimits: { imageTransformsPerClientPerMinute: 2 } });
    const file = await w.uploadImage(await exifJpeg(200, 200, 1));
    await w.fetchVariant(file.fileId, { width: 16, format: 'png' }, undefined, { client: '203.0.113.7' });
    await w.fetchVariant(file.fileId, { width: 32, format: 'png' }, undefined, { client: '203.0.113.7' });
    const refused = await expectDomainError(w.fetchVariant(file.fileId, { width: 64, format: 'png' }, undefined, { client: '203.0.113.7' }), 'RATE_LIMITED');
    expect((refused.details as { retry_after_seconds: number }).retry_after_seconds).to.be.within(1, 60);
    await w.fetchVariant(file.fileId, { width: 16, format: 'png' }, undefined, { client: '203.0.113.7' });
    await w.fetchVariant(file.fileId, { width: 64, format: 'png' }, undefined, { client: '198.51.100.1' });
    expect(w.transformer.calls).to.equal(3);
  });

  it('computes a new variant once when two processes (two cores on one store) are asked for it at once', async () => {
    const w = await world();
    const file = await w.uploadImage(await exifJpeg(400, 300, 1));
    // A second process: its own use cases (own single flight, own meter) over the same database and blobs.
    const other = createHangar(w.ports, w.options);
    const held = gate();
    w.transformer.hold = held.promise;
    const ask = (hangar: typeof w.hangar) =>
      hangar.transformPublicImage
        .execute({ fileId: file.fileId, request: { width: 128, format: 'webp' } })
        .then(async (image) => collect((await image.open()).body));
    const results = Array.from({ length: 10 }, (_, i) => ask(i % 2 ? other : w.hangar));
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.open();
    const bodies = await Promise.all(results);
    expect(w.transformer.calls).to.equal(1);
    expect(new Set(bodies.map((b) => b.toString('base64'))).size).to.equal(1);
    // Nothing is flushed yet: each process's usage is its own pending count.
    expect((await w.usage(w.alice.userId)).imageOps + (await other.getUsage.execute({ userId: w.alice.userId })).imageOps).to.equal(1);
  });

  it('takes over the claim of a process that died once its lease expired; until then waits, then answers IMAGE_BUSY', async () => {
    const w = await world({ images: { claimWaitMs: 100 } });
    const file = await w.uploadImage(await exifJpeg(200, 200, 1));
    const name = (await w.hangar.transformPublicImage.execute({ fileId: file.fileId, request: { width: 64, format: 'png' } })).etag
      .split('-')
      .slice(1)
      .join('-')
      .replace(/"$/, '');
    const dead = { fileRecordId: file.id, userId: w.alice.userId, variant: name, token: 'dead process', now: w.clock.now(), leaseMs: 62_000, maxPerFile: 20 };
    expect(await w.ports.imageVariants.claim(dead)).to.equal('claimed');
    await expectDomainError(w.fetchVariant(file.fileId, { width: 64, format: 'png' }), 'IMAGE_BUSY');
    expect(w.transformer.calls).to.equal(0);
    w.clock.advance(62_000);
    const { bytes } = await w.fetchVariant(file.fileId, { width: 64, format: 'png' });
    expect((await describeImage(bytes)).width).to.equal(64);
    expect(w.transformer.calls).to.equal(1);
    expect(await w.imageOps()).to.equal(1);
  });
});
