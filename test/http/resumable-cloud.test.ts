import { expect } from 'chai';
import { Upload } from 'tus-js-client';
import { randomFileOf, sha256 } from '../support/bytes.js';
import { FakeGcsServer } from '../support/fake-gcs-server.js';
import { FakeS3Server } from '../support/fake-s3-server.js';
import { call, signUpWithKey, startTestServer, type TestServer } from '../support/http-harness.js';
import { S3RVER_CREDENTIALS } from '../support/s3-test-server.js';

// Resumable uploads (docs/api.md, "Resumable uploads") through tus-js-client with the blobs on the GCS
// fake and on the S3 fake: partial bytes in a resumable session / a multipart upload, unaligned
// tails as objects of their own. On Postgres when run with HANGAR_TEST_DB=postgres.

const MIB = 1024 * 1024;
const BUCKET = 'hangar-resumable';

interface Backend {
  name: string;
  start(): Promise<{ env: Record<string, string>; objects(): string[]; openUploads(): number; close(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'the GCS fake (a resumable session per upload)',
    start: async () => {
      const fake = await new FakeGcsServer([BUCKET]).start();
      return {
        env: { BLOB_STORE_URL: `gs://${BUCKET}/blobs`, GCS_API_ENDPOINT: fake.url, GCS_RESUMABLE_THRESHOLD_BYTES: String(MIB) },
        objects: () => fake.objectNames(BUCKET),
        openUploads: () => fake.openSessions(),
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'the S3 fake (a multipart upload per upload)',
    start: async () => {
      const fake = await new FakeS3Server([BUCKET]).start();
      return {
        env: {
          BLOB_STORE_URL: `s3://${BUCKET}/blobs`,
          S3_ENDPOINT: fake.url,
          S3_FORCE_PATH_STYLE: 'true',
          AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        },
        objects: () => fake.objectKeys(BUCKET),
        openUploads: () => fake.openUploads(),
        close: () => fake.close(),
      };
    },
  },
];

for (const backend of BACKENDS) {
  describe(`Resumable uploads with tus-js-client, blobs on ${backend.name}`, function () {
    this.timeout(60_000);
    let store: Awaited<ReturnType<Backend['start']>>;
    let server: TestServer;
    let apiKey: string;
    let userId: string;

    before(async () => {
      store = await backend.start();
      server = await startTestServer({ ...store.env, DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(64 * MIB) });
      ({ apiKey, userId } = await signUpWithKey(server, 'resumable@example.com'));
    });
    after(async () => {
      await server?.stop();
      await store?.close();
    });

    /**
     * Runs tus-js-client on `bytes` (a new upload, or the one at `uploadUrl`) until it has sent
     * `until` of them, then cuts the connection (abort mid-PATCH); without `until`, to the end.
     * @returns the upload's URL and, once complete, the Hangar-File-Id of the last answer
     */
    const run = (bytes: Buffer, options: { uploadUrl?: string; until?: number; chunkSize: number }) =>
      new Promise<{ url: string; fileId?: string; startedAt: number }>((resolve, reject) => {
        let fileId: string | undefined;
        let startedAt = -1;
        const upload = new Upload(bytes, {
          endpoint: `${server.api}/files/resumable`,
          ...(options.uploadUrl ? { uploadUrl: options.uploadUrl } : {}),
          chunkSize: options.chunkSize,
          retryDelays: [],
          headers: { 'x-api-key': apiKey },
          metadata: { filename: 'movie.zip', filetype: 'application/zip', isPublic: 'true' },
          onAfterResponse: (request, response) => {
            if (request.getMethod() === 'HEAD' && startedAt < 0) startedAt = Number(response.getHeader('Upload-Offset'));
            fileId = response.getHeader('Hangar-File-Id') ?? fileId;
          },
          onProgress: (sent) => {
            if (options.until !== undefined && sent >= options.until) {
              void upload.abort().then(() => resolve({ url: upload.url!, startedAt }));
            }
          },
          onSuccess: () => resolve({ url: upload.url!, fileId, startedAt }),
          onError: reject,
        });
        upload.start();
      });

    it('cut at 30 % and 60 % and resumed by new clients, stores a byte-identical file, and leaves no partial object behind', async () => {
      const bytes = Buffer.from(randomFileOf(20 * MIB + 12_345, 'application/zip', 27));
      // Chunks that are no multiple of 256 KiB or 5 MiB: every append leaves an unaligned tail.
      const chunkSize = 3 * MIB + 1000;
      const first = await run(bytes, { until: 0.3 * bytes.length, chunkSize });
      const objectsMidway = store.objects().filter((name) => name.includes('/.partial/'));
      expect(store.openUploads()).to.equal(1);
      expect(objectsMidway, 'the unaligned tail is kept as an object of its own').to.have.length.at.least(1);
      const second = await run(bytes, { uploadUrl: first.url, until: 0.6 * bytes.length, chunkSize });
      expect(second.startedAt, 'resumed where the server stopped, not from zero').to.be.greaterThan(0);
      const last = await run(bytes, { uploadUrl: first.url, chunkSize });
      expect(last.startedAt).to.be.at.least(second.startedAt);
      expect(last.fileId).to.be.a('string');

      const answer = await call(server.api, new URL(first.url).pathname, { apiKey });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body.file).to.include({ file_id: last.fileId, size: bytes.length, name: 'movie.zip' });
      const served = await fetch(answer.body.file.public_url.replace('http://cdn.hangar.test', server.content));
      expect(sha256(new Uint8Array(await served.arrayBuffer()))).to.equal(sha256(bytes));
      expect(store.objects()).to.deep.equal([`blobs/${userId}/${last.fileId}`]);
      expect(store.openUploads()).to.equal(0);
      const list = await call(server.api, '/files', { apiKey });
      expect(list.body.files.map((file: { file_id: string }) => file.file_id)).to.deep.equal([last.fileId]);
      expect((await call(server.api, `/files/${last.fileId}`, { method: 'DELETE', apiKey })).status).to.equal(204);
    });

    it('termination removes the partial upload from the store', async () => {
      const bytes = Buffer.from(randomFileOf(12 * MIB, 'application/zip', 28));
      const cut = await run(bytes, { until: 0.5 * bytes.length, chunkSize: 3 * MIB + 1000 });
      expect(store.openUploads()).to.equal(1);
      await Upload.terminate(cut.url, { headers: { 'x-api-key': apiKey } });
      expect(store.openUploads()).to.equal(0);
      expect(store.objects()).to.deep.equal([]);
      expect((await call(server.api, new URL(cut.url).pathname, { apiKey })).status).to.equal(404);
    });
  });
}
