import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LocalDiskBlobStore } from '../../adapters/blobs/local-disk-blob-store.js';
import { MemoryBlobStore } from '../../adapters/blobs/memory-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { chunked, describeBlobStoreContract, patternBytes, rejectionOf, sha256 } from './blob-store.contract.js';

async function makeTempDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'hangar-blobs-'));
}

describeBlobStoreContract('MemoryBlobStore', async () => ({ store: new MemoryBlobStore() }));

describeBlobStoreContract('LocalDiskBlobStore', async () => {
  const directory = await makeTempDirectory();
  return { store: new LocalDiskBlobStore({ directory }), close: () => rm(directory, { recursive: true, force: true }) };
});

describeBlobStoreContract('LocalDiskBlobStore without fsync', async () => {
  const directory = await makeTempDirectory();
  return { store: new LocalDiskBlobStore({ directory, fsync: false }), close: () => rm(directory, { recursive: true, force: true }) };
});

describe('LocalDiskBlobStore', () => {
  let directory: string;
  let store: LocalDiskBlobStore;
  const tempDirectory = () => join(directory, '.tmp');

  beforeEach(async () => {
    directory = await makeTempDirectory();
    store = new LocalDiskBlobStore({ directory });
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps a blob at <directory>/<aa>/<bb>/<key with / as ~>, aa and bb from SHA-256(key)', async () => {
    const key = '0f8fad5b-d9cb-469f-a165-70867728950e/aB3dE5gH7jK9';
    await store.put({ key, body: chunked(Buffer.from('sharded')), contentType: 'text/plain', maxBytes: 100 });
    const hash = createHash('sha256').update(key).digest('hex');
    const path = join(directory, hash.slice(0, 2), hash.slice(2, 4), '0f8fad5b-d9cb-469f-a165-70867728950e~aB3dE5gH7jK9');
    expect(await readFile(path, 'utf8')).to.equal('sharded');
  });

  it('leaves no temp file after a body error, an oversized body or an abort', async () => {
    async function* failing() {
      yield patternBytes(50_000);
      throw new Error('boom');
    }
    await rejectionOf(store.put({ key: 'u/a', body: failing(), contentType: 'text/plain', maxBytes: 1_000_000 }));
    await rejectionOf(store.put({ key: 'u/b', body: chunked(patternBytes(50_000), [4096]), contentType: 'text/plain', maxBytes: 10_000 }));
    const controller = new AbortController();
    async function* stalledAtOnce() {
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      yield Buffer.from('never');
    }
    await rejectionOf(store.put({ key: 'u/c', body: stalledAtOnce(), contentType: 'text/plain', maxBytes: 1_000, signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await readdir(tempDirectory())).to.deep.equal([]);
    expect(await readdir(directory)).to.deep.equal(['.tmp']);
  });

  it('removes only temp files older than the given age', async () => {
    await store.ping();
    const old = join(tempDirectory(), 'old-upload');
    const fresh = join(tempDirectory(), 'fresh-upload');
    await writeFile(old, 'left by a crash');
    await writeFile(fresh, 'still arriving');
    const anHourAgo = new Date(Date.now() - 60 * 60 * 1000);
    await utimes(old, anHourAgo, anHourAgo);
    expect(await store.sweepTempFiles(10 * 60 * 1000)).to.equal(1);
    expect(await readdir(tempDirectory())).to.deep.equal(['fresh-upload']);
  });

  it('streams a 64 MiB body to disk with backpressure and the right hash', async function () {
    this.timeout(60_000);
    const chunkSize = 64 * 1024;
    const total = 64 * 1024 * 1024;
    const expected = createHash('sha256');
    let yielded = 0;
    let maxAhead = 0;
    async function* large() {
      for (let i = 0; yielded < total; i++) {
        // Every MiB, compare what was handed over with what already reached the temp file.
        if (i % 16 === 0 && yielded > 0) {
          const [name] = await readdir(tempDirectory());
          const written = name === undefined ? 0 : (await stat(join(tempDirectory(), name))).size;
          maxAhead = Math.max(maxAhead, yielded - written);
        }
        const chunk = patternBytes(chunkSize, i + 1);
        expected.update(chunk);
        yielded += chunk.length;
        yield chunk;
      }
    }
    const stored = await store.put({ key: 'u/large', body: large(), contentType: 'application/octet-stream', maxBytes: total });
    expect(stored).to.deep.equal({ size: total, sha256: expected.digest('hex') });
    expect(maxAhead, 'bytes held in memory ahead of the disk').to.be.below(4 * 1024 * 1024);

    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of (await store.get('u/large'))!) {
      hash.update(chunk);
      size += chunk.length;
    }
    expect(size).to.equal(total);
    expect(hash.digest('hex')).to.equal(stored.sha256);
  });

  it('reads a range from a large blob across read buffers', async () => {
    const bytes = patternBytes(1_000_000, 3);
    await store.put({ key: 'u/r', body: chunked(bytes, [100_000]), contentType: 'application/octet-stream', maxBytes: bytes.length });
    const chunks: Buffer[] = [];
    for await (const chunk of (await store.get('u/r', { start: 250_000, end: 899_999 }))!) chunks.push(Buffer.from(chunk));
    expect(sha256(Buffer.concat(chunks))).to.equal(sha256(bytes.subarray(250_000, 900_000)));
  });

  it('creates its directory on first use', async () => {
    const nested = join(directory, 'not', 'yet');
    const lazy = new LocalDiskBlobStore({ directory: nested });
    await lazy.ping();
    expect((await stat(join(nested, '.tmp'))).isDirectory()).to.equal(true);
  });

  it('answers BLOB_STORE_UNAVAILABLE when its directory cannot be used', async () => {
    const file = join(directory, 'a-file');
    await writeFile(file, 'not a directory');
    const broken = new LocalDiskBlobStore({ directory: join(file, 'blobs') });
    for (const attempt of [
      () => broken.ping(),
      () => broken.put({ key: 'u/x', body: chunked(Buffer.from('x')), contentType: 'text/plain', maxBytes: 10 }),
      () => broken.get('u/x'),
      () => broken.delete('u/x'),
    ]) {
      const error = await rejectionOf(attempt());
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).code).to.equal('BLOB_STORE_UNAVAILABLE');
      expect((error as DomainError).message).to.not.contain(directory);
    }
  });
});
