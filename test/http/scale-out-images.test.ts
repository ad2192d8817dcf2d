import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, mailedToken, outboxesUnder } from '../support/http-harness.js';
import { exifJpeg } from '../support/images.js';
import { checkResponse } from '../support/openapi-check.js';
import { type ServerProcess, startServerProcesses } from '../support/server-process.js';
import { freshServerDatabase, httpTestDatabase, type ServerDatabase } from '../support/test-database.js';

const PASSWORD = 'correct horse';
/** Usage counts are written by each process every 2 s: long enough for both to have written theirs. */
const FLUSHED_MS = 4_500;
/** The plan's image transformations per period: room for the first test's four, and a few more. */
const IMAGE_OPS_LIMIT = 7;

/**
 * Image variants on two server processes sharing one database and one blob directory
 * (docs/images.md, "Several processes"): a new variant asked of both at once is computed by one
 * of them and counted once.
 */
describe(`HTTP: image variants on two server processes on one database (${httpTestDatabase()}) and one blob store`, function () {
  this.timeout(90_000);
  let shared: string;
  let database: ServerDatabase;
  let servers: ServerProcess[] = [];
  let apiKey: string;
  let fileId: string;

  before(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'hangar-scale-images-'));
    database = await freshServerDatabase(shared);
    const env = (name: string) => ({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: path.join(shared, name),
      ...database.env,
      BLOB_STORE_URL: `file:${path.join(shared, 'blobs')}`,
      JWT_SECRET: 'a shared secret of at least thirty-two bytes',
      PASSWORD_HASH_MEMORY_KIB: '1024',
      DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(8 * 1024 * 1024),
      IMAGE_OPS_LIMIT: String(IMAGE_OPS_LIMIT),
    });
    servers = await startServerProcesses([env('a'), env('b')]);
    const [a, b] = servers;
    const email = 'variants@example.com';
    expect((await call(a.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } })).status).to.equal(201);
    // The mail is written by whichever process's delivery loop claims it (both run one on the one
    // database), into its own outbox; allow for a machine the parallel run keeps busy.
    const token = await mailedToken(outboxesUnder(shared), email, '/auth/confirm', 20_000);
    expect((await call(b.api, `/auth/confirm?token=${token}`)).status).to.equal(302);
    const login = await call(b.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
    apiKey = (await call(a.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: { name: 'k' } })).body.key;
    const uploaded = await call(a.api, '/files', {
      method: 'POST',
      apiKey,
      headers: { 'content-type': 'image/jpeg', 'x-file-name': 'big.jpg' },
      body: await exifJpeg(1600, 1200, 1),
    });
    expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
    fileId = uploaded.body.file.file_id;
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
    if (shared) await rm(shared, { recursive: true, force: true });
  });

  const imageOps = async () => {
    const usage = await call(servers[0].api, '/usage', { apiKey });
    expect(usage.status).to.equal(200);
    return usage.body.image_ops as number;
  };

  it('computes and counts a new variant once (image_ops +1) when 16 requests reach both processes at once, round after round, all answered with the same bytes', async () => {
    await new Promise((resolve) => setTimeout(resolve, FLUSHED_MS));
    let expected = await imageOps();
    for (const [round, query] of ['w=1024&format=webp', 'w=640&h=640&fit=contain&format=png', 'w=768&format=jpeg&q=70', 'w=480&format=avif'].entries()) {
      const results = await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const url = `${servers[i % 2].content}/m/${fileId}?${query}`;
          const response = await fetch(url);
          const bytes = Buffer.from(await response.arrayBuffer());
          const type = response.headers.get('content-type');
          checkResponse(
            servers[i % 2].content,
            'GET',
            `/m/${fileId}`,
            response.status,
            type,
            type?.startsWith('application/json') ? JSON.parse(bytes.toString()) : undefined,
          );
          return { status: response.status, sha256: createHash('sha256').update(bytes).digest('hex'), etag: response.headers.get('etag') };
        }),
      );
      expect(
        results.map((r) => r.status),
        `round ${round}`,
      ).to.deep.equal(Array(16).fill(200));
      expect(new Set(results.map((r) => r.sha256)).size, `round ${round}: one set of bytes`).to.equal(1);
      expect(new Set(results.map((r) => r.etag)).size).to.equal(1);
      expected += 1;
      await new Promise((resolve) => setTimeout(resolve, FLUSHED_MS));
      expect(await imageOps(), `round ${round}: image_ops`).to.equal(expected);
    }
    for (const server of servers) expect(server.output()).to.not.match(/"level":"error"/);
  });

  it('stops new variants at the plan’s limit exactly, across both processes, when more are asked of both at once than are left', async () => {
    const left = IMAGE_OPS_LIMIT - (await imageOps());
    // Widths of the size ladder the first test did not ask for in WebP: each a new variant.
    const widths = [16, 32, 64, 128, 256, 320, 1280, 1536];
    expect(left).to.be.within(1, widths.length - 5);
    const statuses = await Promise.all(
      widths.slice(0, left + 5).map(async (width, i) => {
        const response = await fetch(`${servers[i % 2].content}/m/${fileId}?w=${width}&format=webp`);
        const body = Buffer.from(await response.arrayBuffer());
        return response.status === 403 ? JSON.parse(body.toString()).code : response.status;
      }),
    );
    expect(
      statuses.filter((status) => status === 200),
      JSON.stringify(statuses),
    ).to.have.length(left);
    expect(
      statuses.filter((status) => status === 'IMAGE_OPS_LIMIT_REACHED'),
      JSON.stringify(statuses),
    ).to.have.length(5);
    // Counted in the database as they were taken: no flush to wait for.
    expect(await imageOps()).to.equal(IMAGE_OPS_LIMIT);
    expect((await fetch(`${servers[1].content}/m/${fileId}?w=1536&format=png`)).status).to.equal(403);
  });
});
