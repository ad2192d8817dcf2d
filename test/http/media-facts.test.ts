import { expect } from 'chai';
import { thumbHashToRGBA } from 'thumbhash';
import { makePdf } from '../support/bytes.js';
import { call, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { exifJpeg, solidPng } from '../support/images.js';
import { makeMp4, makeWav } from '../support/media.js';

describe('HTTP: media facts on the File object (docs/media.md)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer();
    ({ apiKey } = await signUpWithKey(server, 'media@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** Uploads `bytes`, waits for the background probes, and answers the upload's File and the File as GET /files/:id then gives it. */
  async function stored(bytes: Uint8Array, contentType: string, name: string) {
    const answer = await upload(server, apiKey, bytes, { contentType, name });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    await server.running.hangar.mediaFactsQueue!.settled();
    const read = await call(server.api, `/files/${answer.body.file.file_id}`, { apiKey });
    expect(read.status).to.equal(200);
    return { uploaded: answer.body.file, file: read.body };
  }

  it('gives a JPEG stored sideways (EXIF orientation 6) its shown size, sides swapped, and a thumbhash that decodes upright', async () => {
    const { uploaded, file } = await stored(await exifJpeg(64, 48, 6), 'image/jpeg', 'portrait.jpg');
    // The upload's answer does not wait for the probe: its facts are null.
    expect(uploaded).to.include({ width: null, height: null, duration_seconds: null, thumbhash: null });
    expect(file).to.include({ width: 48, height: 64, duration_seconds: null });
    const placeholder = thumbHashToRGBA(Buffer.from(file.thumbhash, 'base64'));
    expect(placeholder.h).to.be.greaterThan(placeholder.w);
  });

  it('gives a PNG its size and thumbhash, a WAV its duration, a PDF nothing; the listing shows the same', async () => {
    const png = (await stored(await solidPng(120, 30), 'image/png', 'banner.png')).file;
    expect(png).to.include({ width: 120, height: 30, duration_seconds: null });
    expect(thumbHashToRGBA(Buffer.from(png.thumbhash, 'base64')).w).to.be.greaterThan(0);
    const wav = (await stored(makeWav(1.5), 'audio/wav', 'beep.wav')).file;
    expect(wav).to.include({ width: null, height: null, duration_seconds: 1.5, thumbhash: null });
    const pdf = (await stored(makePdf(), 'application/pdf', 'paper.pdf')).file;
    expect(pdf).to.include({ width: null, height: null, duration_seconds: null, thumbhash: null });

    const listed = await call(server.api, '/files?limit=100', { apiKey });
    const byId = new Map<string, any>(listed.body.files.map((item: any) => [item.file_id, item]));
    for (const file of [png, wav, pdf]) expect(byId.get(file.file_id)).to.deep.equal(file);
    // The members sit before the two read counts, which stay the object's last members.
    expect(Object.keys(png).slice(-7)).to.deep.equal(['width', 'height', 'duration_seconds', 'thumbhash', 'metadata_removed', 'view_count', 'download_count']);
  });

  it('gives an MP4 and a phone’s MOV (moov after the samples, turned 90° for portrait) their shown size and duration', async () => {
    const mp4 = (await stored(makeMp4({ video: { width: 1280, height: 720 }, duration: { units: 5_000, timescale: 1_000 } }), 'video/mp4', 'clip.mp4')).file;
    expect(mp4).to.include({ width: 1280, height: 720, duration_seconds: 5, thumbhash: null });
    const mov = makeMp4({
      video: { width: 1920, height: 1080, rotation: 90 },
      audio: true,
      duration: { units: 1_800, timescale: 600 },
      moovLast: true,
      brand: 'qt  ',
      mdatBytes: 256 * 1024,
    });
    const portrait = (await stored(mov, 'video/quicktime', 'IMG_0001.MOV')).file;
    expect(portrait).to.include({ width: 1080, height: 1920, duration_seconds: 3, thumbhash: null });
  });

  it('describes the four members in the OpenAPI document’s File schema', async () => {
    const document = (await call(server.api, '/reference/openapi.json')).body;
    const file = document.components.schemas.File;
    expect(file.required).to.include.members(['width', 'height', 'duration_seconds', 'thumbhash']);
    expect(Object.keys(file.properties)).to.include.members(['width', 'height', 'duration_seconds', 'thumbhash']);
  });
});
