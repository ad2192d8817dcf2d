import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { FileAndSqliteBlobStore } from '../../adapters/blobs/file-and-sqlite-blob-store.js';
import { FilePartialBlobStore } from '../../adapters/blobs/file-partial-blob-store.js';
import { MemoryBlobStore } from '../../adapters/blobs/memory-blob-store.js';
import { MemoryPartialBlobStore } from '../../adapters/blobs/memory-partial-blob-store.js';
import { chunked, patternBytes } from './blob-store.contract.js';
import { describePartialBlobStoreContract } from './partial-blob-store.contract.js';

describePartialBlobStoreContract(
  'MemoryPartialBlobStore',
  async () => {
    const blobs = new MemoryBlobStore();
    return { store: new MemoryPartialBlobStore(blobs), blobs };
  },
  { crossProcess: false },
);

/** A local-disk partial store over a local-disk blob store in a new temp directory. */
async function localDisk(fsync: boolean) {
  const directory = await mkdtemp(join(tmpdir(), 'hangar-partials-'));
  const blobs = new FileAndSqliteBlobStore({ directory, fsync });
  const partials = () => new FilePartialBlobStore({ directory: join(directory, '.partial'), blobs, fsync });
  return {
    directory,
    store: partials(),
    blobs,
    reopen: async () => partials(),
    close: async () => {
      await blobs.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

describePartialBlobStoreContract('FilePartialBlobStore', () => localDisk(true));
describePartialBlobStoreContract('FilePartialBlobStore without fsync', () => localDisk(false));

describe('FilePartialBlobStore', () => {
  it('keeps partial blobs out of the blob listing and removes the partial file once complete', async () => {
    const subject = await localDisk(true);
    try {
      const bytes = patternBytes(200_000);
      const state = await subject.store.create({ key: 'acc/file1', length: bytes.length, contentType: 'application/octet-stream' });
      const half = await subject.store.append({ state, offset: 0, body: chunked(bytes.subarray(0, 100_000)) });
      const listed = [];
      for await (const entry of subject.blobs.list()) listed.push(entry.key);
      expect(listed).to.deep.equal([]);
      expect(await readdir(join(subject.directory, '.partial'))).to.have.length(1);
      const rest = await subject.store.append({ state: half.state, offset: half.offset, body: chunked(bytes.subarray(half.offset)) });
      await subject.store.complete({ state: rest.state, key: 'acc/file1' });
      expect(await readdir(join(subject.directory, '.partial'))).to.deep.equal([]);
      expect((await subject.blobs.stat('acc/file1'))?.size).to.equal(bytes.length);
    } finally {
      await subject.close();
    }
  });

  it('completes a large blob without copying it: the blob is the partial file itself, linked into place, with the SHA-256 of its bytes', async () => {
    const subject = await localDisk(true);
    try {
      const bytes = patternBytes(300_000);
      const state = await subject.store.create({ key: 'acc/file2', length: bytes.length, contentType: 'application/octet-stream' });
      const [partial] = await readdir(join(subject.directory, '.partial'));
      const { ino } = await stat(join(subject.directory, '.partial', partial));
      const first = await subject.store.append({ state, offset: 0, body: chunked(bytes.subarray(0, 123_457)) });
      const rest = await subject.store.append({ state: first.state, offset: first.offset, body: chunked(bytes.subarray(first.offset)) });
      const stored = await subject.store.complete({ state: rest.state, key: 'acc/file2' });
      expect(stored).to.deep.equal({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
      const files: string[] = [];
      for (const entry of await readdir(subject.directory, { recursive: true })) if (String(entry).endsWith('acc~file2')) files.push(String(entry));
      expect(files).to.have.length(1);
      expect((await stat(join(subject.directory, files[0]))).ino, 'same inode: linked, not copied').to.equal(ino);
    } finally {
      await subject.close();
    }
  });

  it('hashes the file once at completion when the state carries no running hash (a state written before it did, or by another process)', async () => {
    const subject = await localDisk(true);
    try {
      const bytes = patternBytes(250_000);
      const state = await subject.store.create({ key: 'acc/file3', length: bytes.length, contentType: 'application/octet-stream' });
      const { hashToken: _token, hashed: _hashed, ...older } = state;
      const all = await subject.store.append({ state: older, offset: 0, body: chunked(bytes) });
      const stored = await subject.store.complete({ state: all.state, key: 'acc/file3' });
      expect(stored.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
    } finally {
      await subject.close();
    }
  });

  it('gives the SHA-256 of the bytes kept when an append is redone from a state that was never committed', async () => {
    const subject = await localDisk(true);
    try {
      const bytes = patternBytes(200_000);
      const other = patternBytes(200_000, 7);
      const state = await subject.store.create({ key: 'acc/file4', length: bytes.length, contentType: 'application/octet-stream' });
      const lost = await subject.store.append({ state, offset: 0, body: chunked(other.subarray(0, 150_000)) });
      expect(lost.offset).to.equal(150_000);
      // The caller failed to record `lost`: it appends again from the state it holds.
      const first = await subject.store.append({ state, offset: 0, body: chunked(bytes.subarray(0, 150_000)) });
      const rest = await subject.store.append({ state: first.state, offset: first.offset, body: chunked(bytes.subarray(first.offset)) });
      const stored = await subject.store.complete({ state: rest.state, key: 'acc/file4' });
      expect(stored.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
      expect(stored.sha256).to.not.equal(
        createHash('sha256')
          .update(Buffer.concat([other.subarray(0, 150_000), bytes.subarray(150_000)]))
          .digest('hex'),
      );
    } finally {
      await subject.close();
    }
  });

  it('gives the SHA-256 of every byte when the appends and the completion run in different processes', async () => {
    const subject = await localDisk(true);
    try {
      const bytes = patternBytes(300_000);
      const state = await subject.store.create({ key: 'acc/file5', length: bytes.length, contentType: 'application/octet-stream' });
      const first = await subject.store.append({ state, offset: 0, body: chunked(bytes.subarray(0, 100_000)) });
      const elsewhere = await subject.reopen();
      const second = await elsewhere.append({ state: first.state, offset: first.offset, body: chunked(bytes.subarray(100_000, 200_000)) });
      const third = await subject.store.append({ state: second.state, offset: second.offset, body: chunked(bytes.subarray(200_000)) });
      const stored = await elsewhere.complete({ state: third.state, key: 'acc/file5' });
      expect(stored).to.deep.equal({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    } finally {
      await subject.close();
    }
  });
});
