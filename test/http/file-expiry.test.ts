import { expect } from 'chai';
import path from 'node:path';
import { makePng, randomFileOf, sha256 } from '../support/bytes.js';
import { storedBlobs } from '../support/stored-blobs.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { OffsetClock } from '../support/offset-clock.js';

describe('HTTP: file expiry', () => {
  let server: TestServer;
  let apiKey: string;
  const clock = new OffsetClock();
  before(async () => {
    server = await startTestServer({ EXPIRY_SWEEP_INTERVAL_SECONDS: '1' }, {}, { clock });
    ({ apiKey } = await signUpWithKey(server, 'expiry@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });

  /** Polls until `check` holds, up to `ms`. */
  const eventually = async (check: () => Promise<boolean>, ms = 5_000) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('not within the time allowed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** Whether the blob store holds a blob with these bytes (read behind its back). */
  const stored = async (bytes: Uint8Array) => (await storedBlobs(path.join(server.dataDir, 'blobs'))).some((blob) => blob.sha256 === sha256(bytes));

  it('deletes a file at its x-expires-at time (record, blob, storage) and logs it as an expiry; addresses answer 404 from that time on', async () => {
    const usage0 = (await call(server.api, '/usage', { apiKey })).body;
    const at = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const bytes = randomFileOf(1000, 'image/png', 31);
    const uploaded = await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png', 'x-expires-at': at }, body: bytes });
    expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    const file = uploaded.body.file;
    expect(file.expires_at).to.equal(at);
    expect((await call(server.api, `/files?expiresBefore=${encodeURIComponent(at)}`, { apiKey })).body.files.map((f: any) => f.file_id)).to.deep.equal([
      file.file_id,
    ]);
    expect((await call(server.api, `/files?expiresBefore=${encodeURIComponent(new Date(Date.parse(at) - 1).toISOString())}`, { apiKey })).body.total).to.equal(
      0,
    );
    expect((await call(server.api, '/usage', { apiKey })).body.storage_bytes).to.equal(usage0.storage_bytes + 1000);
    expect(await stored(bytes)).to.equal(true);
    // Still there a second later: not yet its time.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await call(server.api, `/files/${file.file_id}`, { apiKey })).status).to.equal(200);

    clock.advance(3_600_000);
    await eventually(async () => (await call(server.api, `/files/${file.file_id}`, { apiKey })).status === 404);
    expect((await fetch(`${server.content}/m/${file.file_id}`)).status).to.equal(404);
    expect(await stored(bytes)).to.equal(false);
    const usage = (await call(server.api, '/usage', { apiKey })).body;
    expect(usage).to.include({ storage_bytes: usage0.storage_bytes, files_count: usage0.files_count });
    // Logged once the sweep's delete is done, which removes the image's derived blobs after the
    // blob itself: the blob may be gone a moment before the entry is recorded.
    let expiry: any;
    await eventually(async () => {
      await server.running.hangar.activity.flush();
      const logs = (await call(server.api, '/logs?limit=100', { apiKey })).body.logs;
      expiry = logs.find((entry: any) => entry.metadata.reason === 'expired');
      return expiry !== undefined;
    });
    expect(expiry).to.deep.include({ method: 'DELETE', path: `/files/${file.file_id}`, status_code: 204 });
    expect(expiry.metadata).to.include({ file_id: file.file_id, expires_at: at, auth: 'system' });
  });

  it('deletes a file at its expiresIn time, and one given an expiry later through PATCH; keeps one whose expiry was removed', async () => {
    const soon = (await upload(server, apiKey, makePng(), { query: '?expiresIn=60' })).body.file;
    expect(Date.parse(soon.expires_at) - clock.now().getTime()).to.be.within(58_000, 61_000);
    const later = (await upload(server, apiKey, randomFileOf(200, 'image/png', 32))).body.file;
    const kept = (await upload(server, apiKey, randomFileOf(300, 'image/png', 33), { query: '?expiresIn=30' })).body.file;
    const patched = await call(server.api, `/files/${later.file_id}`, {
      method: 'PATCH',
      apiKey,
      json: { expires_at: new Date(clock.now().getTime() + 30_000).toISOString() },
    });
    expect(patched.status).to.equal(200);
    expect((await call(server.api, `/files/${kept.file_id}`, { method: 'PATCH', apiKey, json: { expires_at: null } })).body.expires_at).to.equal(null);

    clock.advance(61_000);
    for (const file of [soon, later]) await eventually(async () => (await call(server.api, `/files/${file.file_id}`, { apiKey })).status === 404);
    expect((await call(server.api, `/files/${kept.file_id}`, { apiKey })).status).to.equal(200);
  });

  it('refuses an expiry in the past, an unreadable one, both forms at once, and expiresIn out of range with 400, storing nothing', async () => {
    const before = (await call(server.api, '/files', { apiKey })).body.total;
    const post = (headers: Record<string, string>, query = '') =>
      call(server.api, `/files${query}`, { method: 'POST', apiKey, headers: { 'content-type': 'image/png', ...headers }, body: makePng() });
    expectError(await post({ 'x-expires-at': '2001-01-01T00:00:00Z' }), 400, 'INVALID_EXPIRY');
    expectError(await post({ 'x-expires-at': 'next week' }), 400, 'VALIDATION_FAILED');
    expectError(await post({ 'x-expires-at': new Date(clock.now().getTime() + 60_000).toISOString() }, '?expiresIn=60'), 400, 'INVALID_EXPIRY');
    expectError(await post({}, '?expiresIn=0'), 400, 'VALIDATION_FAILED');
    expectError(await post({}, '?expiresIn=1.5'), 400, 'VALIDATION_FAILED');
    expect((await call(server.api, '/files', { apiKey })).body.total).to.equal(before);
  });
});
