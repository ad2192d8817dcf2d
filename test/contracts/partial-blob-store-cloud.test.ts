import { expect } from 'chai';
import { GcsBlobStore } from '../../adapters/blobs/gcs-blob-store.js';
import { GcsPartialBlobStore } from '../../adapters/blobs/gcs-partial-blob-store.js';
import { S3BlobStore } from '../../adapters/blobs/s3-blob-store.js';
import { S3PartialBlobStore } from '../../adapters/blobs/s3-partial-blob-store.js';
import { FakeGcsServer } from '../support/fake-gcs-server.js';
import { FakeS3Server } from '../support/fake-s3-server.js';
import { S3RVER_CREDENTIALS, startS3TestServer } from '../support/s3-test-server.js';
import { chunked, collect, patternBytes, sha256 } from './blob-store.contract.js';
import { describePartialBlobStoreContract } from './partial-blob-store.contract.js';

const MIB = 1024 * 1024;

/** A GCS partial store and blob store over a fresh fake GCS; chunks of 256 KiB so that small bodies cross several. */
async function gcs() {
  const fake = await new FakeGcsServer(['hangar-partials']).start();
  const options = { bucket: 'hangar-partials', prefix: 'blobs', apiEndpoint: fake.url, timeoutMs: 5_000 };
  const partials = () => new GcsPartialBlobStore({ ...options, chunkSizeBytes: 256 * 1024 });
  return { fake, store: partials(), blobs: new GcsBlobStore(options), reopen: async () => partials(), close: () => fake.close() };
}

/** An S3 partial store and blob store over a fresh fake S3 (which refuses parts under 5 MiB but the last). */
async function s3() {
  const fake = await new FakeS3Server(['hangar-partials']).start();
  const options = { bucket: 'hangar-partials', prefix: 'blobs', endpoint: fake.url, forcePathStyle: true, credentials: S3RVER_CREDENTIALS, timeoutMs: 5_000 };
  const partials = () => new S3PartialBlobStore({ ...options, partSizeBytes: 5 * MIB });
  return { fake, store: partials(), blobs: new S3BlobStore(options), reopen: async () => partials(), close: () => fake.close() };
}

describePartialBlobStoreContract('GcsPartialBlobStore (fake GCS JSON API)', gcs);
describePartialBlobStoreContract('S3PartialBlobStore (fake S3)', s3);
describePartialBlobStoreContract('S3PartialBlobStore (s3rver, a real S3-compatible server; no If-None-Match)', async () => {
  const server = await startS3TestServer(['hangar-partials']);
  const options = {
    bucket: 'hangar-partials',
    prefix: 'blobs',
    endpoint: server.url,
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    ifNoneMatch: false,
    timeoutMs: 5_000,
  };
  const partials = () => new S3PartialBlobStore({ ...options, partSizeBytes: 5 * MIB });
  return { store: partials(), blobs: new S3BlobStore(options), reopen: async () => partials(), close: () => server.close() };
});

describe('GcsPartialBlobStore', () => {
  it('sends only 256 KiB multiples before the end, keeps the tail as an object outside the blob listing, and removes it once complete', async () => {
    const subject = await gcs();
    try {
      const bytes = patternBytes(700_000, 13);
      const state = await subject.store.create({ key: 'acc/big1', length: bytes.length, contentType: 'video/mp4' });
      const first = await subject.store.append({ state, offset: 0, body: chunked(bytes.subarray(0, 600_000), [100_000]) });
      expect(first.offset).to.equal(600_000);
      expect(subject.fake.objectNames('hangar-partials').filter((name) => name.includes('/.partial/'))).to.have.length(1);
      const listed = [];
      for await (const entry of subject.blobs.list()) listed.push(entry.key);
      expect(listed).to.deep.equal([]);
      const rest = await subject.store.append({ state: first.state, offset: first.offset, body: chunked(bytes.subarray(first.offset)) });
      const stored = await subject.store.complete({ state: rest.state, key: 'acc/big1' });
      expect(stored).to.deep.equal({ size: bytes.length, sha256: sha256(bytes) });
      expect(subject.fake.objectNames('hangar-partials')).to.deep.equal(['blobs/acc/big1']);
      expect((await collect((await subject.blobs.get('acc/big1'))!)).equals(bytes)).to.equal(true);
    } finally {
      await subject.close();
    }
  });

  it('abort cancels the session and deletes the tails', async () => {
    const subject = await gcs();
    try {
      const state = await subject.store.create({ key: 'acc/big2', length: 400_000, contentType: 'video/mp4' });
      const half = await subject.store.append({ state, offset: 0, body: chunked(patternBytes(300_000)) });
      expect(subject.fake.openSessions()).to.equal(1);
      await subject.store.abort(half.state);
      expect(subject.fake.openSessions()).to.equal(0);
      expect(subject.fake.objectNames('hangar-partials')).to.deep.equal([]);
    } finally {
      await subject.close();
    }
  });
});

describe('S3PartialBlobStore', () => {
  it('sends parts of 5 MiB, keeps the rest as a tail object, completes into one object and leaves no tail', async () => {
    const subject = await s3();
    try {
      const bytes = patternBytes(12 * MIB + 333, 17);
      let state = await subject.store.create({ key: 'acc/big3', length: bytes.length, contentType: 'video/mp4' });
      let offset = 0;
      for (const end of [3 * MIB, 7 * MIB + 5, bytes.length]) {
        const result = await subject.store.append({ state, offset, body: chunked(bytes.subarray(offset, end), [MIB]) });
        expect(result.offset).to.equal(end);
        ({ state, offset } = result);
      }
      expect(subject.fake.openUploads()).to.equal(1);
      const stored = await subject.store.complete({ state, key: 'acc/big3' });
      expect(stored.sha256).to.equal(sha256(bytes));
      expect(subject.fake.openUploads()).to.equal(0);
      expect(subject.fake.objectKeys('hangar-partials')).to.deep.equal(['blobs/acc/big3']);
      expect((await collect((await subject.blobs.get('acc/big3'))!)).equals(bytes)).to.equal(true);
    } finally {
      await subject.close();
    }
  });

  it('abort aborts the multipart upload and deletes the tails', async () => {
    const subject = await s3();
    try {
      const state = await subject.store.create({ key: 'acc/big4', length: 8 * MIB, contentType: 'video/mp4' });
      const part = await subject.store.append({ state, offset: 0, body: chunked(patternBytes(6 * MIB)) });
      await subject.store.abort(part.state);
      expect(subject.fake.openUploads()).to.equal(0);
      expect(subject.fake.objectKeys('hangar-partials')).to.deep.equal([]);
    } finally {
      await subject.close();
    }
  });
});
