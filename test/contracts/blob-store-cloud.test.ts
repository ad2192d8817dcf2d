import { createHash } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { expect } from 'chai';
import { GcsBlobStore, type GcsBlobStoreOptions } from '../../adapters/blobs/gcs-blob-store.js';
import { S3BlobStore } from '../../adapters/blobs/s3-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { FakeGcsServer } from '../support/fake-gcs-server.js';
import { FakeS3Server } from '../support/fake-s3-server.js';
import { S3RVER_CREDENTIALS, startS3TestServer } from '../support/s3-test-server.js';
import { chunked, collect, describeBlobStoreContract, patternBytes, rejectionOf, sha256 } from './blob-store.contract.js';

// The blob store contract on the cloud stores (GCS against a fake JSON API, S3 against s3rver and a
// fake with If-None-Match) and their own checks; the local stores are in blob-store.test.ts. Two
// files, so that a parallel run's workers share them.

describeBlobStoreContract('GcsBlobStore (fake GCS JSON API)', async () => {
  const fake = await new FakeGcsServer(['hangar-contract']).start();
  // Pages of 50, so listing 120 blobs takes several objects.list requests.
  fake.listPageLimit = 50;
  const store = new GcsBlobStore({ bucket: 'hangar-contract', prefix: 'blobs', apiEndpoint: fake.url, resumableThresholdBytes: 256 * 1024, timeoutMs: 5_000 });
  return { store, close: () => fake.close() };
});

describeBlobStoreContract('S3BlobStore (s3rver, a real S3-compatible server; no If-None-Match, so HeadObject before each create)', async () => {
  const server = await startS3TestServer(['hangar-contract']);
  const store = new S3BlobStore({
    bucket: 'hangar-contract',
    prefix: 'blobs',
    endpoint: server.url,
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    ifNoneMatch: false,
    timeoutMs: 5_000,
  });
  return {
    store,
    close: async () => {
      await store.close();
      await server.close();
    },
  };
});

describeBlobStoreContract('S3BlobStore (fake S3 with If-None-Match)', async () => {
  const fake = await new FakeS3Server(['hangar-contract']).start();
  // Pages of 50, so listing 120 blobs takes several ListObjectsV2 requests.
  fake.listPageLimit = 50;
  const store = new S3BlobStore({
    bucket: 'hangar-contract',
    prefix: 'blobs',
    endpoint: fake.url,
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    timeoutMs: 5_000,
  });
  return {
    store,
    close: async () => {
      await store.close();
      await fake.close();
    },
  };
});

describe('GcsBlobStore', () => {
  const bucket = 'hangar-test';
  let fake: FakeGcsServer;
  /** Hosts other than the fake that the client library contacted (metadata server, OAuth, googleapis.com). */
  const foreignHosts: string[] = [];
  const onRequest = (message: unknown) => {
    const { request } = message as { request: { host: string } };
    if (request.host !== '127.0.0.1') foreignHosts.push(request.host);
  };
  const make = (options: Partial<GcsBlobStoreOptions> = {}) =>
    new GcsBlobStore({
      bucket,
      prefix: 'pre/fix',
      apiEndpoint: fake.url,
      resumableThresholdBytes: 256 * 1024,
      timeoutMs: 5_000,
      retry: { maxDelayMs: 1_000 },
      ...options,
    });
  const put = (store: GcsBlobStore, key: string, body: AsyncIterable<Uint8Array>, signal?: AbortSignal) =>
    store.put({ key, body, contentType: 'application/octet-stream', maxBytes: 100 * 1024 * 1024, signal });
  const read = async (store: GcsBlobStore, key: string) => collect((await store.get(key))!);

  before(() => diagnostics.subscribe('http.client.request.start', onRequest));
  after(() => diagnostics.unsubscribe('http.client.request.start', onRequest));
  beforeEach(async () => {
    fake = await new FakeGcsServer([bucket]).start();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('names objects <prefix>/<key> and stores the content type, size and hashes GCS reports', async () => {
    const bytes = Buffer.from('a PNG, say');
    await make().put({ key: 'acct/file1', body: chunked(bytes), contentType: 'image/png', maxBytes: 100 });
    expect(fake.objectNames(bucket)).to.deep.equal(['pre/fix/acct/file1']);
    const metadata = fake.objectMetadata(bucket, 'pre/fix/acct/file1')!;
    expect(metadata).to.include({ contentType: 'image/png', size: String(bytes.length), md5Hash: createHash('md5').update(bytes).digest('base64') });
  });

  it('sends a body shorter than the threshold in one multipart request, a longer one as a chunked resumable upload', async () => {
    const store = make({ resumableThresholdBytes: 256 * 1024 });
    await put(store, 'u/small', chunked(patternBytes(256 * 1024 - 1), [10_000]));
    expect(fake.uploadTypes()).to.deep.equal(['multipart']);
    const large = patternBytes(700_000, 5);
    await put(store, 'u/large', chunked(large, [10_000]));
    expect(fake.uploadTypes()).to.deep.equal(['multipart', 'resumable']);
    const ranges = fake.requests.filter((r) => r.method === 'PUT').map((r) => r.headers['content-range']);
    expect(ranges).to.deep.equal(['bytes 0-262143/*', 'bytes 262144-524287/*', 'bytes 524288-699999/700000']);
    expect((await read(store, 'u/large')).equals(large)).to.equal(true);
    expect(fake.openSessions()).to.equal(0);
  });

  it('retries injected 503s on a single-request upload, a resumable chunk, a metadata read and a delete, and succeeds', async function () {
    this.timeout(30_000);
    const store = make();
    fake.failNext(2, { match: (r) => r.query.uploadType === 'multipart' });
    await put(store, 'u/small', chunked(Buffer.from('small')));
    // Data chunks only: the library does not retry its status query (`bytes */*`) after a failed chunk.
    fake.failNext(2, { match: (r) => r.method === 'PUT' && /^bytes \d/.test(String(r.headers['content-range'])) });
    const large = patternBytes(600_000, 9);
    expect((await put(store, 'u/large', chunked(large, [65_536]))).sha256).to.equal(sha256(large));
    fake.failNext(2, { match: (r) => r.method === 'GET' });
    expect((await read(store, 'u/large')).equals(large)).to.equal(true);
    fake.failNext(1, { match: (r) => r.method === 'DELETE' });
    await store.delete('u/small');
    expect(fake.objectNames(bucket)).to.deep.equal(['pre/fix/u/large']);
    expect(fake.requests.filter((r) => r.query.uploadType === 'multipart')).to.have.length(3);
  });

  it('answers BLOB_STORE_UNAVAILABLE soon when GCS keeps answering 503, for every call, and leaves no object', async function () {
    this.timeout(30_000);
    const store = make({ retry: { maxRetries: 1, maxDelayMs: 1_000 } });
    fake.failAlways();
    for (const attempt of [
      () => put(store, 'u/small', chunked(Buffer.from('x'))),
      () => put(store, 'u/large', chunked(patternBytes(600_000), [65_536])),
      () => store.get('u/x'),
      () => store.delete('u/x'),
      () => store.ping(),
    ]) {
      const started = Date.now();
      const error = await rejectionOf(attempt());
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).code).to.equal('BLOB_STORE_UNAVAILABLE');
      expect(Date.now() - started).to.be.below(6_000);
    }
    fake.heal();
    expect(fake.objectNames(bucket)).to.deep.equal([]);
  });

  it('answers BLOB_STORE_UNAVAILABLE within the timeout when GCS hangs, for every call', async function () {
    this.timeout(30_000);
    const timeoutMs = 400;
    const store = make({ timeoutMs, retry: { maxRetries: 1, maxDelayMs: 1_000 } });
    await put(store, 'u/there', chunked(Buffer.from('there')));
    fake.hang();
    for (const [name, attempt, limit] of [
      // A single-request put retries whole (request timeout, 1 s delay, again), then cleans up: bounded by 5 + 1 timeouts.
      ['small put', () => put(store, 'u/small', chunked(Buffer.from('x'))), timeoutMs * 6 + 500],
      ['resumable put', () => put(store, 'u/large', chunked(patternBytes(600_000), [65_536])), timeoutMs * 3 + 500],
      ['get', () => store.get('u/there'), timeoutMs + 500],
      ['delete', () => store.delete('u/there'), timeoutMs + 500],
      ['ping', () => store.ping(), timeoutMs + 500],
    ] as const) {
      const started = Date.now();
      const error = await rejectionOf(attempt());
      expect((error as DomainError).code, name).to.equal('BLOB_STORE_UNAVAILABLE');
      expect(Date.now() - started, name).to.be.below(limit);
    }
    fake.heal();
  });

  it('ends a download with BLOB_STORE_UNAVAILABLE when GCS stalls after the metadata', async function () {
    const store = make({ timeoutMs: 400 });
    await put(store, 'u/there', chunked(Buffer.from('there')));
    fake.hang((r) => r.query.alt === 'media');
    const body = (await store.get('u/there'))!;
    const error = await rejectionOf(collect(body));
    expect((error as DomainError).code).to.equal('BLOB_STORE_UNAVAILABLE');
  });

  it('leaves no object when a resumable upload is aborted midway or its body fails', async () => {
    const store = make();
    const controller = new AbortController();
    async function* stalled() {
      yield patternBytes(600_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
    await rejectionOf(put(store, 'u/aborted', stalled(), controller.signal));
    const failure = new Error('client went away');
    async function* failing() {
      yield patternBytes(600_000);
      throw failure;
    }
    expect(await rejectionOf(put(store, 'u/failed', failing()))).to.equal(failure);
    expect(await store.get('u/aborted')).to.equal(undefined);
    expect(fake.objectNames(bucket)).to.deep.equal([]);
  });

  it('refuses a second resumable put to the same key (412 on ifGenerationMatch=0) and keeps the first object', async () => {
    const store = make();
    const first = patternBytes(600_000, 1);
    await put(store, 'u/taken', chunked(first, [65_536]));
    const error = await rejectionOf(put(store, 'u/taken', chunked(patternBytes(600_000, 2), [65_536])));
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(DomainError);
    expect((error as Error).message).to.contain('already exists');
    expect((await read(store, 'u/taken')).equals(first)).to.equal(true);
    expect(fake.requests.filter((r) => r.method === 'POST').every((r) => r.query.ifGenerationMatch === '0')).to.equal(true);
  });

  it('reports a missing bucket as BLOB_STORE_UNAVAILABLE on ping', async () => {
    const error = await rejectionOf(make({ bucket: 'no-such-bucket' }).ping());
    expect((error as DomainError).code).to.equal('BLOB_STORE_UNAVAILABLE');
  });

  it('streams a 64 MiB body to GCS with bounded memory and reads it back', async function () {
    this.timeout(120_000);
    const store = make({ resumableThresholdBytes: 1024 * 1024 });
    const chunkSize = 64 * 1024;
    const total = 64 * 1024 * 1024;
    const expected = createHash('sha256');
    let yielded = 0;
    let maxAhead = 0;
    async function* large() {
      for (let i = 0; yielded < total; i++) {
        maxAhead = Math.max(maxAhead, yielded - fake.bytesReceived);
        const chunk = patternBytes(chunkSize, i + 1);
        expected.update(chunk);
        yielded += chunk.length;
        yield chunk;
      }
    }
    const stored = await put(store, 'u/large', large());
    expect(stored).to.deep.equal({ size: total, sha256: expected.digest('hex') });
    // The held first MiB, one 1 MiB chunk in the library's retry cache, and the loopback socket buffers.
    expect(maxAhead, 'bytes held in memory ahead of GCS').to.be.below(8 * 1024 * 1024);
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of (await store.get('u/large'))!) {
      hash.update(chunk);
      size += chunk.length;
    }
    expect(size).to.equal(total);
    expect(hash.digest('hex')).to.equal(stored.sha256);
  });

  it('contacted no host but the fake (no metadata server, no OAuth)', () => {
    expect(foreignHosts).to.deep.equal([]);
  });
});
