import { expect } from 'chai';
import fc from 'fast-check';
import { FileTypeContentSniffer } from '../../adapters/content/file-type-content-sniffer.js';
import { checkDeclaredContentType, peekHead } from '../../core/index.js';
import { makePdf, makePng, randomBytesOf, randomFileOf } from '../support/bytes.js';
import { collect, expectDomainError } from '../support/memory-hangar.js';
import { FC_SEED, scaled } from '../security/scale.js';

async function* chunksOf(bytes: Uint8Array, sizes: number[]): AsyncIterable<Uint8Array> {
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.byteLength) break;
    yield bytes.subarray(at, at + size);
    at += size;
  }
  if (at < bytes.byteLength) yield bytes.subarray(at);
}

describe('peekHead', () => {
  it('returns exactly the first n bytes and re-emits the whole body, whatever the chunking (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 3000 }),
        fc.array(fc.integer({ min: 0, max: 700 }), { maxLength: 20 }),
        fc.integer({ min: 0, max: 4100 }),
        async (data, sizes, n) => {
          const { head, body } = await peekHead(chunksOf(data, sizes), n);
          expect(Buffer.from(head)).to.deep.equal(Buffer.from(data.subarray(0, n)));
          expect(await collect(body)).to.deep.equal(Buffer.from(data));
        },
      ),
      { numRuns: scaled(200, 5000), seed: FC_SEED },
    );
  });

  it('reads no further than the chunk that completes the head', async () => {
    let pulled = 0;
    async function* counted(): AsyncIterable<Uint8Array> {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield new Uint8Array(1000);
      }
    }
    await peekHead(counted(), 4100);
    expect(pulled).to.equal(5);
  });
});

describe('checkDeclaredContentType with file-type', () => {
  const sniffer = new FileTypeContentSniffer();
  const check = (declared: string, bytes: Uint8Array) => checkDeclaredContentType(sniffer, declared, bytes.subarray(0, sniffer.headBytes));

  it('accepts a real PNG, PDF and MP4 as what they are', async () => {
    await check('image/png', makePng());
    await check('application/pdf', makePdf());
    await check('video/mp4', randomFileOf(5000, 'video/mp4'));
  });

  it('refuses HTML labelled image/png with CONTENT_TYPE_MISMATCH, detected null', async () => {
    const error = await expectDomainError(check('image/png', Buffer.from('<!doctype html><script>alert(document.domain)</script>')), 'CONTENT_TYPE_MISMATCH');
    expect(error.details).to.deep.equal({ declared: 'image/png', detected: null });
  });

  it('refuses a PNG labelled image/jpeg, naming what it is', async () => {
    const error = await expectDomainError(check('image/jpeg', makePng()), 'CONTENT_TYPE_MISMATCH');
    expect(error.details).to.deep.equal({ declared: 'image/jpeg', detected: 'image/png' });
  });

  it('accepts one container under its sibling names (an MP4 declared video/quicktime or audio/mp4)', async () => {
    await check('video/quicktime', randomFileOf(500, 'video/mp4'));
    await check('audio/mp4', randomFileOf(500, 'video/mp4'));
  });

  it('accepts types without a signature as declared, whatever they hold (text/plain, JSON, CSV, SVG)', async () => {
    for (const type of ['text/plain', 'application/json', 'text/csv', 'text/markdown', 'image/svg+xml'])
      await check(type, Buffer.from('<html><script>x</script></html>'));
    await check('text/plain', makePng());
  });

  it('does not judge an empty body (the upload answers EMPTY_FILE)', async () => {
    await check('image/png', new Uint8Array(0));
  });

  it('refuses random bytes declared as any signature type of the default list (property)', async () => {
    const types = [
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
      'image/avif',
      'image/bmp',
      'image/tiff',
      'image/heic',
      'video/mp4',
      'video/webm',
      'video/quicktime',
      'audio/mpeg',
      'audio/ogg',
      'audio/wav',
      'audio/flac',
      'application/pdf',
      'application/zip',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...types), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 1_000_000 }), async (type, size, seed) => {
        const bytes = randomBytesOf(size, seed);
        // Random bytes that happen to start like a real format are not the point of this property.
        if ((await sniffer.sniff(bytes.subarray(0, 4100))) !== undefined) return;
        await expectDomainError(check(type, bytes), 'CONTENT_TYPE_MISMATCH');
      }),
      { numRuns: scaled(200, 5000), seed: FC_SEED },
    );
  });
});
