import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { BlobStore } from '../../core/files/blob-store.js';
import { DomainError } from '../../core/shared/errors.js';

/** What a blob store contract run needs: a fresh, empty store, and how to dispose of it. */
export interface BlobStoreSubject {
  store: BlobStore;
  close?: () => Promise<void>;
}

/** Reads a body to the end into one Buffer. */
export async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Yields `bytes` in chunks of the given sizes (cycled; a 0 yields an empty chunk). Yields nothing for no bytes. */
export async function* chunked(bytes: Uint8Array, sizes: number[] = [Math.max(bytes.length, 1)]): AsyncGenerator<Uint8Array> {
  if (!sizes.some((size) => size > 0)) throw new Error('chunked() needs a positive size');
  for (let offset = 0, i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

/** `length` deterministic bytes that differ from one offset to the next. */
export function patternBytes(length: number, seed = 1): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Resolves with what `promise` rejected with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  expect.fail('expected a rejection');
}

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * The behaviour every {@link BlobStore} adapter must have (core/files/blob-store.ts).
 * `makeSubject` is called before each test and must return an empty store.
 */
export function describeBlobStoreContract(name: string, makeSubject: () => Promise<BlobStoreSubject>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let subject: BlobStoreSubject;
    let store: BlobStore;

    beforeEach(async () => {
      subject = await makeSubject();
      store = subject.store;
    });

    afterEach(async () => {
      await subject.close?.();
    });

    const put = (key: string, body: AsyncIterable<Uint8Array>, maxBytes = 1024 * 1024, signal?: AbortSignal) =>
      store.put({ key, body, contentType: 'application/octet-stream', maxBytes, signal });

    const read = async (key: string, range?: { start: number; end: number }) => {
      const body = await store.get(key, range);
      return body && collect(body);
    };

    it('stores a body and reads it back whole, with its size and SHA-256', async () => {
      const bytes = Buffer.from('Hello, Hangar!\n');
      const stored = await put('user-1/file1', chunked(bytes));
      expect(stored).to.deep.equal({ size: bytes.length, sha256: sha256(bytes) });
      expect(await read('user-1/file1')).to.deep.equal(bytes);
    });

    it('stores a body that arrives in many chunks of uneven sizes, including empty ones', async () => {
      const bytes = patternBytes(300_000);
      const stored = await put('u/multi', chunked(bytes, [0, 1, 7, 4096, 65_536, 0, 100_000, 3]));
      expect(stored).to.deep.equal({ size: bytes.length, sha256: sha256(bytes) });
      expect((await read('u/multi'))!.equals(bytes)).to.equal(true);
    });

    it('accepts plain Uint8Array chunks, not only Buffers', async () => {
      async function* body() {
        yield new Uint8Array([1, 2, 3]);
        yield new Uint8Array([4, 5]);
      }
      expect((await put('u/plain', body())).size).to.equal(5);
      expect([...(await read('u/plain'))!]).to.deep.equal([1, 2, 3, 4, 5]);
    });

    describe('byte ranges (inclusive, RFC 9110 §14.1.2)', () => {
      const bytes = patternBytes(200_000, 7);
      beforeEach(async () => {
        await put('u/ranged', chunked(bytes, [65_536]));
      });

      it('reads the first byte alone', async () => {
        expect(await read('u/ranged', { start: 0, end: 0 })).to.deep.equal(bytes.subarray(0, 1));
      });

      it('reads a range in the middle', async () => {
        expect(await read('u/ranged', { start: 70_000, end: 140_001 })).to.deep.equal(bytes.subarray(70_000, 140_002));
      });

      it('reads the last byte alone', async () => {
        const last = bytes.length - 1;
        expect(await read('u/ranged', { start: last, end: last })).to.deep.equal(bytes.subarray(last));
      });

      it('reads the whole blob as a range', async () => {
        expect((await read('u/ranged', { start: 0, end: bytes.length - 1 }))!.equals(bytes)).to.equal(true);
      });
    });

    describe('borrowed chunks (BlobReadOptions.borrowChunks: lent until the next-but-one next())', () => {
      // Several chunks of every store (64 KiB for memory, 256 KiB for local disk), and a tail.
      const bytes = patternBytes(3 * 1024 * 1024 + 12_345, 11);
      beforeEach(async () => {
        await put('u/lent', chunked(bytes, [65_536]), bytes.length);
      });

      /**
       * Reads as the rule allows and no further: holds the current and the previous chunk without
       * copying them, checks after every `next()` that the chunk before still has its bytes, and
       * copies a chunk only when the rule is about to take it away.
       */
      async function readLent(range?: { start: number; end: number }): Promise<{ bytes: Buffer; chunks: number }> {
        const expected = range ? bytes.subarray(range.start, range.end + 1) : bytes;
        const iterator = (await store.get('u/lent', range, { borrowChunks: true }))![Symbol.asyncIterator]();
        const copies: Buffer[] = [];
        let previous: { chunk: Uint8Array; at: number } | undefined;
        let offset = 0;
        for (;;) {
          const result = await iterator.next();
          if (previous) {
            const { chunk, at } = previous;
            expect(Buffer.from(chunk).equals(expected.subarray(at, at + chunk.length)), `the chunk at ${at} changed before the next-but-one next()`).to.equal(
              true,
            );
            copies.push(Buffer.from(chunk));
          }
          if (result.done) break;
          previous = { chunk: result.value, at: offset };
          offset += result.value.length;
        }
        return { bytes: Buffer.concat(copies), chunks: copies.length };
      }

      it('gives the right bytes to a consumer that holds each chunk until the next-but-one next()', async () => {
        const { bytes: read, chunks } = await readLent();
        expect(chunks).to.be.above(2);
        expect(sha256(read)).to.equal(sha256(bytes));
      });

      it('reads a range the same way', async () => {
        const range = { start: 100_001, end: 2_999_998 };
        expect(sha256((await readLent(range)).bytes)).to.equal(sha256(bytes.subarray(range.start, range.end + 1)));
      });

      it('reads one byte and a whole small blob', async () => {
        expect([...(await readLent({ start: 7, end: 7 })).bytes]).to.deep.equal([bytes[7]]);
        await put('u/small', chunked(Buffer.from('small')));
        expect((await collect((await store.get('u/small', undefined, { borrowChunks: true }))!)).toString()).to.equal('small');
      });

      it('ends a body that the consumer stops early: next() after return() is done', async () => {
        const iterator = (await store.get('u/lent', undefined, { borrowChunks: true }))![Symbol.asyncIterator]();
        expect((await iterator.next()).done).to.equal(false);
        await iterator.return!();
        expect((await iterator.next()).done).to.equal(true);
      });
    });

    it('answers undefined for a key that was never stored', async () => {
      expect(await store.get('u/missing')).to.equal(undefined);
      expect(await store.get('u/missing', { start: 0, end: 0 })).to.equal(undefined);
    });

    it('keeps blobs under different keys apart', async () => {
      await put('u/a', chunked(Buffer.from('first')));
      await put('u/b', chunked(Buffer.from('second')));
      await put('v/a', chunked(Buffer.from('third')));
      expect((await read('u/a'))!.toString()).to.equal('first');
      expect((await read('u/b'))!.toString()).to.equal('second');
      expect((await read('v/a'))!.toString()).to.equal('third');
    });

    it('stores concurrent puts independently', async () => {
      const bodies = Array.from({ length: 8 }, (_, i) => patternBytes(50_000 + i, i + 1));
      const results = await Promise.all(bodies.map((bytes, i) => put(`u/c${i}`, chunked(bytes, [4096]))));
      results.forEach((result, i) => expect(result.sha256).to.equal(sha256(bodies[i])));
      for (const [i, bytes] of bodies.entries()) expect((await read(`u/c${i}`))!.equals(bytes)).to.equal(true);
    });

    it('never replaces an existing blob: a put to a taken key rejects and the first bytes stay', async () => {
      await put('u/taken', chunked(Buffer.from('original')));
      let failed = false;
      try {
        await put('u/taken', chunked(Buffer.from('intruder')));
      } catch {
        failed = true;
      }
      expect(failed).to.equal(true);
      expect((await read('u/taken'))!.toString()).to.equal('original');
    });

    it('forgets a deleted blob', async () => {
      await put('u/doomed', chunked(Buffer.from('bye')));
      await store.delete('u/doomed');
      expect(await store.get('u/doomed')).to.equal(undefined);
    });

    it('deletes a missing key without complaint', async () => {
      await store.delete('u/never-there');
    });

    it('gives size 0 and the SHA-256 of nothing for an empty body, and reads back no bytes', async () => {
      expect(await put('u/empty', chunked(Buffer.alloc(0)))).to.deep.equal({ size: 0, sha256: EMPTY_SHA256 });
      const body = await store.get('u/empty');
      expect(body).to.not.equal(undefined);
      expect((await collect(body!)).length).to.equal(0);
    });

    it('gives size 0 for a body made of one empty chunk', async () => {
      async function* body() {
        yield new Uint8Array(0);
      }
      expect(await put('u/empty-chunk', body())).to.deep.equal({ size: 0, sha256: EMPTY_SHA256 });
    });

    describe('maxBytes', () => {
      it('accepts a body of exactly maxBytes', async () => {
        const bytes = patternBytes(10_000);
        expect((await put('u/exact', chunked(bytes, [3000]), 10_000)).size).to.equal(10_000);
        expect((await read('u/exact'))!.equals(bytes)).to.equal(true);
      });

      it('refuses maxBytes + 1 with FILE_TOO_LARGE and leaves nothing under the key', async () => {
        const error = await rejectionOf(put('u/over', chunked(patternBytes(10_001), [3000]), 10_000));
        expect(error).to.be.instanceOf(DomainError);
        expect((error as DomainError).code).to.equal('FILE_TOO_LARGE');
        expect(await store.get('u/over')).to.equal(undefined);
      });

      it('stops reading an endless body once past maxBytes', async () => {
        let pulled = 0;
        let finished = false;
        async function* endless() {
          try {
            for (;;) {
              pulled += 1;
              yield Buffer.alloc(1024, 1);
            }
          } finally {
            finished = true;
          }
        }
        const error = await rejectionOf(put('u/endless', endless(), 10 * 1024));
        expect((error as DomainError).code).to.equal('FILE_TOO_LARGE');
        expect(pulled).to.be.below(40);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(finished, 'the body iterator was closed').to.equal(true);
        expect(await store.get('u/endless')).to.equal(undefined);
      });

      it('refuses any byte when maxBytes is 0 but accepts an empty body', async () => {
        expect((await put('u/zero', chunked(Buffer.alloc(0)), 0)).size).to.equal(0);
        const error = await rejectionOf(put('u/one', chunked(Buffer.from('x')), 0));
        expect((error as DomainError).code).to.equal('FILE_TOO_LARGE');
      });
    });

    describe('failures', () => {
      it('rejects with the body’s own error when the body fails midway, and leaves nothing under the key', async () => {
        const failure = new Error('client went away');
        async function* failing() {
          yield patternBytes(100_000);
          yield patternBytes(100_000, 2);
          throw failure;
        }
        expect(await rejectionOf(put('u/broken', failing()))).to.equal(failure);
        expect(await store.get('u/broken')).to.equal(undefined);
      });

      it('rejects when the signal aborts while the body is still arriving, and leaves nothing under the key', async () => {
        const controller = new AbortController();
        async function* stalled() {
          yield patternBytes(10_000);
          controller.abort();
          await new Promise((resolve) => setTimeout(resolve, 5_000));
          yield patternBytes(10_000);
        }
        const started = Date.now();
        await rejectionOf(put('u/aborted', stalled(), 1024 * 1024, controller.signal));
        expect(Date.now() - started).to.be.below(2_000);
        expect(await store.get('u/aborted')).to.equal(undefined);
      });

      it('rejects at once when the signal is already aborted', async () => {
        let pulled = false;
        async function* body() {
          pulled = true;
          yield Buffer.from('x');
        }
        await rejectionOf(put('u/pre-aborted', body(), 100, AbortSignal.abort()));
        expect(pulled).to.equal(false);
        expect(await store.get('u/pre-aborted')).to.equal(undefined);
      });

      it('leaves an existing blob in place when a failed put targets another key', async () => {
        await put('u/kept', chunked(Buffer.from('kept')));
        await rejectionOf(put('u/other', chunked(patternBytes(100)), 10));
        expect((await read('u/kept'))!.toString()).to.equal('kept');
      });
    });

    describe('keys', () => {
      const invalid = ['', '/', 'a/', '/a', 'a//b', '..', 'a/../b', 'a/./b', 'a b', 'a~b', 'a\\b', 'ä/b', 'a/b\n'];

      it('refuses malformed keys with a plain Error (a bug in the caller), for put, get and delete', async () => {
        for (const key of invalid) {
          const attempts: Array<() => Promise<unknown>> = [() => put(key, chunked(Buffer.from('x'))), () => store.get(key), () => store.delete(key)];
          for (const attempt of attempts) {
            const error = await rejectionOf(Promise.resolve().then(attempt));
            expect(error, JSON.stringify(key)).to.be.instanceOf(Error);
            expect(error, JSON.stringify(key)).to.not.be.instanceOf(DomainError);
          }
        }
      });

      it('accepts keys made of [0-9A-Za-z_-] segments, as many as given', async () => {
        for (const key of ['a', 'A-b_9/x', '0f8fad5b-d9cb-469f-a165-70867728950e/aB3dE5gH7jK9', 'a/b/c/d']) {
          await put(key, chunked(Buffer.from(key)));
          expect((await read(key))!.toString()).to.equal(key);
        }
      });
    });

    describe('list and stat (the reconciler, fsck)', () => {
      async function listed(): Promise<Map<string, { size: number; modifiedAt: Date }>> {
        const entries = new Map<string, { size: number; modifiedAt: Date }>();
        for await (const entry of store.list()) {
          expect(entries.has(entry.key), `${entry.key} listed twice`).to.equal(false);
          entries.set(entry.key, { size: entry.size, modifiedAt: entry.modifiedAt });
        }
        return entries;
      }

      it('lists nothing in an empty store', async () => {
        expect((await listed()).size).to.equal(0);
      });

      it('lists every stored blob once, with its size and a recent modification time, and forgets deleted ones', async () => {
        const before = Date.now() - 60_000;
        const keys = ['u/a', 'u/b', 'v/c', 'w/x/y', 'u/empty'];
        for (const [i, key] of keys.entries()) await put(key, chunked(patternBytes(key === 'u/empty' ? 0 : 1000 + i)));
        await store.delete('u/b');
        const entries = await listed();
        expect([...entries.keys()].sort()).to.deep.equal(['u/a', 'u/empty', 'v/c', 'w/x/y']);
        expect(entries.get('u/a')!.size).to.equal(1000);
        expect(entries.get('u/empty')!.size).to.equal(0);
        for (const entry of entries.values()) {
          expect(entry.modifiedAt.getTime()).to.be.within(before, Date.now() + 60_000);
        }
      });

      it('never lists a failed or aborted put', async () => {
        await put('u/kept', chunked(Buffer.from('kept')));
        await rejectionOf(put('u/over', chunked(patternBytes(5000)), 10));
        async function* failing() {
          yield patternBytes(1000);
          throw new Error('client went away');
        }
        await rejectionOf(put('u/failed', failing()));
        expect([...(await listed()).keys()]).to.deep.equal(['u/kept']);
      });

      it('stats a blob (size and time) and answers undefined for a missing key', async () => {
        await put('u/s', chunked(patternBytes(4321)));
        const entry = await store.stat('u/s');
        expect(entry).to.include({ key: 'u/s', size: 4321 });
        expect(entry!.modifiedAt).to.be.instanceOf(Date);
        expect(await store.stat('u/none')).to.equal(undefined);
      });

      it('lists many blobs (more than one page of a paged store)', async function () {
        this.timeout(60_000);
        const keys = Array.from({ length: 120 }, (_, i) => `many/k${i}`);
        for (let i = 0; i < keys.length; i += 20) await Promise.all(keys.slice(i, i + 20).map((key) => put(key, chunked(Buffer.from(key)))));
        expect([...(await listed()).keys()].sort()).to.deep.equal([...keys].sort());
      });
    });

    describe('deleteUnder (derived blobs go with their file)', () => {
      it('removes every blob under a key and keeps the key itself, its neighbours and other accounts', async () => {
        for (const key of [
          'acct/file1',
          'acct/file1/w320-webp',
          'acct/file1/w64-png',
          'acct/file10/w320-webp',
          'acct/file2/w320-webp',
          'other/file1/w320-webp',
        ]) {
          await put(key, chunked(Buffer.from(key)));
        }
        await store.deleteUnder('acct/file1');
        expect(await read('acct/file1/w320-webp')).to.equal(undefined);
        expect(await read('acct/file1/w64-png')).to.equal(undefined);
        for (const kept of ['acct/file1', 'acct/file10/w320-webp', 'acct/file2/w320-webp', 'other/file1/w320-webp']) {
          expect((await read(kept))?.toString(), kept).to.equal(kept);
        }
      });

      it('does nothing when nothing is under the key, even for a key never stored', async () => {
        await put('acct/alone', chunked(Buffer.from('alone')));
        await store.deleteUnder('acct/alone');
        await store.deleteUnder('acct/never');
        expect((await read('acct/alone'))?.toString()).to.equal('alone');
      });

      it('refuses a parent of one segment or a malformed key with a plain Error', async () => {
        for (const parent of ['acct', '../x', 'a//b']) {
          const error = await rejectionOf(store.deleteUnder(parent));
          expect(error).to.be.instanceOf(Error).and.not.instanceOf(DomainError);
        }
      });
    });

    it('answers a ping', async () => {
      await store.ping();
    });
  });
}
