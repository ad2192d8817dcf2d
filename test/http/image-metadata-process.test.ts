import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, mailedToken } from '../support/http-harness.js';
import { gpsPhoto, photoFacts } from '../support/photos.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

const MiB = 1024 * 1024;
/** Size of the scan streamed in the middle of the big JPEG (HANGAR_TEST_PHOTO_MIB to change). */
const SCAN_MIB = Number(process.env.HANGAR_TEST_PHOTO_MIB ?? 200);

/** Where a JPEG's first scan's data starts: just past its SOS segment. */
function scanStart(jpeg: Buffer): number {
  let at = 2;
  while (jpeg[at] === 0xff) {
    const marker = jpeg[at + 1];
    const length = jpeg.readUInt16BE(at + 2);
    at += 2 + length;
    if (marker === 0xda) return at;
  }
  throw new Error('no SOS segment');
}

/**
 * A JPEG of a real photo's segments (EXIF with GPS, XMP, tables, SOS header), `mib` MiB of
 * entropy-coded scan data made on the fly (no 0xFF byte, so no marker), then the photo's own scan and EOI.
 */
function bigJpeg(photo: Buffer, mib: number): { head: Buffer; body: ReadableStream<Uint8Array>; length: number; tailSha256: () => string } {
  const start = scanStart(photo);
  const head = photo.subarray(0, start);
  const end = photo.subarray(start);
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 131 + (i >> 9)) % 255;
  const tail = createHash('sha256');
  let sent = -1;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === -1) controller.enqueue(new Uint8Array(head));
      else if (sent < mib) {
        tail.update(block);
        controller.enqueue(new Uint8Array(block));
      } else if (sent === mib) {
        tail.update(end);
        controller.enqueue(new Uint8Array(end));
      } else return controller.close();
      sent++;
    },
  });
  return { head, body, length: head.length + mib * MiB + end.length, tailSha256: () => tail.digest('hex') };
}

describe('the server as its own process: photo metadata removed while a large upload streams', function () {
  this.timeout(300_000);
  let dataDir: string;
  let server: ServerProcess;
  let key: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-photo-'));
    server = await startServerProcess({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: dataDir,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      DEFAULT_MAX_UPLOAD_SIZE_BYTES: String((SCAN_MIB + 1) * MiB),
      // No media probe after the upload: its first run loads sharp (libvips and its threads, tens of
      // MiB once per process), which is not the upload's memory; the probe's own bound is tested in
      // test/adapters/media-probers.test.ts.
      MEDIA_PROBE_CONCURRENCY: '0',
    });
    const email = 'photo@example.com';
    await call(server.api, '/auth/register', { method: 'POST', json: { email, password: 'secret1' } });
    const token = await mailedToken({ dataDir }, email, '/auth/confirm');
    await call(server.api, `/auth/confirm?token=${token}`);
    const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'secret1' } });
    key = (await call(server.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
  });
  after(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const send = async (jpeg: ReturnType<typeof bigJpeg>) => {
    const response = await fetch(`${server.api}/files`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'image/jpeg', 'x-file-name': 'big.jpg', 'content-length': String(jpeg.length) },
      body: jpeg.body,
      duplex: 'half',
    });
    const result = (await response.json()) as any;
    expect(response.status, JSON.stringify(result)).to.equal(201);
    return result.file;
  };

  it(`removes the GPS position from a JPEG with a ${SCAN_MIB} MiB scan, server memory growing by at most 64 MiB`, async () => {
    const photo = await gpsPhoto('jpeg');
    // Warm-up (as in server-process.test.ts): lazily loaded code and V8's young generation count in the baseline.
    await send(bigJpeg(photo, 32));
    const baseline = await server.memory();

    const jpeg = bigJpeg(photo, SCAN_MIB);
    const file = await send(jpeg);
    const afterUpload = await server.memory();
    expect(file.metadata_removed).to.deep.equal(['location']);
    expect(file.size).to.equal(jpeg.length);

    const downloaded = await fetch(`${server.content}/d/${file.file_id}`);
    expect(downloaded.status).to.equal(200);
    const parts: Buffer[] = [];
    let kept = 0;
    const tail = createHash('sha256');
    const whole = createHash('sha256');
    for await (const part of downloaded.body as unknown as AsyncIterable<Uint8Array>) {
      whole.update(part);
      const from = Math.max(0, jpeg.head.length - kept);
      if (from > 0) parts.push(Buffer.from(part.subarray(0, from)));
      tail.update(part.subarray(from));
      kept += part.length;
    }
    expect(kept).to.equal(jpeg.length);
    expect(downloaded.headers.get('etag')).to.equal(`"${whole.digest('hex')}"`);
    expect(tail.digest('hex')).to.equal(jpeg.tailSha256());
    const storedHead = Buffer.concat(parts);
    const facts = await photoFacts(storedHead, 'jpeg');
    expect(facts.hasLocation).to.equal(false);
    expect(facts.exif.Make).to.equal('HangarCam');

    const growth = afterUpload.hwm - baseline.rss;
    process.stdout.write(`      peak RSS growth during the upload: ${(growth / MiB).toFixed(1)} MiB\n`);
    expect(growth, `peak RSS grew by ${(growth / MiB).toFixed(1)} MiB`).to.be.at.most(64 * MiB);
  });
});
