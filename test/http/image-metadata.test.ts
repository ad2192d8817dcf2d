import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { sha256 } from '../support/bytes.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { gpsPhoto, photoFacts, type PhotoFormat, PHOTO_TYPES, pixelsOf } from '../support/photos.js';

describe('HTTP: photo metadata removed on upload (image_metadata)', () => {
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer();
    ({ apiKey } = await signUpWithKey(server, 'photos@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  const setting = async (image_metadata: unknown) => call(server.api, '/settings', { method: 'PATCH', apiKey, json: { image_metadata } });
  /** The stored bytes of one of the account's files, with the ETag the content route sends. */
  const stored = async (fileId: string) => {
    const response = await fetch(`${server.api}/files/${fileId}/content`, { headers: { 'x-api-key': apiKey } });
    expect(response.status).to.equal(200);
    return { bytes: Buffer.from(await response.arrayBuffer()), etag: response.headers.get('etag') };
  };

  it('reads strip_location by default, changes it with PATCH /settings, and refuses other values with 400 VALIDATION_FAILED', async () => {
    expect((await call(server.api, '/settings', { apiKey })).body.image_metadata).to.equal('strip_location');
    expectError(await setting('strip_everything'), 400, 'VALIDATION_FAILED');
    expectError(await setting(null), 400, 'VALIDATION_FAILED');
    const changed = await setting('keep');
    expect(changed.status).to.equal(200);
    expect(changed.body.image_metadata).to.equal('keep');
    expect((await call(server.api, '/settings', { apiKey })).body.image_metadata).to.equal('keep');
    expect((await setting('strip_location')).body.image_metadata).to.equal('strip_location');
  });

  for (const format of Object.keys(PHOTO_TYPES) as PhotoFormat[]) {
    it(`stores a ${format} without its GPS position by default, every pixel and other tag kept; size and ETag are the stored bytes'`, async () => {
      const photo = await gpsPhoto(format);
      const result = await upload(server, apiKey, photo, { contentType: PHOTO_TYPES[format], name: `photo.${format}` });
      expect(result.status, JSON.stringify(result.body)).to.equal(201);
      expect(result.body.file.metadata_removed).to.deep.equal(['location']);
      const { bytes, etag } = await stored(result.body.file.file_id);
      const facts = await photoFacts(bytes, format);
      expect(facts.hasLocation).to.equal(false);
      expect(facts.exif.Make).to.equal('HangarCam');
      expect((await pixelsOf(bytes)).equals(await pixelsOf(photo))).to.equal(true);
      expect(result.body.file.size).to.equal(bytes.byteLength);
      expect(etag).to.equal(`"${sha256(bytes)}"`);
      const listed = (await call(server.api, '/files?limit=100', { apiKey })).body.files.find(
        (f: { file_id: string }) => f.file_id === result.body.file.file_id,
      );
      expect(listed.metadata_removed).to.deep.equal(['location']);
    });
  }

  it('with strip_all stores a JPEG without EXIF and XMP, and with keep stores it as sent', async () => {
    const photo = await gpsPhoto('jpeg');
    await setting('strip_all');
    const all = await upload(server, apiKey, photo, { contentType: 'image/jpeg', name: 'all.jpg' });
    expect(all.status).to.equal(201);
    expect(all.body.file.metadata_removed).to.deep.equal(['location', 'exif', 'xmp']);
    const bare = (await stored(all.body.file.file_id)).bytes;
    expect((await photoFacts(bare, 'jpeg')).exif).to.deep.equal({});
    expect(bare.byteLength).to.be.lessThan(photo.byteLength);
    expect(all.body.file.size).to.equal(bare.byteLength);
    expect((await pixelsOf(bare)).equals(await pixelsOf(photo))).to.equal(true);

    await setting('keep');
    const kept = await upload(server, apiKey, photo, { contentType: 'image/jpeg', name: 'kept.jpg' });
    expect(kept.body.file.metadata_removed).to.deep.equal([]);
    expect(sha256((await stored(kept.body.file.file_id)).bytes)).to.equal(sha256(photo));
    await setting('strip_location');
  });

  it('removes the position from a photo sent through a signed upload URL', async () => {
    const minted = await call(server.api, '/files/upload-url', { method: 'POST', apiKey, json: {} });
    expect(minted.status, JSON.stringify(minted.body)).to.equal(201);
    const url = new URL(minted.body.upload_url);
    const photo = await gpsPhoto('jpeg');
    const put = await call(server.api, `${url.pathname}${url.search}`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: photo });
    expect(put.status, JSON.stringify(put.body)).to.equal(201);
    expect(put.body.file.metadata_removed).to.deep.equal(['location']);
    expect((await photoFacts((await stored(put.body.file.file_id)).bytes, 'jpeg')).hasLocation).to.equal(false);
  });

  it('removes the position from a photo sent with tus, in two pieces, when the upload completes', async () => {
    const photo = await gpsPhoto('jpeg', { width: 64, height: 48 });
    const created = await call(server.api, '/files/resumable', {
      method: 'POST',
      apiKey,
      headers: {
        'tus-resumable': '1.0.0',
        'upload-length': String(photo.length),
        'upload-metadata': `filetype ${Buffer.from('image/jpeg').toString('base64')},filename ${Buffer.from('tus.jpg').toString('base64')}`,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const location = new URL(created.headers.get('location')!, server.api).href;
    const patch = (offset: number, body: Uint8Array) =>
      fetch(location, {
        method: 'PATCH',
        headers: { 'x-api-key': apiKey, 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        body,
      });
    const half = Math.floor(photo.length / 2);
    expect((await patch(0, photo.subarray(0, half))).status).to.equal(204);
    expect((await patch(half, photo.subarray(half))).status).to.equal(204);
    const status = await call(server.api, new URL(location).pathname, { apiKey });
    expect(status.body.status).to.equal('complete');
    const file = status.body.file;
    expect(file.metadata_removed).to.deep.equal(['location']);
    const { bytes, etag } = await stored(file.file_id);
    expect((await photoFacts(bytes, 'jpeg')).hasLocation).to.equal(false);
    expect((await photoFacts(bytes, 'jpeg')).exif.Make).to.equal('HangarCam');
    expect((await pixelsOf(bytes)).equals(await pixelsOf(photo))).to.equal(true);
    expect(file.size).to.equal(bytes.byteLength);
    expect(etag).to.equal(`"${sha256(bytes)}"`);
    const blobs = await readdir(server.dataDir, { recursive: true });
    expect(blobs.filter((name) => name.endsWith('received'))).to.deep.equal([]);
  });
});
