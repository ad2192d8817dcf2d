import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import * as tus from 'tus-js-client';
import { randomFileOf, sha256 } from '../support/bytes.js';
import { FakeGcsServer } from '../support/fake-gcs-server.js';
import { call, mailedToken } from '../support/http-harness.js';
import { freePort, type ServerProcess, startServerProcess } from '../support/server-process.js';
import { freshServerDatabase, type ServerDatabase } from '../support/test-database.js';
import { LARGE_UPLOADS, RESUMABLE_SIZE, tusOptions } from '../support/tus-client.js';

const MiB = 1024 * 1024;
const LONG = process.env.HANGAR_LONG === '1';

/** An API key of a new confirmed account on `server`, whose outbox is under `dataDir`. */
async function anApiKey(server: ServerProcess, dataDir: string, email: string): Promise<string> {
  await call(server.api, '/auth/register', { method: 'POST', json: { email, password: 'secret1' } });
  const token = await mailedToken({ dataDir }, email, '/auth/confirm');
  await call(server.api, `/auth/confirm?token=${token}`);
  const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'secret1' } });
  return (await call(server.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key;
}

/** Where the server keeps the blobs: its local disk (the default), or the GCS fake (a resumable session per upload). */
const BLOB_STORES: { name: string; start(): Promise<{ env: Record<string, string>; objects?(): string[]; close(): Promise<void> }> }[] = [
  { name: 'local disk', start: async () => ({ env: {}, close: async () => undefined }) },
  {
    name: 'the GCS fake',
    start: async () => {
      const fake = await new FakeGcsServer(['hangar-killed']).start();
      return {
        env: { BLOB_STORE_URL: 'gs://hangar-killed/blobs', GCS_API_ENDPOINT: fake.url, GCS_RESUMABLE_THRESHOLD_BYTES: String(MiB) },
        objects: () => fake.objectNames('hangar-killed'),
        close: () => fake.close(),
      };
    },
  },
];

for (const blobStore of BLOB_STORES)
  describe(`HTTP: resumable uploads across a killed server process, blobs on ${blobStore.name}`, function () {
    this.timeout(LONG ? 900_000 : 180_000);
    let blobs: Awaited<ReturnType<(typeof BLOB_STORES)[number]['start']>>;
    let dataDir: string;
    let database: ServerDatabase;
    let env: Record<string, string>;
    let server: ServerProcess | undefined;

    before(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-tus-proc-'));
      // One database for every start of the server (the harness would give each start a new one).
      database = await freshServerDatabase(dataDir);
      blobs = await blobStore.start();
      env = {
        ...LARGE_UPLOADS,
        ...database.env,
        ...blobs.env,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        CONTENT_PORT: String(await freePort()),
        DATA_DIR: dataDir,
        PASSWORD_HASH_MEMORY_KIB: '1024',
      };
      server = await startServerProcess(env);
    });
    after(async () => {
      await server?.stop();
      await blobs?.close();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('resumes with tus-js-client after a cut at 30 %, SIGKILL of the server at 60 % (restarted) and a cut at 90 %, to a byte-identical file', async () => {
      const apiKey = await anApiKey(server!, dataDir, 'tus-kill@example.com');
      const bytes = randomFileOf(RESUMABLE_SIZE, 'video/mp4', 11);
      const events: string[] = [];
      const fileId = await new Promise<string>((resolve, reject) => {
        const pending = [0.3, 0.6, 0.9];
        let busy = false;
        let last: string | undefined;
        const upload: tus.Upload = new tus.Upload(
          Buffer.from(bytes),
          tusOptions(server!.api, apiKey, {
            onProgress: (sent, total) => {
              if (busy || pending.length === 0 || sent / total < pending[0]) return;
              const fraction = pending.shift()!;
              busy = true;
              const step =
                fraction === 0.6
                  ? (async () => {
                      // The PATCH in flight dies with the process; the client retries on its own.
                      server!.child.kill('SIGKILL');
                      await server!.stop();
                      events.push('killed');
                      server = await startServerProcess(env);
                      events.push('restarted');
                    })()
                  : upload.abort(false).then(() => {
                      events.push(`cut at ${fraction}`);
                      upload.start();
                    });
              step.then(() => (busy = false), reject);
            },
            onAfterResponse: (_request, response) => {
              last = response.getHeader('Hangar-File-Id') || last;
            },
            onSuccess: () => (last ? resolve(last) : reject(new Error('no Hangar-File-Id'))),
            onError: reject,
          }),
        );
        upload.start();
      });
      expect(events).to.deep.equal(['cut at 0.3', 'killed', 'restarted', 'cut at 0.9']);
      const content = await fetch(`${server!.api}/files/${fileId}/content`, { headers: { 'x-api-key': apiKey } });
      expect(content.status).to.equal(200);
      expect(sha256(new Uint8Array(await content.arrayBuffer()))).to.equal(sha256(bytes));
      if (blobs.objects)
        expect(
          blobs.objects().filter((name) => name.endsWith(`/${fileId}`)),
          'the blob is in the bucket',
        ).to.have.length(1);
    });

    if (LONG && blobStore.name === 'local disk')
      it('keeps server RSS growth within 64 MiB during a 1 GiB resumable upload in 16 MiB chunks (HANGAR_LONG)', async () => {
        const apiKey = await anApiKey(server!, dataDir, 'tus-rss@example.com');
        const total = 1024 * MiB;
        // Warm-up: one 32 MiB resumable upload, so lazily loaded code and V8's grown young generation are in the baseline.
        await new Promise<void>((resolve, reject) =>
          new tus.Upload(
            Buffer.from(randomFileOf(32 * MiB, 'video/mp4', 3)),
            tusOptions(server!.api, apiKey, { chunkSize: 16 * MiB, onSuccess: () => resolve(), onError: reject }),
          ).start(),
        );
        const baseline = await server!.memory();
        const piece = randomFileOf(MiB, 'video/mp4', 5);
        const expected = createHash('sha256');
        let made = 0;
        const source = new Readable({
          read() {
            if (made === total / MiB) return void this.push(null);
            made++;
            expected.update(piece);
            this.push(piece);
          },
        });
        let peak = baseline.rss;
        const sampler = setInterval(
          () =>
            void server!.memory().then(
              (m) => (peak = Math.max(peak, m.rss)),
              () => undefined,
            ),
          100,
        );
        let fileId: string | undefined;
        try {
          await new Promise<void>((resolve, reject) =>
            new tus.Upload(
              source,
              tusOptions(server!.api, apiKey, {
                chunkSize: 16 * MiB,
                uploadSize: total,
                onAfterResponse: (_request, response) => {
                  fileId = response.getHeader('Hangar-File-Id') || fileId;
                },
                onSuccess: () => resolve(),
                onError: reject,
              }),
            ).start(),
          );
        } finally {
          clearInterval(sampler);
        }
        const after = await server!.memory();
        peak = Math.max(peak, after.rss);
        expect(peak - baseline.rss, `RSS ${baseline.rss} → peak ${peak}`).to.be.at.most(64 * MiB);
        expect((await call(server!.api, `/files/${fileId}`, { apiKey })).body).to.include({ size: total });
        const content = await fetch(`${server!.api}/files/${fileId}/content`, { headers: { 'x-api-key': apiKey } });
        const stored = createHash('sha256');
        for await (const chunk of content.body as unknown as AsyncIterable<Uint8Array>) stored.update(chunk);
        expect(stored.digest('hex')).to.equal(expected.digest('hex'));
      });
  });
