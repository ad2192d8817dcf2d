import { expect } from 'chai';
import { type ImageMetadataMode, IMAGE_METADATA_MODES, stripImageMetadata } from '../../core/index.js';
import { gpsPhoto, photoFacts, type PhotoFormat, PHOTO_TYPES, pixelsOf } from '../support/photos.js';

async function* pieces(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...cuts, bytes.byteLength]) {
    yield bytes.slice(at, cut);
    at = cut;
  }
}

/** Runs the transform over `bytes` cut at `cuts`; the stored bytes and the outcome. */
async function strip(bytes: Uint8Array, format: PhotoFormat | string, mode: ImageMetadataMode, cuts: number[] = []) {
  const type = format in PHOTO_TYPES ? PHOTO_TYPES[format as PhotoFormat] : format;
  const result = stripImageMetadata(pieces(bytes, cuts), type, mode);
  const parts: Uint8Array[] = [];
  for await (const chunk of result.body) parts.push(chunk);
  return { bytes: Buffer.concat(parts), ...(await result.outcome) };
}

const FORMATS = Object.keys(PHOTO_TYPES) as PhotoFormat[];

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
          const bytewise = await strip(photo, format, mode, Array.from({ length: photo.byteLength }, (_, i) => i));
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
    expect(packet.match(/<[^>]+>/g)!.map((tag) => tag.split(/[\s>]/)[0])).to.deep.equal(['<x:xmpmeta', '<rdf:RDF', '<rdf:Description', '</rdf:Description', '</rdf:RDF', '</x:xmpmeta']);
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
