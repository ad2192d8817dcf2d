import { expect } from 'chai';
import sharp from 'sharp';
import { SharpImageTransformer } from '../../adapters/images/sharp-image-transformer.js';
import type { ImageTransform } from '../../core/images/image-transformer.js';
import { DomainError } from '../../core/shared/errors.js';
import { animatedGif, corruptPng, describeImage, exifJpeg, pixelAt, pngBomb, solidPng } from '../support/images.js';

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return expect.fail('expected a rejection');
}

const transform = (changes: Partial<ImageTransform>): ImageTransform => ({ fit: 'cover', format: 'webp', ...changes });

describe('SharpImageTransformer', () => {
  const images = new SharpImageTransformer();

  it('names its version from sharp and libvips, in key-safe characters', () => {
    expect(images.version)
      .to.match(/^s\d+_\d+_\d+v\d+_\d+_\d+/)
      .and.match(/^[0-9A-Za-z_]+$/);
  });

  it('encodes each output format with its MIME type and reports the size of one frame', async () => {
    const source = await solidPng(60, 40);
    for (const [format, detected] of [
      ['webp', 'webp'],
      ['avif', 'heif'],
      ['jpeg', 'jpeg'],
      ['png', 'png'],
      ['gif', 'gif'],
    ] as const) {
      const out = await images.transform({ source: once(source), transform: transform({ width: 30, format }) });
      expect(out.contentType, format).to.equal(`image/${format}`);
      expect({ width: out.width, height: out.height }, format).to.deep.equal({ width: 30, height: 20 });
      expect((await describeImage(out.bytes)).format, format).to.equal(detected);
    }
  });

  it('gives smaller output for a lower quality', async () => {
    const source = await exifJpeg(400, 300, 1);
    const low = await images.transform({ source: once(source), transform: transform({ width: 200, format: 'jpeg', quality: 10 }) });
    const high = await images.transform({ source: once(source), transform: transform({ width: 200, format: 'jpeg', quality: 95 }) });
    expect(low.bytes.length).to.be.below(high.bytes.length);
  });

  it('produces the same bytes for the same source and transform (the strong ETag relies on it)', async () => {
    const source = await exifJpeg(300, 200, 6);
    const a = await images.transform({ source: once(source), transform: transform({ width: 100, height: 100, format: 'webp', quality: 80 }) });
    const b = await images.transform({ source: once(source), transform: transform({ width: 100, height: 100, format: 'webp', quality: 80 }) });
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).to.equal(true);
  });

  it('flattens transparency onto white for JPEG', async () => {
    const source = await solidPng(20, 20, { r: 0, g: 0, b: 0, alpha: 0 });
    const out = await images.transform({ source: once(source), transform: transform({ format: 'jpeg' }) });
    expect((await pixelAt(out.bytes, 10, 10)).every((channel) => channel > 240)).to.equal(true);
  });

  it('keeps every frame of an animated GIF for WebP output', async () => {
    const out = await images.transform({ source: once(await animatedGif(40, 30, 4)), transform: transform({ width: 20, format: 'webp' }) });
    expect(await describeImage(out.bytes)).to.include({ pages: 4, width: 20, height: 15 });
  });

  it('refuses a source over maxInputPixels (all frames counted) with IMAGE_TOO_LARGE before decoding', async () => {
    const small = new SharpImageTransformer({ maxInputPixels: 4000 });
    await small.transform({ source: once(await solidPng(60, 60)), transform: transform({ width: 10 }) });
    const animated = await rejection(small.transform({ source: once(await animatedGif(40, 30, 4)), transform: transform({ width: 10 }) }));
    expect((animated as DomainError).code).to.equal('IMAGE_TOO_LARGE');
    const bomb = await rejection(images.transform({ source: once(pngBomb()), transform: transform({ width: 10 }) }));
    expect(bomb).to.be.instanceOf(DomainError);
    expect((bomb as DomainError).code).to.equal('IMAGE_TOO_LARGE');
  });

  it('stops reading a source past maxInputBytes with IMAGE_TOO_LARGE', async () => {
    const tiny = new SharpImageTransformer({ maxInputBytes: 1000 });
    let read = 0;
    async function* endless() {
      for (;;) {
        read += 500;
        yield new Uint8Array(500);
      }
    }
    const error = await rejection(tiny.transform({ source: endless(), transform: transform({ width: 10 }) }));
    expect((error as DomainError).code).to.equal('IMAGE_TOO_LARGE');
    expect(read).to.equal(1500);
  });

  it('answers IMAGE_UNREADABLE for undecodable data, and passes the source’s own error through', async () => {
    const corrupt = await rejection(images.transform({ source: once(corruptPng()), transform: transform({ width: 10 }) }));
    expect((corrupt as DomainError).code).to.equal('IMAGE_UNREADABLE');
    const failure = new DomainError('BLOB_STORE_UNAVAILABLE', 'disk gone');
    async function* failing() {
      yield new Uint8Array(10);
      throw failure;
    }
    expect(await rejection(images.transform({ source: failing(), transform: transform({ width: 10 }) }))).to.equal(failure);
  });

  it('strips EXIF, XMP and ICC metadata from a photo that has them all', async () => {
    const photo = await sharp(await exifJpeg(50, 50, 3))
      .withMetadata({ orientation: 3 })
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>')
      .withIccProfile('p3')
      .jpeg()
      .toBuffer();
    expect(await describeImage(photo)).to.include({ exif: true, xmp: true, icc: true });
    const out = await images.transform({ source: once(photo), transform: transform({ width: 20, format: 'jpeg' }) });
    expect(await describeImage(out.bytes)).to.include({ exif: false, xmp: false, icc: false, orientation: undefined });
  });
});
