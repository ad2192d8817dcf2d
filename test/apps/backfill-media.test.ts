import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { thumbHashToRGBA } from 'thumbhash';
import { makePdf } from '../support/bytes.js';
import { runCli } from '../support/cli-process.js';
import { call, signUpWithKey, startTestServer, upload } from '../support/http-harness.js';
import { exifJpeg } from '../support/images.js';
import { makeWav } from '../support/media.js';

describe('admin CLI: files backfill-media (docs/media.md)', function () {
  this.timeout(90_000);
  let dir: string;
  let env: Record<string, string>;
  let apiKey: string;
  /** Uploaded file ids by name. */
  const ids = new Map<string, string>();

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-backfill-media-'));
    const dataDir = path.join(dir, 'data');
    env = { DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}`, BLOB_STORE_URL: `file:${path.join(dataDir, 'blobs')}` };
    // Uploads with probing off, as files stored before media facts existed.
    const server = await startTestServer({ ...env, MEDIA_PROBE_CONCURRENCY: '0' }, {}, { dataDir });
    try {
      ({ apiKey } = await signUpWithKey(server, 'backfill@example.com'));
      const files: [string, Uint8Array, string][] = [
        ['portrait.jpg', await exifJpeg(64, 48, 6), 'image/jpeg'],
        ['beep.wav', makeWav(2), 'audio/wav'],
        ['paper.pdf', makePdf(), 'application/pdf'],
      ];
      for (const [name, bytes, contentType] of files) {
        const answer = await upload(server, apiKey, bytes, { name, contentType });
        expect(answer.status).to.equal(201);
        ids.set(name, answer.body.file.file_id);
      }
      expect(server.running.hangar.mediaFactsQueue).to.equal(undefined);
      const jpeg = await call(server.api, `/files/${ids.get('portrait.jpg')}`, { apiKey });
      expect(jpeg.body).to.include({ width: null, height: null, thumbhash: null });
    } finally {
      await server.stop();
    }
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives every file its facts with progress on stderr, and a second run finds nothing left', async () => {
    const first = await runCli(['files', 'backfill-media', '--batch', '2'], env);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.include('files backfill-media: 3/3 files (100%), 0 unreadable');
    expect(first.stdout.trim()).to.equal('files backfill-media: 3 files given media facts (0 unreadable: every fact null)');

    const again = await runCli(['files', 'backfill-media'], env);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout.trim()).to.equal('files backfill-media: 0 files given media facts (0 unreadable: every fact null); every file already has them');

    const server = await startTestServer(env, {}, { dataDir: env.DATA_DIR });
    try {
      const read = async (name: string) => (await call(server.api, `/files/${ids.get(name)}`, { apiKey })).body;
      const jpeg = await read('portrait.jpg');
      expect(jpeg).to.include({ width: 48, height: 64, duration_seconds: null });
      expect(thumbHashToRGBA(Buffer.from(jpeg.thumbhash, 'base64')).h).to.be.greaterThan(0);
      expect(await read('beep.wav')).to.include({ width: null, height: null, duration_seconds: 2, thumbhash: null });
      expect(await read('paper.pdf')).to.include({ width: null, height: null, duration_seconds: null, thumbhash: null });
    } finally {
      await server.stop();
    }
  });

  it('refuses options out of range before opening anything', async () => {
    const result = await runCli(['files', 'backfill-media', '--batch', '0'], env);
    expect(result.code).to.not.equal(0);
    expect(result.stderr).to.include('--batch must be a whole number from 1 to 1000, not "0".');
  });
});
