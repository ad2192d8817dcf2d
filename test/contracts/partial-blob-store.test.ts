import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LocalDiskBlobStore } from '../../adapters/blobs/local-disk-blob-store.js';
import { LocalDiskPartialBlobStore } from '../../adapters/blobs/local-disk-partial-blob-store.js';
import { MemoryBlobStore } from '../../adapters/blobs/memory-blob-store.js';
import { MemoryPartialBlobStore } from '../../adapters/blobs/memory-partial-blob-store.js';
import { chunked, patternBytes } from './blob-store.contract.js';
import { describePartialBlobStoreContract } from './partial-blob-store.contract.js';

describePartialBlobStoreContract('MemoryPartialBlobStore', async () => {
  const blobs = new MemoryBlobStore();
  return { store: new MemoryPartialBlobStore(blobs), blobs };
}, { crossProcess: false });

/** A local-disk partial store over a local-disk blob store in a new temp directory. */
async function localDisk(fsync: boolean) {
  const directory = await mkdtemp(join(tmpdir(), 'hangar-partials-'));
  const blobs = new LocalDiskBlobStore({ directory, fsync });
  const partials = () => new LocalDiskPartialBlobStore({ directory: join(directory, '.partial'), blobs, fsync });
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

describePartialBlobStoreContract('LocalDiskPartialBlobStore', () => localDisk(true));
describePartialBlobStoreContract('LocalDiskPartialBlobStore without fsync', () => localDisk(false));

describe('LocalDiskPartialBlobStore', () => {
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
});
