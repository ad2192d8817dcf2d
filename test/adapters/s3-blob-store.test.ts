import { createHash } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { expect } from 'chai';
import { S3BlobStore, type S3BlobStoreOptions } from '../../adapters/blobs/s3-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { chunked, collect, patternBytes, rejectionOf, sha256 } from '../contracts/blob-store.contract.js';
import { FakeS3Server, operationOf } from '../support/fake-s3-server.js';
import { S3RVER_CREDENTIALS, startS3TestServer } from '../support/s3-test-server.js';

const MiB = 1024 * 1024;
/** The smallest part S3 allows: bodies above it go as multipart uploads. */
const PART = 5 * MiB;

describe('S3BlobStore (fake S3: faults, multipart, conditional creates)', () => {
  const bucket = 'hangar-test';
  let fake: FakeS3Server;
  const stores: S3BlobStore[] = [];
  /** Hosts other than the fake that the SDK contacted (instance metadata, STS, amazonaws.com). */
  const foreignHosts: string[] = [];
  const onRequest = (message: unknown) => {
    const { request } = message as { request: { host: string } };
    if (request.host !== '127.0.0.1') foreignHosts.push(request.host);
  };
  const make = (options: Partial<S3BlobStoreOptions> = {}) => {
    const store = new S3BlobStore({
      bucket,
      prefix: 'pre/fix',
      endpoint: fake.url,
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
      partSizeBytes: PART,
      queueSize: 2,
      timeoutMs: 5_000,
      ...options,
    });
    stores.push(store);
    return store;
  };
  const put = (store: S3BlobStore, key: string, body: AsyncIterable<Uint8Array>, signal?: AbortSignal) =>
    store.put({ key, body, contentType: 'application/octet-stream', maxBytes: 100 * MiB, signal });
  const read = async (store: S3BlobStore, key: string) => collect((await store.get(key))!);
  const ops = (name: string) => fake.requests.filter((r) => operationOf(r) === name);

  before(() => diagnostics.subscribe('http.client.request.start', onRequest));
  after(() => diagnostics.unsubscribe('http.client.request.start', onRequest));
  beforeEach(async () => {
    fake = await new FakeS3Server([bucket]).start();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await fake.close();
  });

  it('names objects <prefix>/<key> and stores the content type', async () => {
    await make().put({ key: 'acct/file1', body: chunked(Buffer.from('a PNG, say')), contentType: 'image/png', maxBytes: 100 });
    expect(fake.objectKeys(bucket)).to.deep.equal(['pre/fix/acct/file1']);
    expect(fake.object(bucket, 'pre/fix/acct/file1')).to.deep.include({ contentType: 'image/png', bytes: Buffer.from('a PNG, say') });
  });

  it('sends a body of at most one part as one PutObject, a longer one as a multipart upload, both with If-None-Match: *', async () => {
    const store = make();
    const small = patternBytes(PART, 1);
    await put(store, 'u/small', chunked(small, [65_536]));
    expect(fake.operations()).to.deep.equal(['PutObject']);
    const large = patternBytes(2 * PART + 12_345, 5);
    expect((await put(store, 'u/large', chunked(large, [65_536]))).sha256).to.equal(sha256(large));
    expect(fake.operations().slice(1).sort()).to.deep.equal(['CompleteMultipartUpload', 'CreateMultipartUpload', 'UploadPart', 'UploadPart', 'UploadPart']);
    for (const request of [...ops('PutObject'), ...ops('CompleteMultipartUpload')]) expect(request.headers['if-none-match']).to.equal('*');
    expect((await read(store, 'u/large')).equals(large)).to.equal(true);
    expect((await read(store, 'u/small')).equals(small)).to.equal(true);
    expect(fake.openUploads()).to.equal(0);
  });

  it('cuts parts of maxBytes / 10 000 when the configured part size would need more than 10 000 parts', async () => {
    const store = make({ partSizeBytes: PART });
    const bytes = patternBytes(2 * PART + 100, 6);
    const maxBytes = 10_000 * (PART + MiB);
    expect((await store.put({ key: 'u/huge-limit', body: chunked(bytes, [65_536]), contentType: 'application/zip', maxBytes })).sha256).to.equal(sha256(bytes));
    expect(
      ops('UploadPart')
        .map((r) => Number(r.headers['content-length']))
        .sort((a, b) => b - a),
    ).to.deep.equal([PART + MiB, bytes.length - PART - MiB]);
  });

  it('retries 503 SlowDown and 500 InternalError on a PutObject, a part, a read and a delete, and succeeds', async function () {
    this.timeout(30_000);
    const store = make();
    fake.failNext(2, { status: 503, code: 'SlowDown', match: (r) => operationOf(r) === 'PutObject' });
    await put(store, 'u/small', chunked(Buffer.from('small')));
    fake.failNext(2, { status: 500, code: 'InternalError', match: (r) => operationOf(r) === 'UploadPart' && r.query.partNumber === '2' });
    const large = patternBytes(2 * PART + 1, 9);
    expect((await put(store, 'u/large', chunked(large, [65_536]))).sha256).to.equal(sha256(large));
    fake.failNext(2, { status: 503, code: 'SlowDown', match: (r) => operationOf(r) === 'GetObject' });
    expect((await read(store, 'u/large')).equals(large)).to.equal(true);
    fake.failNext(1, { status: 500, match: (r) => operationOf(r) === 'DeleteObject' });
    await store.delete('u/small');
    expect(fake.objectKeys(bucket)).to.deep.equal(['pre/fix/u/large']);
    expect(ops('PutObject')).to.have.length(3);
    expect(ops('UploadPart').filter((r) => r.query.partNumber === '2')).to.have.length(3);
  });

  it('resends a part whose connection dropped midway, and stores the body whole', async function () {
    this.timeout(30_000);
    const store = make();
    fake.dropNext(1, { afterBytes: 1 * MiB, match: (r) => operationOf(r) === 'UploadPart' && r.query.partNumber === '1' });
    const large = patternBytes(PART + 777, 3);
    expect((await put(store, 'u/dropped', chunked(large, [65_536]))).sha256).to.equal(sha256(large));
    expect(ops('UploadPart').filter((r) => r.query.partNumber === '1')).to.have.length(2);
    expect((await read(store, 'u/dropped')).equals(large)).to.equal(true);
    expect(fake.openUploads()).to.equal(0);
  });

  it('aborts the multipart upload when a part keeps failing after others succeeded, and leaves nothing', async function () {
    this.timeout(30_000);
    const store = make({ maxAttempts: 2 });
    fake.failAlways({ status: 500, match: (r) => operationOf(r) === 'UploadPart' && r.query.partNumber === '3' });
    const error = await rejectionOf(put(store, 'u/broken', chunked(patternBytes(3 * PART + 10), [65_536])));
    expect((error as DomainError).code).to.equal('BLOB_STORE_UNAVAILABLE');
    const succeeded = ops('UploadPart').filter((r) => r.query.partNumber !== '3').length;
    expect(succeeded, 'parts 1 and 2 were stored before part 3 failed').to.be.at.least(2);
    expect(ops('AbortMultipartUpload')).to.have.length(1);
    expect(ops('CompleteMultipartUpload')).to.have.length(0);
    expect(fake.openUploads()).to.equal(0);
    expect(fake.objectKeys(bucket)).to.deep.equal([]);
  });

  it('aborts the multipart upload when the body fails, passes maxBytes or the signal aborts after some parts, and leaves nothing', async function () {
    this.timeout(30_000);
    const store = make();
    const failure = new Error('client went away');
    async function* failing() {
      yield* chunked(patternBytes(2 * PART + 10), [65_536]);
      throw failure;
    }
    expect(await rejectionOf(put(store, 'u/failed', failing()))).to.equal(failure);
    const tooLarge = await rejectionOf(
      store.put({ key: 'u/over', body: chunked(patternBytes(3 * PART), [65_536]), contentType: 'application/octet-stream', maxBytes: 2 * PART + 1 }),
    );
    expect((tooLarge as DomainError).code).to.equal('FILE_TOO_LARGE');
    const controller = new AbortController();
    async function* stalled() {
      yield* chunked(patternBytes(2 * PART + 10), [65_536]);
      setTimeout(() => controller.abort(), 50);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
    await rejectionOf(put(store, 'u/aborted', stalled(), controller.signal));
    expect(ops('CreateMultipartUpload')).to.have.length(3);
    expect(ops('AbortMultipartUpload')).to.have.length(3);
    expect(fake.openUploads()).to.equal(0);
    expect(fake.objectKeys(bucket)).to.deep.equal([]);
  });

  it('answers FILE_TOO_LARGE, not the abort, when closing the body past maxBytes aborts the signal (as the HTTP edge’s signal does)', async () => {
    const store = make();
    const controller = new AbortController();
    async function* body() {
      try {
        for (let i = 0; i < 100; i++) yield patternBytes(65_536, i + 1);
      } finally {
        controller.abort(new Error('the request closed'));
      }
    }
    const error = await rejectionOf(
      store.put({ key: 'u/over', body: body(), contentType: 'application/octet-stream', maxBytes: 1_000_000, signal: controller.signal }),
    );
    expect((error as DomainError).code).to.equal('FILE_TOO_LARGE');
    expect(fake.objectKeys(bucket)).to.deep.equal([]);
  });

  it('refuses a second multipart put to the same key (412 on CompleteMultipartUpload), keeps the first object and aborts the upload', async () => {
    const store = make();
    const first = patternBytes(PART + 1, 1);
    await put(store, 'u/taken', chunked(first, [65_536]));
    const error = await rejectionOf(put(store, 'u/taken', chunked(patternBytes(PART + 1, 2), [65_536])));
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(DomainError);
    expect((error as Error).message).to.contain('already exists');
    expect((await read(store, 'u/taken')).equals(first)).to.equal(true);
    expect(fake.openUploads()).to.equal(0);
  });

  it('with ifNoneMatch off, checks with HeadObject before a create and sends no If-None-Match', async () => {
    const store = make({ ifNoneMatch: false });
    await put(store, 'u/once', chunked(Buffer.from('once')));
    const error = await rejectionOf(put(store, 'u/once', chunked(Buffer.from('twice'))));
    expect((error as Error).message).to.contain('already exists');
    expect(fake.operations()).to.deep.equal(['HeadObject', 'PutObject', 'HeadObject']);
    expect(ops('PutObject')[0].headers['if-none-match']).to.equal(undefined);
  });

  it('answers BLOB_STORE_UNAVAILABLE soon when the store keeps answering 503 SlowDown, for every call, and leaves nothing', async function () {
    this.timeout(30_000);
    const store = make({ maxAttempts: 2 });
    fake.failAlways({ status: 503, code: 'SlowDown' });
    for (const [name, attempt] of [
      ['small put', () => put(store, 'u/small', chunked(Buffer.from('x')))],
      ['multipart put', () => put(store, 'u/large', chunked(patternBytes(PART + 1), [65_536]))],
      ['get', () => store.get('u/x')],
      ['stat', () => store.stat('u/x')],
      ['delete', () => store.delete('u/x')],
      ['deleteUnder', () => store.deleteUnder('u/x')],
      [
        'list',
        async () => {
          for await (const entry of store.list()) void entry;
        },
      ],
      ['ping', () => store.ping()],
    ] as const) {
      const started = Date.now();
      const error = await rejectionOf(attempt());
      expect(error, name).to.be.instanceOf(DomainError);
      expect((error as DomainError).code, name).to.equal('BLOB_STORE_UNAVAILABLE');
      expect((error as DomainError).message, name).to.not.contain(fake.url);
      expect(Date.now() - started, name).to.be.below(5_000);
    }
    expect(ops('HeadBucket'), 'the health check does not retry').to.have.length(1);
    fake.heal();
    expect(fake.objectKeys(bucket)).to.deep.equal([]);
  });

  it('answers BLOB_STORE_UNAVAILABLE within its timeouts when the store hangs, for every call', async function () {
    this.timeout(30_000);
    const timeoutMs = 300;
    const store = make({ timeoutMs, maxAttempts: 2 });
    await put(store, 'u/there', chunked(Buffer.from('there')));
    fake.hang();
    for (const [name, attempt] of [
      ['small put', () => put(store, 'u/small', chunked(Buffer.from('x')))],
      ['multipart put', () => put(store, 'u/large', chunked(patternBytes(PART + 1), [65_536]))],
      ['get', () => store.get('u/there')],
      ['stat', () => store.stat('u/there')],
      ['delete', () => store.delete('u/there')],
      ['ping', () => store.ping()],
    ] as const) {
      const started = Date.now();
      const error = await rejectionOf(attempt());
      expect((error as DomainError).code, name).to.equal('BLOB_STORE_UNAVAILABLE');
      // Two attempts, their backoff, and (multipart) the abort's own attempts.
      expect(Date.now() - started, name).to.be.below(timeoutMs * 8 + 1_000);
    }
    fake.heal();
  });

  it('ends a download with BLOB_STORE_UNAVAILABLE when the store stalls after the first bytes', async () => {
    const store = make({ timeoutMs: 300 });
    await put(store, 'u/there', chunked(Buffer.from('there')));
    fake.stallBodies((r) => operationOf(r) === 'GetObject');
    const body = (await store.get('u/there'))!;
    const error = await rejectionOf(collect(body));
    expect((error as DomainError).code).to.equal('BLOB_STORE_UNAVAILABLE');
  });

  it('lets a slow consumer take longer than every timeout to read a download (only waits on the store are timed)', async () => {
    const timeoutMs = 200;
    const store = make({ timeoutMs, maxAttempts: 1 });
    const bytes = patternBytes(4 * MiB, 8);
    await put(store, 'u/slow', chunked(bytes, [65_536]));
    const iterator = (await store.get('u/slow'))![Symbol.asyncIterator]();
    const chunks: Buffer[] = [Buffer.from((await iterator.next()).value as Uint8Array)];
    // Longer than the request timeout and than the whole call's deadline (attempts + 1 timeouts).
    await new Promise((resolve) => setTimeout(resolve, timeoutMs * 4));
    for (let result = await iterator.next(); !result.done; result = await iterator.next()) chunks.push(Buffer.from(result.value));
    expect(Buffer.concat(chunks).equals(bytes)).to.equal(true);
  });

  it('reports a missing bucket as BLOB_STORE_UNAVAILABLE on ping', async () => {
    const error = await rejectionOf(make({ bucket: 'no-such-bucket' }).ping());
    expect((error as DomainError).code).to.equal('BLOB_STORE_UNAVAILABLE');
  });

  it('streams a 32 MiB body with at most part size × (queue size + 1) bytes ahead of the store, and reads it back', async function () {
    this.timeout(60_000);
    const store = make({ partSizeBytes: PART, queueSize: 2 });
    const chunkSize = 64 * 1024;
    const total = 32 * MiB;
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
    // Two parts in flight, one being gathered, and the loopback socket buffers.
    expect(maxAhead, 'bytes held in memory ahead of the store').to.be.below(3 * PART + 2 * MiB);
    expect(ops('UploadPart')).to.have.length(Math.ceil(total / PART));
    const hash = createHash('sha256');
    for await (const chunk of (await store.get('u/large'))!) hash.update(chunk);
    expect(hash.digest('hex')).to.equal(stored.sha256);
  });

  it('contacted no host but the fake (no instance metadata, no STS)', () => {
    expect(foreignHosts).to.deep.equal([]);
  });
});

describe('S3BlobStore (s3rver: multipart uploads on a real S3-compatible server)', () => {
  it('stores a multipart body, reads it whole and by range, lists and deletes it, and aborts a failed one leaving nothing', async function () {
    this.timeout(30_000);
    const server = await startS3TestServer(['hangar-mpu']);
    const store = new S3BlobStore({
      bucket: 'hangar-mpu',
      prefix: 'p',
      endpoint: server.url,
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
      ifNoneMatch: false,
      partSizeBytes: PART,
    });
    try {
      const bytes = patternBytes(2 * PART + 4321, 4);
      expect((await store.put({ key: 'u/big', body: chunked(bytes, [65_536]), contentType: 'application/zip', maxBytes: bytes.length })).sha256).to.equal(
        sha256(bytes),
      );
      expect(sha256(await collect((await store.get('u/big'))!))).to.equal(sha256(bytes));
      const range = { start: PART - 10, end: PART + 10 };
      expect((await collect((await store.get('u/big', range))!)).equals(bytes.subarray(range.start, range.end + 1))).to.equal(true);
      async function* failing() {
        yield* chunked(patternBytes(PART + 10), [65_536]);
        throw new Error('client went away');
      }
      await rejectionOf(store.put({ key: 'u/failed', body: failing(), contentType: 'application/zip', maxBytes: 100 * MiB }));
      const listed = [];
      for await (const entry of store.list()) listed.push([entry.key, entry.size]);
      expect(listed).to.deep.equal([['u/big', bytes.length]]);
      await store.delete('u/big');
      expect(await store.get('u/big')).to.equal(undefined);
    } finally {
      await store.close();
      await server.close();
    }
  });
});
