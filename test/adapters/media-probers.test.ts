import { expect } from 'chai';
import sharp from 'sharp';
import { thumbHashToAverageRGBA, thumbHashToRGBA } from 'thumbhash';
import { CompositeMediaProber } from '../../adapters/media/composite-media-prober.js';
import { IsobmffVideoMediaProber } from '../../adapters/media/isobmff-video-media-prober.js';
import { MusicMetadataMediaProber } from '../../adapters/media/music-metadata-media-prober.js';
import { SharpMediaProber } from '../../adapters/media/sharp-media-prober.js';
import type { ByteRange } from '../../core/files/blob-store.js';
import type { ProbeInput } from '../../core/media/media-prober.js';
import { makePdf } from '../support/bytes.js';
import { runNode } from '../support/cli-process.js';
import { exifJpeg, solidPng } from '../support/images.js';
import { isoBox, makeMp4, makeWav, streamedWav } from '../support/media.js';

/** A probe input over bytes in memory that records every read (whole or range) and the bytes it handed out. */
function inputOf(bytes: Uint8Array, contentType: string) {
  const reads: (ByteRange | undefined)[] = [];
  let bytesRead = 0;
  const input: ProbeInput = {
    contentType,
    size: bytes.length,
    read: async (range) => {
      reads.push(range);
      const part = range ? bytes.subarray(range.start, range.end + 1) : bytes;
      return (async function* () {
        for (let at = 0; at < part.length; at += 16 * 1024) {
          const chunk = part.subarray(at, at + 16 * 1024);
          bytesRead += chunk.length;
          yield chunk;
        }
      })();
    },
  };
  return { input, reads, bytesRead: () => bytesRead };
}

describe('media probers (sharp, ISOBMFF boxes, music-metadata)', function () {
  this.timeout(30_000);
  const images = new SharpMediaProber();
  const videos = new IsobmffVideoMediaProber();
  const sounds = new MusicMetadataMediaProber();
  const probers = new CompositeMediaProber([images, videos, sounds]);

  it('gives a JPEG with EXIF orientation 6 its shown size (sides swapped) and a thumbhash of the same aspect', async () => {
    const jpeg = await exifJpeg(64, 48, 6);
    expect((await sharp(jpeg).metadata()).orientation).to.equal(6);
    const facts = await probers.probe(inputOf(jpeg, 'image/jpeg').input);
    expect(facts).to.include({ width: 48, height: 64, durationSeconds: null });
    const placeholder = thumbHashToRGBA(Buffer.from(facts.thumbhash!, 'base64'));
    // The placeholder is drawn upright: taller than wide, as the photo is shown.
    expect(placeholder.h).to.be.greaterThan(placeholder.w);
    expect(placeholder.rgba.length).to.equal(placeholder.w * placeholder.h * 4);
  });

  it('gives a PNG its size and a thumbhash whose colour is the image’s', async () => {
    const png = await solidPng(300, 100, { r: 200, g: 20, b: 20, alpha: 1 });
    const facts = await probers.probe(inputOf(png, 'image/png').input);
    expect(facts).to.include({ width: 300, height: 100, durationSeconds: null });
    const { w, h, rgba } = thumbHashToRGBA(Buffer.from(facts.thumbhash!, 'base64'));
    expect(w).to.be.greaterThan(h);
    const middle = (Math.floor(h / 2) * w + Math.floor(w / 2)) * 4;
    expect(rgba[middle]).to.be.greaterThan(150);
    expect(rgba[middle + 1]).to.be.lessThan(80);
  });

  it('keeps no finished libvips operation (or its image) in memory after probes', async () => {
    // A process that loads sharp only through the adapters, as the server does. (sharp ships an ES
    // module build and a CommonJS one, and each sets libvips's cache to its defaults when loaded:
    // this test process loads both, in an order of mocha's choosing.)
    const module = (relative: string) => JSON.stringify(import.meta.resolve(relative));
    const script = `
      import { createRequire } from 'node:module';
      const { SharpMediaProber } = await import(${module('../../adapters/media/sharp-media-prober.js')});
      const { makePng } = await import(${module('../support/bytes.js')});
      const prober = new SharpMediaProber();
      const facts = [];
      for (const side of [40, 300]) {
        const png = Buffer.from(makePng(side, side));
        facts.push(await prober.probe({ contentType: 'image/png', size: png.length, read: async () => [png] }));
      }
      const cache = createRequire(${module('../../adapters/images/sharp-library.js')})('sharp').cache();
      console.log(JSON.stringify({ widths: facts.map((f) => f.width), items: cache.items, memory: cache.memory.current }));`;
    const result = await runNode(['--input-type=module', '-e', script]);
    expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal({ widths: [40, 300], items: { current: 0, max: 0 }, memory: 0 });
  });

  it('gives images of a few pixels a placeholder of their own colour all over, and those of 32–100 pixels one of their shape', async () => {
    for (const [width, height] of [
      [1, 1],
      [3, 2],
    ]) {
      const facts = await probers.probe(inputOf(await solidPng(width, height, { r: 200, g: 50, b: 10, alpha: 1 }), 'image/png').input);
      expect(facts).to.include({ width, height });
      const { rgba } = thumbHashToRGBA(Buffer.from(facts.thumbhash!, 'base64'));
      // A thumbhash of the pixels as they are would draw colour fringes around them (off by 70 on average).
      let worst = 0;
      for (let i = 0; i < rgba.length; i += 4) worst = Math.max(worst, Math.abs(rgba[i] - 200), Math.abs(rgba[i + 1] - 50), Math.abs(rgba[i + 2] - 10));
      expect(worst, `${width} × ${height}`).to.be.lessThan(25);
    }
    const facts = await probers.probe(inputOf(await solidPng(64, 40, { r: 20, g: 20, b: 200, alpha: 1 }), 'image/png').input);
    expect(facts).to.include({ width: 64, height: 40 });
    const { w, h } = thumbHashToRGBA(Buffer.from(facts.thumbhash!, 'base64'));
    expect(w / h).to.be.closeTo(64 / 40, 0.2);
  });

  it('gives grey, grey with alpha, RGB and RGBA images (sharp writes them as RGB or RGBA) a placeholder of their colour and transparency', async () => {
    const solid = (channels: 3 | 4, background: { r: number; g: number; b: number; alpha?: number }) =>
      sharp({ create: { width: 120, height: 80, channels, background } });
    const cases = [
      {
        name: 'grey (1 channel)',
        bytes: await solid(3, { r: 90, g: 90, b: 90 }).toColourspace('b-w').png().toBuffer(),
        type: 'image/png',
        channels: 1,
        rgb: [90, 90, 90],
        alpha: 1,
      },
      {
        name: 'grey and alpha (2 channels)',
        bytes: await solid(4, { r: 90, g: 90, b: 90, alpha: 0.5 }).toColourspace('b-w').png().toBuffer(),
        type: 'image/png',
        channels: 2,
        rgb: [90, 90, 90],
        alpha: 0.5,
      },
      {
        name: 'RGB (3 channels)',
        bytes: await solid(3, { r: 30, g: 160, b: 40 }).jpeg().toBuffer(),
        type: 'image/jpeg',
        channels: 3,
        rgb: [30, 160, 40],
        alpha: 1,
      },
      {
        name: 'RGBA (4 channels)',
        bytes: await solid(4, { r: 30, g: 40, b: 200, alpha: 0.5 }).png().toBuffer(),
        type: 'image/png',
        channels: 4,
        rgb: [30, 40, 200],
        alpha: 0.5,
      },
    ];
    for (const one of cases) {
      expect((await sharp(one.bytes).metadata()).channels, one.name).to.equal(one.channels);
      const facts = await probers.probe(inputOf(one.bytes, one.type).input);
      const average = thumbHashToAverageRGBA(Buffer.from(facts.thumbhash!, 'base64'));
      expect(
        [average.r, average.g, average.b].map((value) => Math.round(value * 255)).every((value, i) => Math.abs(value - one.rgb[i]) <= 12),
        `${one.name}: ${JSON.stringify(average)}`,
      ).to.equal(true);
      expect(average.a, one.name).to.be.closeTo(one.alpha, 0.1);
    }
  });

  it('reads only the head of an image over its byte ceiling: the size from the header, no thumbhash', async () => {
    const png = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .png()
      .toBuffer();
    const small = new SharpMediaProber({ maxInputBytes: 64 * 1024, headBytes: 4 * 1024 });
    const probe = inputOf(png, 'image/png');
    expect(png.length).to.be.greaterThan(256 * 1024);
    expect(await small.probe(probe.input)).to.deep.equal({ width: 600, height: 400, durationSeconds: null, thumbhash: null });
    expect(probe.reads).to.deep.equal([{ start: 0, end: 4 * 1024 - 1 }]);
    expect(probe.bytesRead()).to.equal(4 * 1024);
  });

  it('gives a WAV its duration, and no size or thumbhash', async () => {
    expect(await probers.probe(inputOf(makeWav(2.5), 'audio/wav').input)).to.deep.equal({ width: null, height: null, durationSeconds: 2.5, thumbhash: null });
  });

  it('reads a 50 MiB WAV as a stream: memory grows by far less than the file', async () => {
    const size = 50 * 1024 * 1024;
    global.gc?.();
    const before = process.memoryUsage();
    let peak = 0;
    const sample = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }, 2);
    try {
      const facts = await sounds.probe({ contentType: 'audio/wav', size, read: async () => streamedWav(size) });
      expect(facts.durationSeconds).to.be.closeTo((size - 44) / (44_100 * 4), 0.001);
    } finally {
      clearInterval(sample);
    }
    // A reader that gathered the file would hold 50 MiB; this one holds a few chunks.
    expect(peak).to.be.lessThan(16 * 1024 * 1024);
  });

  it('gives a landscape MP4 its size and its duration, with no audio track', async () => {
    const mp4 = makeMp4({ video: { width: 1920, height: 1080 }, duration: { units: 12_500, timescale: 1_000 } });
    expect(await probers.probe(inputOf(mp4, 'video/mp4').input)).to.deep.equal({ width: 1920, height: 1080, durationSeconds: 12.5, thumbhash: null });
  });

  it('swaps the sides of a video turned a quarter by its track matrix (90° and 270°), not of one turned 180°', async () => {
    const size = { width: 1920, height: 1080 };
    const duration = { units: 3 * 600, timescale: 600 };
    expect(await probers.probe(inputOf(makeMp4({ video: { ...size, rotation: 90 }, audio: true, duration }), 'video/mp4').input)).to.include({
      width: 1080,
      height: 1920,
      durationSeconds: 3,
    });
    expect(await probers.probe(inputOf(makeMp4({ video: { ...size, rotation: 270 }, duration, brand: 'qt  ' }), 'video/quicktime').input)).to.include({
      width: 1080,
      height: 1920,
    });
    expect(await probers.probe(inputOf(makeMp4({ video: { ...size, rotation: 180 }, duration }), 'video/mp4').input)).to.include({ width: 1920, height: 1080 });
  });

  it('jumps over the mdat of a phone recording (moov last) by byte ranges: a few KiB read of 16 MiB', async () => {
    const mov = makeMp4({
      video: { width: 3840, height: 2160, rotation: 90 },
      audio: true,
      duration: { units: 7_000, timescale: 600 },
      mdatBytes: 16 * 1024 * 1024,
      moovLast: true,
      brand: 'qt  ',
      sampleTableBytes: 512 * 1024,
    });
    const probe = inputOf(mov, 'video/quicktime');
    const facts = await probers.probe(probe.input);
    expect(facts.width).to.equal(2160);
    expect(facts.height).to.equal(3840);
    expect(facts.durationSeconds).to.be.closeTo(7_000 / 600, 1e-9);
    // The mdat and each track's half-MiB sample table are skipped by opening a range after them.
    expect(probe.bytesRead()).to.be.lessThan(256 * 1024);
    expect(probe.reads.length).to.be.within(2, 6);
    expect(probe.reads.every((range) => range !== undefined && range.end === mov.length - 1)).to.equal(true);
  });

  it('reads version 1 boxes (64-bit durations) and a 64-bit mdat size', async () => {
    const mp4 = makeMp4({
      video: { width: 640, height: 360 },
      duration: { units: 90_000 * 4, timescale: 90_000 },
      long: true,
      moovLast: true,
      mdatBytes: 100_000,
    });
    expect(await videos.probe(inputOf(mp4, 'video/mp4').input)).to.deep.equal({ width: 640, height: 360, durationSeconds: 4, thumbhash: null });
  });

  it('gives an MP4 of sound only its duration and no size', async () => {
    const mp4 = makeMp4({ audio: true, duration: { units: 44_100 * 2, timescale: 44_100 } });
    expect(await probers.probe(inputOf(mp4, 'video/mp4').input)).to.deep.equal({ width: null, height: null, durationSeconds: 2, thumbhash: null });
  });

  it('fails on bytes that are not an MP4, on an MP4 without a moov and on a box whose size overruns the file', async () => {
    await expectRejection(videos.probe(inputOf(makePdf(), 'video/mp4').input));
    await expectRejection(
      videos.probe(inputOf(Buffer.concat([isoBox('ftyp', [Buffer.from('isom\0\0\0\0', 'latin1')]), isoBox('mdat', [Buffer.alloc(100)])]), 'video/mp4').input),
    );
    const cut = makeMp4({ video: { width: 640, height: 360 }, duration: { units: 1, timescale: 1 } });
    await expectRejection(videos.probe(inputOf(cut.subarray(0, 200), 'video/mp4').input));
  });

  it('handles images, audio and video only; a PDF is no media, and bytes that are not what they claim fail', async () => {
    expect(probers.handles('application/pdf')).to.equal(false);
    expect(probers.handles('image/svg+xml')).to.equal(false);
    expect(probers.handles('video/mp4')).to.equal(true);
    expect(probers.handles('audio/mpeg')).to.equal(true);
    await expectRejection(probers.probe(inputOf(makePdf(), 'image/png').input));
    await expectRejection(probers.probe(inputOf(makePdf(), 'audio/wav').input));
  });
});

async function expectRejection(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
  } catch {
    return;
  }
  expect.fail('expected the probe to fail');
}
