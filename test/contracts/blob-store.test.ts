import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, readlink, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { FileAndSqliteBlobStore, type FileAndSqliteBlobStoreOptions, SMALL_BLOBS_FILE } from '../../adapters/blobs/file-and-sqlite-blob-store.js';
import { ShardedFileBlobStore } from '../../adapters/blobs/sharded-file-blob-store.js';
import { MemoryBlobStore } from '../../adapters/blobs/memory-blob-store.js';
import { SqliteSmallBlobStore } from '../../adapters/blobs/sqlite-small-blob-store.js';
import type { BlobStore } from '../../core/files/blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { chunked, collect, describeBlobStoreContract, patternBytes, rejectionOf, sha256 } from './blob-store.contract.js';

async function makeTempDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'hangar-blobs-'));
}

describeBlobStoreContract('MemoryBlobStore', async () => ({ store: new MemoryBlobStore() }));

/** A FileAndSqliteBlobStore in a new temp directory, closed and removed by `close`. */
async function localDisk(options: Omit<FileAndSqliteBlobStoreOptions, 'directory'>) {
  const directory = await makeTempDirectory();
  const store = new FileAndSqliteBlobStore({ directory, ...options });
  return {
    store,
    close: async () => {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

// Blobs up to 64 KiB as rows of small-blobs.db, larger ones as files (the default).
describeBlobStoreContract('FileAndSqliteBlobStore', () => localDisk({}));
describeBlobStoreContract('FileAndSqliteBlobStore without fsync', () => localDisk({ fsync: false }));
describeBlobStoreContract('FileAndSqliteBlobStore with every blob a file (smallBlobMaxBytes 0)', () => localDisk({ smallBlobMaxBytes: 0 }));

/** One store of the local disk's two tiers in a new temp directory, closed and removed by `close`. */
async function inTempDirectory(make: (directory: string) => BlobStore) {
  const directory = await makeTempDirectory();
  const store = make(directory);
  return {
    store,
    close: async () => {
      await store.close?.();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

// Each tier of FileAndSqliteBlobStore (a TieredBlobStore) on its own.
describeBlobStoreContract('ShardedFileBlobStore', () => inTempDirectory((directory) => new ShardedFileBlobStore({ directory })));
describeBlobStoreContract('SqliteSmallBlobStore (bodies up to 8 MiB)', () =>
  inTempDirectory((directory) => new SqliteSmallBlobStore({ path: join(directory, 'nested', SMALL_BLOBS_FILE), maxBlobBytes: 8 * 1024 * 1024 })),
);

describe('SqliteSmallBlobStore', () => {
  it('refuses a body longer than maxBlobBytes with an Error, stores nothing and stops reading', async () => {
    const { store, close } = await inTempDirectory((directory) => new SqliteSmallBlobStore({ path: join(directory, SMALL_BLOBS_FILE), maxBlobBytes: 10 }));
    try {
      let read = 0;
      async function* body() {
        for (let i = 0; i < 100; i++) {
          read += 1;
          yield patternBytes(4, i + 1);
        }
      }
      const error = await rejectionOf(store.put({ key: 'u/big', body: body(), contentType: 'application/octet-stream', maxBytes: 1000 }));
      expect(error).to.be.instanceOf(Error).and.not.be.instanceOf(DomainError);
      expect((error as Error).message).to.match(/at most 10 bytes/);
      expect(read).to.be.below(5);
      expect(await store.stat('u/big')).to.equal(undefined);
      expect((await store.put({ key: 'u/small', body: chunked(patternBytes(10)), contentType: 'application/octet-stream', maxBytes: 1000 })).size).to.equal(10);
    } finally {
      await close();
    }
  });
});

describe('SqliteSmallBlobStore read cache (bytes kept while the database is unchanged)', () => {
  let directory: string;
  let writer: SqliteSmallBlobStore;
  let reader: SqliteSmallBlobStore;
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  const put = (store: BlobStore, key: string, bytes: Buffer) => store.put({ key, body: chunked(bytes), contentType: 'image/png', maxBytes: 1 << 20 });
  const read = async (store: BlobStore, key: string) => {
    const body = await store.get(key);
    return body && collect(body);
  };

  beforeEach(async () => {
    directory = await makeTempDirectory();
    // Two connections to one file, as two processes sharing a data directory hold them.
    writer = new SqliteSmallBlobStore({ path: join(directory, SMALL_BLOBS_FILE), fsync: false });
    reader = new SqliteSmallBlobStore({ path: join(directory, SMALL_BLOBS_FILE), fsync: false });
  });
  afterEach(async () => {
    await writer.close();
    await reader.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('answers a blob deleted through another connection as gone from the next turn of the event loop on', async () => {
    await put(writer, 'u/a', patternBytes(4096, 1));
    await put(writer, 'u/b', patternBytes(4096, 2));
    expect(await read(reader, 'u/a')).to.deep.equal(patternBytes(4096, 1));
    expect(await read(reader, 'u/b')).to.deep.equal(patternBytes(4096, 2));
    await writer.delete('u/a');
    await nextTurn();
    expect(await read(reader, 'u/a')).to.equal(undefined);
    expect(await read(reader, 'u/b')).to.deep.equal(patternBytes(4096, 2));
  });

  it('reads the new bytes of a key deleted and stored again through another connection', async () => {
    await put(writer, 'u/a', patternBytes(100, 1));
    expect(await read(reader, 'u/a')).to.deep.equal(patternBytes(100, 1));
    await writer.delete('u/a');
    await put(writer, 'u/a', patternBytes(200, 9));
    await nextTurn();
    expect(await read(reader, 'u/a')).to.deep.equal(patternBytes(200, 9));
  });

  it('answers a blob deleted through the same store as gone at once, one by one and under a parent', async () => {
    await put(reader, 'u/a', patternBytes(10, 1));
    await put(reader, 'v/x/1', patternBytes(10, 2));
    expect(await read(reader, 'u/a')).to.deep.equal(patternBytes(10, 1));
    expect(await read(reader, 'v/x/1')).to.deep.equal(patternBytes(10, 2));
    await reader.delete('u/a');
    expect(await read(reader, 'u/a')).to.equal(undefined);
    expect(await read(reader, 'v/x/1')).to.deep.equal(patternBytes(10, 2));
    await reader.deleteUnder('v/x');
    expect(await read(reader, 'v/x/1')).to.equal(undefined);
  });
});

describe('FileAndSqliteBlobStore', () => {
  let directory: string;
  let store: FileAndSqliteBlobStore;
  const tempDirectory = () => join(directory, '.tmp');

  beforeEach(async () => {
    directory = await makeTempDirectory();
    store = new FileAndSqliteBlobStore({ directory });
  });

  afterEach(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  /** The store's files and directories at its root, without the small blobs' database. */
  const rootEntries = async () => (await readdir(directory)).filter((name) => !name.startsWith(SMALL_BLOBS_FILE));

  it('keeps a blob larger than smallBlobMaxBytes at <directory>/<aa>/<bb>/<key with / as ~>, aa and bb from SHA-256(key)', async () => {
    await store.close();
    store = new FileAndSqliteBlobStore({ directory, smallBlobMaxBytes: 4 });
    const key = '0f8fad5b-d9cb-469f-a165-70867728950e/aB3dE5gH7jK9';
    await store.put({ key, body: chunked(Buffer.from('sharded')), contentType: 'text/plain', maxBytes: 100 });
    const hash = createHash('sha256').update(key).digest('hex');
    const path = join(directory, hash.slice(0, 2), hash.slice(2, 4), '0f8fad5b-d9cb-469f-a165-70867728950e~aB3dE5gH7jK9');
    expect(await readFile(path, 'utf8')).to.equal('sharded');
  });

  it('keeps a derived blob <account>/<file>/<name> in its file’s leaf directory, so deleteUnder reads one directory', async () => {
    await store.close();
    store = new FileAndSqliteBlobStore({ directory, smallBlobMaxBytes: 0 });
    const file = '0f8fad5b-d9cb-469f-a165-70867728950e/aB3dE5gH7jK9';
    await store.put({ key: file, body: chunked(Buffer.from('original')), contentType: 'image/png', maxBytes: 100 });
    await store.put({ key: `${file}/w320-webp`, body: chunked(Buffer.from('thumbnail')), contentType: 'image/webp', maxBytes: 100 });
    const hash = createHash('sha256').update(file).digest('hex');
    const leaf = join(directory, hash.slice(0, 2), hash.slice(2, 4));
    expect((await readdir(leaf)).sort()).to.deep.equal([
      '0f8fad5b-d9cb-469f-a165-70867728950e~aB3dE5gH7jK9',
      '0f8fad5b-d9cb-469f-a165-70867728950e~aB3dE5gH7jK9~w320-webp',
    ]);
    await store.deleteUnder(file);
    expect(await readdir(leaf)).to.deep.equal(['0f8fad5b-d9cb-469f-a165-70867728950e~aB3dE5gH7jK9']);
  });

  describe('small blobs (rows of small-blobs.db)', () => {
    const put = (target: FileAndSqliteBlobStore, key: string, bytes: Buffer) =>
      target.put({ key, body: chunked(bytes, [5]), contentType: 'application/octet-stream', maxBytes: 1_000_000 });
    const fileOf = (key: string) => {
      const segments = key.split('/');
      const hash = createHash('sha256').update(segments.slice(0, 2).join('/')).digest('hex');
      return join(directory, hash.slice(0, 2), hash.slice(2, 4), key.replaceAll('/', '~'));
    };
    const exists = (path: string) =>
      stat(path).then(
        () => true,
        () => false,
      );
    const entries = async (target: FileAndSqliteBlobStore) => {
      const found: Array<{ key: string; size: number }> = [];
      for await (const { key, size } of target.list()) found.push({ key, size });
      return found.sort((a, b) => a.key.localeCompare(b.key));
    };

    it('keeps a body of up to smallBlobMaxBytes as a row and one byte more as a file, and reads, stats and lists both', async () => {
      await store.close();
      store = new FileAndSqliteBlobStore({ directory, smallBlobMaxBytes: 16 });
      const atLimit = patternBytes(16, 1);
      const over = patternBytes(17, 2);
      expect(await put(store, 'u/at', atLimit)).to.deep.equal({ size: 16, sha256: sha256(atLimit) });
      expect(await put(store, 'u/over', over)).to.deep.equal({ size: 17, sha256: sha256(over) });
      expect(await put(store, 'u/empty', Buffer.alloc(0))).to.deep.equal({ size: 0, sha256: sha256(Buffer.alloc(0)) });
      expect(await exists(fileOf('u/at'))).to.equal(false);
      expect(await exists(fileOf('u/empty'))).to.equal(false);
      expect(await readFile(fileOf('u/over'))).to.deep.equal(over);
      expect(await collect((await store.get('u/at'))!)).to.deep.equal(atLimit);
      expect(await collect((await store.get('u/at', { start: 3, end: 9 }))!)).to.deep.equal(atLimit.subarray(3, 10));
      expect(await collect((await store.get('u/empty'))!)).to.deep.equal(Buffer.alloc(0));
      expect((await store.stat('u/at'))?.size).to.equal(16);
      expect(await entries(store)).to.deep.equal([
        { key: 'u/at', size: 16 },
        { key: 'u/empty', size: 0 },
        { key: 'u/over', size: 17 },
      ]);
      // Another store (another connection, as another process) sees them.
      const other = new FileAndSqliteBlobStore({ directory, smallBlobMaxBytes: 0 });
      try {
        expect(await collect((await other.get('u/at'))!)).to.deep.equal(atLimit);
        await other.delete('u/at');
      } finally {
        await other.close();
      }
      expect(await store.get('u/at')).to.equal(undefined);
      expect(await store.stat('u/at')).to.equal(undefined);
    });

    it('never keeps one key in both places: a put under a key taken the other way is refused and the blob stays', async () => {
      const asFile = new FileAndSqliteBlobStore({ directory, smallBlobMaxBytes: 0 });
      try {
        await put(asFile, 'u/file', Buffer.from('a file'));
        await put(store, 'u/row', Buffer.from('a row'));
        expect(await rejectionOf(put(store, 'u/file', Buffer.from('small')))).to.match(/already exists/);
        expect(await rejectionOf(put(asFile, 'u/row', Buffer.from('as a file')))).to.match(/already exists/);
        expect(await rejectionOf(put(store, 'u/row', Buffer.from('again')))).to.match(/already exists/);
        expect((await collect((await store.get('u/file'))!)).toString()).to.equal('a file');
        expect((await collect((await asFile.get('u/row'))!)).toString()).to.equal('a row');
        expect(await entries(store)).to.deep.equal([
          { key: 'u/file', size: 6 },
          { key: 'u/row', size: 5 },
        ]);
      } finally {
        await asFile.close();
      }
    });

    it('deleteUnder removes the derived rows and files of one file, and nothing of a file whose id only starts alike', async () => {
      await store.close();
      store = new FileAndSqliteBlobStore({ directory, smallBlobMaxBytes: 16 });
      const small = Buffer.from('thumb');
      const large = patternBytes(100, 4);
      await put(store, 'u/f1', large);
      await put(store, 'u/f1/w320', small);
      await put(store, 'u/f1/w1280', large);
      await put(store, 'u/f10', small);
      await put(store, 'u/f10/w320', small);
      await store.deleteUnder('u/f1');
      expect(await entries(store)).to.deep.equal([
        { key: 'u/f1', size: 100 },
        { key: 'u/f10', size: 5 },
        { key: 'u/f10/w320', size: 5 },
      ]);
    });

    it('stores many small bodies at once, each durable and readable (one WAL flush serves several)', async () => {
      const bodies = Array.from({ length: 64 }, (_, i) => patternBytes(4096, i + 1));
      const stored = await Promise.all(bodies.map((bytes, i) => put(store, `u/many${i}`, bytes)));
      expect(stored.map((result) => result.sha256)).to.deep.equal(bodies.map((bytes) => sha256(bytes)));
      for (const [i, bytes] of bodies.entries()) expect(await collect((await store.get(`u/many${i}`))!)).to.deep.equal(bytes);
      expect(await readdir(tempDirectory())).to.deep.equal([]);
      expect(await rootEntries()).to.deep.equal(['.tmp']);
    });
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
    expect(await rootEntries()).to.deep.equal(['.tmp']);
    for await (const entry of store.list()) expect.fail(`nothing should be stored, found ${entry.key}`);
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

  it('sweeps nothing and reports no failure when closed as the sweep starts (a CLI command that ends at once)', async () => {
    const sweep = store.sweepTempFiles(60 * 60 * 1000);
    await store.close();
    expect(await sweep).to.equal(0);
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

  /** File descriptors of this process open on blob files under the store's directory (Linux: /proc/self/fd), not its small blobs' database. */
  async function openFilesInStore(): Promise<number> {
    let count = 0;
    for (const fd of await readdir('/proc/self/fd')) {
      const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
      if (target.startsWith(directory) && !target.startsWith(join(directory, SMALL_BLOBS_FILE))) count += 1;
    }
    return count;
  }

  it('closes the file after the last byte, on return() before or after the first chunk, borrowed chunks or not', async function () {
    if (process.platform !== 'linux') this.skip();
    const bytes = patternBytes(1_000_000, 5);
    await store.put({ key: 'u/fd', body: chunked(bytes, [100_000]), contentType: 'application/octet-stream', maxBytes: bytes.length });
    for (const options of [undefined, { borrowChunks: true }]) {
      const label = JSON.stringify(options ?? {});
      // Read to the end of a range: closed with the last byte, before the consumer asks again.
      const ranged = (await store.get('u/fd', { start: 0, end: bytes.length - 1 }, options))![Symbol.asyncIterator]();
      expect(await openFilesInStore(), label).to.equal(1);
      let size = 0;
      for (let result = await ranged.next(); size < bytes.length; result = await ranged.next()) size += (result.value as Uint8Array).length;
      expect(await openFilesInStore(), `${label}: after the last byte`).to.equal(0);
      // Whole: closed when the end of the file is found.
      expect((await collect((await store.get('u/fd', undefined, options))!)).equals(bytes), label).to.equal(true);
      expect(await openFilesInStore(), `${label}: after the end`).to.equal(0);
      // return() before any next(), and midway.
      const unread = (await store.get('u/fd', undefined, options))![Symbol.asyncIterator]();
      await unread.return!();
      expect(await openFilesInStore(), `${label}: return() before next()`).to.equal(0);
      const midway = (await store.get('u/fd', undefined, options))![Symbol.asyncIterator]();
      await midway.next();
      await midway.return!();
      expect(await openFilesInStore(), `${label}: return() midway`).to.equal(0);
      // for await … break (return() while the loop's read is settled).
      for await (const chunk of (await store.get('u/fd', undefined, options))!) if (chunk.length > 0) break;
      expect(await openFilesInStore(), `${label}: break`).to.equal(0);
    }
  });

  it('reads borrowed chunks through two buffers: the chunk before last is overwritten by the next read, as the rule allows', async () => {
    const bytes = patternBytes(1024 * 1024, 9);
    await store.put({ key: 'u/ring', body: chunked(bytes, [65_536]), contentType: 'application/octet-stream', maxBytes: bytes.length });
    const iterator = (await store.get('u/ring', undefined, { borrowChunks: true }))![Symbol.asyncIterator]();
    const first = (await iterator.next()).value as Uint8Array;
    const second = (await iterator.next()).value as Uint8Array;
    const third = (await iterator.next()).value as Uint8Array;
    await iterator.return!();
    expect(first.length).to.equal(256 * 1024);
    expect(third.buffer, 'the third chunk reuses the first one’s memory').to.equal(first.buffer);
    expect(second.buffer).to.not.equal(first.buffer);
    expect(Buffer.from(third).equals(bytes.subarray(2 * 256 * 1024, 3 * 256 * 1024))).to.equal(true);
  });

  it('creates its directory on first use', async () => {
    const nested = join(directory, 'not', 'yet');
    const lazy = new FileAndSqliteBlobStore({ directory: nested });
    await lazy.ping();
    expect((await stat(join(nested, '.tmp'))).isDirectory()).to.equal(true);
  });

  it('answers BLOB_STORE_UNAVAILABLE when its directory cannot be used', async () => {
    const file = join(directory, 'a-file');
    await writeFile(file, 'not a directory');
    const broken = new FileAndSqliteBlobStore({ directory: join(file, 'blobs') });
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
