import { expect } from 'chai';
import { type ImageMetadataMode, IMAGE_METADATA_MODES, stripImageMetadata } from '../../core/index.js';
import { gpsPhoto, photoFacts, type PhotoFormat, PHOTO_TYPES, pixelsOf, pngChunk } from '../support/photos.js';

async function* pieces(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...cuts, bytes.byteLength]) {
    yield bytes.slice(at, cut);
    at = cut;
  }
}

/** Runs the transform over `bytes` cut at `cuts`; the stored bytes and the outcome. */
async function strip(bytes: Uint8Array, format: string, mode: ImageMetadataMode, cuts: number[] = []) {
  const type = format in PHOTO_TYPES ? PHOTO_TYPES[format as PhotoFormat] : format;
  const result = stripImageMetadata(pieces(bytes, cuts), type, mode);
  const parts: Uint8Array[] = [];
  for await (const chunk of result.body) parts.push(chunk);
  return { bytes: Buffer.concat(parts), ...(await result.outcome) };
}

const FORMATS = Object.keys(PHOTO_TYPES) as PhotoFormat[];

/** An ISOBMFF box: 32-bit size, type, payload (a full box's version and flags are part of the payload). */
function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}
const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const u32 = (value: number) => Buffer.from([value >>> 24, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]);

/**
 * A HEIF file made by hand (ISO/IEC 23008-12): `ftyp`, a `meta` box with one `Exif` item (the EXIF
 * of a fixture photo, with its GPS IFD), then `mdat`. The item is stored in `idat` (construction
 * method 1), in `mdat` after `meta` (method 0), or in a `free` box before `meta` (method 0, not covered).
 */
async function handMadeHeif(where: 'idat' | 'mdat' | 'before-meta'): Promise<Buffer> {
  const jpeg = await gpsPhoto('jpeg', { xmp: false });
  const at = jpeg.indexOf('Exif\0\0', 0, 'latin1');
  const tiff = jpeg.subarray(at + 6, at - 2 + jpeg.readUInt16BE(at - 2));
  const item = Buffer.concat([u32(6), Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const ftyp = box('ftyp', Buffer.from('heic', 'latin1'), u32(0), Buffer.from('mif1heic', 'latin1'));
  const free = where === 'before-meta' ? box('free', item) : Buffer.alloc(0);
  const meta = (offset: number) =>
    box(
      'meta',
      u32(0),
      box('hdlr', u32(0), u32(0), Buffer.from('pict', 'latin1'), Buffer.alloc(12), Buffer.from([0])),
      box('iinf', u32(0), u16(1), box('infe', Buffer.from([2, 0, 0, 0]), u16(1), u16(0), Buffer.from('Exif', 'latin1'), Buffer.from([0]))),
      box(
        'iloc',
        Buffer.from([1, 0, 0, 0]),
        Buffer.from([0x44, 0x00]),
        u16(1),
        u16(1),
        u16(where === 'idat' ? 1 : 0),
        u16(0),
        u16(1),
        u32(offset),
        u32(item.length),
      ),
      ...(where === 'idat' ? [box('idat', item)] : []),
    );
  const metaLength = meta(0).length;
  const offset = where === 'idat' ? 0 : where === 'mdat' ? ftyp.length + metaLength + 8 + 16 : ftyp.length + 8;
  const mdat = box('mdat', Buffer.alloc(16, 0x5a), where === 'mdat' ? item : Buffer.alloc(0), Buffer.alloc(64, 0x33));
  return Buffer.concat([ftyp, free, meta(offset), mdat]);
}

describe('stripImageMetadata', () => {
  for (const format of FORMATS) {
    describe(format, () => {
      let photo: Buffer;
      before(async () => {
        photo = await gpsPhoto(format);
      });

      it('the fixture carries a GPS position, camera tags and XMP', async () => {
        const facts = await photoFacts(photo, format);
        expect(facts.hasLocation).to.equal(true);
        expect(facts.exif.GPSLatitude).to.deep.equal([48, 51, 29.76]);
        expect(facts.exif.Make).to.equal('HangarCam');
        expect(facts.hasXmp).to.equal(true);
      });

      it('strip_location leaves no GPS data, keeps the other tags, the length and every pixel', async () => {
        const out = await strip(photo, format, 'strip_location');
        const facts = await photoFacts(out.bytes, format);
        expect(facts.hasLocation).to.equal(false);
        expect(facts.exif.GPSLatitude).to.equal(undefined);
        expect(facts.exif.Make).to.equal('HangarCam');
        expect(facts.exif.Orientation).to.equal(6);
        expect(facts.hasXmp).to.equal(true);
        expect(out.bytes.byteLength).to.equal(photo.byteLength);
        expect(out.removed).to.deep.equal(['location']);
        expect(out.bytesRead).to.equal(photo.byteLength);
        expect((await pixelsOf(out.bytes)).equals(await pixelsOf(photo))).to.equal(true);
      });

      it('strip_all leaves no EXIF tag nor GPS data, and every pixel', async () => {
        const out = await strip(photo, format, 'strip_all');
        const facts = await photoFacts(out.bytes, format);
        expect(facts.hasLocation).to.equal(false);
        expect(facts.exif.Make).to.equal(undefined);
        expect(facts.exif.Orientation).to.equal(undefined);
        if (format !== 'avif') expect(facts.hasXmp).to.equal(false);
        expect(out.removed).to.include.members(['location', 'exif']);
        if (format !== 'avif') expect(out.removed).to.include('xmp');
        expect((await pixelsOf(out.bytes)).equals(await pixelsOf(photo))).to.equal(true);
      });

      it('keep stores the bytes as they came', async () => {
        const out = await strip(photo, format, 'keep');
        expect(out.bytes.equals(photo)).to.equal(true);
        expect(out.removed).to.deep.equal([]);
      });

      it('gives the same bytes whatever the chunking: cut at every position, and one byte at a time', async () => {
        for (const mode of IMAGE_METADATA_MODES) {
          const whole = await strip(photo, format, mode);
          for (let cut = 0; cut <= photo.byteLength; cut++) {
            const out = await strip(photo, format, mode, [cut]);
            if (!out.bytes.equals(whole.bytes)) expect.fail(`${mode}: cut at ${cut} changed the output`);
            expect(out.removed).to.deep.equal(whole.removed);
          }
          const bytewise = await strip(
            photo,
            format,
            mode,
            Array.from({ length: photo.byteLength }, (_, i) => i),
          );
          expect(bytewise.bytes.equals(whole.bytes)).to.equal(true);
        }
      });

      it('passes a truncated file through unchanged at every length', async () => {
        for (let length = 0; length < Math.min(photo.byteLength, 1200); length++) {
          const cut = photo.subarray(0, length);
          const out = await strip(cut, format, 'keep');
          expect(out.bytes.equals(cut)).to.equal(true);
          const stripped = await strip(cut, format, 'strip_location');
          expect(stripped.bytesRead).to.equal(length);
          expect(stripped.bytes.byteLength).to.equal(length);
        }
      });
    });
  }

  it('passes bytes that are not the declared format through unchanged', async () => {
    const noise = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256));
    for (const format of FORMATS) {
      const out = await strip(noise, format, 'strip_all');
      expect(out.bytes.equals(noise)).to.equal(true);
      expect(out.removed).to.deep.equal([]);
    }
  });

  it('drops a compressed XMP chunk of a PNG with strip_location (it cannot be edited in place)', async () => {
    const photo = await gpsPhoto('png', { pngXmp: 'zTXt' });
    const out = await strip(photo, 'png', 'strip_location');
    const facts = await photoFacts(out.bytes, 'png');
    expect(facts.hasLocation).to.equal(false);
    expect(facts.exif.Make).to.equal('HangarCam');
    expect(out.removed).to.deep.equal(['location', 'xmp']);
    expect(Buffer.from(out.bytes).includes('XML:com.adobe.xmp')).to.equal(false);
  });

  it('reads fill bytes before a JPEG marker (T.81 B.1.1.2) and still removes the position after them', async () => {
    const photo = await gpsPhoto('jpeg', { xmp: false });
    const filled = Buffer.concat([photo.subarray(0, 2), Buffer.from([0xff, 0xff, 0xff]), photo.subarray(2)]);
    const out = await strip(filled, 'jpeg', 'strip_location');
    expect(out.removed).to.deep.equal(['location']);
    expect(out.bytes.byteLength).to.equal(filled.byteLength);
    expect(out.bytes.subarray(0, 5).equals(filled.subarray(0, 5))).to.equal(true);
    expect((await photoFacts(out.bytes, 'jpeg')).hasLocation).to.equal(false);
  });

  it('keeps an XMP packet well-formed and its length when blanking GPS properties', async () => {
    const photo = await gpsPhoto('jpeg');
    const out = await strip(photo, 'jpeg', 'strip_location');
    const text = out.bytes.toString('latin1');
    const packet = text.slice(text.indexOf('<x:xmpmeta'), text.indexOf('</x:xmpmeta>') + 12);
    expect(packet).to.include('xmp:CreatorTool="Hangar fixture"');
    expect(packet).not.to.match(/GPS/i);
    expect(packet.match(/<[^>]+>/g)!.map((tag) => tag.split(/[\s>]/)[0])).to.deep.equal([
      '<x:xmpmeta',
      '<rdf:RDF',
      '<rdf:Description',
      '</rdf:Description',
      '</rdf:RDF',
      '</x:xmpmeta',
    ]);
  });

  for (const where of ['idat', 'mdat'] as const) {
    it(`edits the EXIF item of a HEIF file stored in ${where} in place, at every chunk boundary`, async () => {
      const heif = await handMadeHeif(where);
      expect((await photoFacts(heif, 'avif')).hasLocation).to.equal(true);
      const located = await strip(heif, 'image/heic', 'strip_location');
      expect(located.removed).to.deep.equal(['location']);
      expect(located.bytes.byteLength).to.equal(heif.byteLength);
      const facts = await photoFacts(located.bytes, 'avif');
      expect(facts.hasLocation).to.equal(false);
      expect(facts.exif.Make).to.equal('HangarCam');
      const bare = await strip(heif, 'image/heic', 'strip_all');
      expect(bare.removed).to.deep.equal(['location', 'exif']);
      expect((await photoFacts(bare.bytes, 'avif')).exif).to.deep.equal({});
      for (let cut = 0; cut <= heif.byteLength; cut++) {
        if (!(await strip(heif, 'image/heic', 'strip_location', [cut])).bytes.equals(located.bytes)) expect.fail(`cut at ${cut}`);
      }
    });
  }

  it('leaves a HEIF EXIF item stored before the meta box as it is, and does not claim its location removed', async () => {
    const heif = await handMadeHeif('before-meta');
    const out = await strip(heif, 'image/heic', 'strip_location');
    expect(out.bytes.equals(heif)).to.equal(true);
    expect(out.removed).to.deep.equal([]);
  });

  it('does not hold a PNG text chunk over 4 MiB: a comment passes with strip_location, XMP is dropped, strip_all drops both', async () => {
    const photo = await gpsPhoto('png', { xmp: false });
    const comment = pngChunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(5 * 1024 * 1024, 0x61)]));
    const xmp = pngChunk('iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0'), Buffer.alloc(5 * 1024 * 1024, 0x20)]));
    const iend = photo.length - 12;
    const big = Buffer.concat([photo.subarray(0, iend), comment, xmp, photo.subarray(iend)]);
    const cuts = Array.from({ length: Math.ceil(big.length / 65536) - 1 }, (_, i) => (i + 1) * 65536);
    const located = await strip(big, 'png', 'strip_location', cuts);
    expect(located.removed).to.deep.equal(['location', 'xmp']);
    expect(located.bytes.includes(comment)).to.equal(true);
    expect(located.bytes.byteLength).to.equal(big.length - xmp.length);
    const bare = await strip(big, 'png', 'strip_all', cuts);
    expect(bare.removed).to.deep.equal(['location', 'exif', 'xmp', 'comment']);
    expect((await pixelsOf(bare.bytes)).equals(await pixelsOf(photo))).to.equal(true);
  });

  it('leaves other types alone', async () => {
    const photo = await gpsPhoto('jpeg');
    const out = await strip(photo, 'application/octet-stream', 'strip_all');
    expect(out.bytes.equals(photo)).to.equal(true);
    expect(out.removed).to.deep.equal([]);
  });

  it('reports nothing removed from a photo without a position', async () => {
    const photo = await gpsPhoto('jpeg', { xmp: false });
    const plain = await strip(photo, 'jpeg', 'strip_location');
    const again = await strip(plain.bytes, 'jpeg', 'strip_location');
    expect(again.removed).to.deep.equal([]);
    expect(again.bytes.equals(plain.bytes)).to.equal(true);
  });
});
