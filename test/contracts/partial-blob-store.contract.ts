import { expect } from 'chai';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { PartialBlobStore } from '../../core/files/partial-blob-store.js';
import { DomainError } from '../../core/shared/errors.js';
import { chunked, collect, patternBytes, rejectionOf, sha256 } from './blob-store.contract.js';

/** What a partial blob store contract run needs: a fresh store, the blob store it completes into, and how to dispose of them. */
export interface PartialBlobStoreSubject {
  store: PartialBlobStore;
  blobs: BlobStore;
  /**
   * The same partial blobs seen through a second instance (another process, after a restart); needed
   * unless the suite runs with `crossProcess: false`.
   */
  reopen?: () => Promise<PartialBlobStore>;
  /**
   * Bytes an adapter may leave out of an acknowledged offset when a body ends short of the length
   * (an unaligned tail: 256 KiB on GCS, 5 MiB on S3); 0 for stores that count every byte.
   */
  alignment?: number;
  close?: () => Promise<void>;
}

/** A body that yields `bytes` in chunks and then fails, as a cut connection does. */
async function* cutAfter(bytes: Uint8Array, chunkSize: number): AsyncGenerator<Uint8Array> {
  yield* chunked(bytes, [chunkSize]);
  throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
}

/**
 * The behaviour every {@link PartialBlobStore} adapter must have (core/files/partial-blob-store.ts).
 * `makeSubject` is called before each test. `crossProcess: false` (the memory store, whose state
 * lives in one process) leaves out the test that continues an upload in a second instance.
 */
export function describePartialBlobStoreContract(
  name: string,
  makeSubject: () => Promise<PartialBlobStoreSubject>,
  options: { crossProcess: boolean } = { crossProcess: true },
): void {
  describe(`PartialBlobStore contract: ${name}`, () => {
    let subject: PartialBlobStoreSubject;
    let store: PartialBlobStore;

    beforeEach(async () => {
      subject = await makeSubject();
      store = subject.store;
    });

    afterEach(async () => {
      await subject.close?.();
    });

    const read = async (key: string) => {
      const body = await subject.blobs.get(key);
      return body && collect(body);
    };

    it('assembles appends in several requests into one blob, readable through the BlobStore once complete', async () => {
      const bytes = patternBytes(3 * 1024 * 1024 + 17);
      let state = await store.create({ key: 'acc/partial1', length: bytes.length, contentType: 'application/octet-stream' });
      let offset = 0;
      for (const end of [1024 * 1024, 2 * 1024 * 1024, bytes.length]) {
        const result = await store.append({ state, offset, body: chunked(bytes.subarray(offset, end), [65_536, 1000]) });
        expect(result.interruptedBy).to.equal(undefined);
        expect(result.offset)
          .to.be.at.most(end)
          .and.at.least(end - (subject.alignment ?? 0));
        ({ state, offset } = result);
        if (end === bytes.length) expect(offset).to.equal(bytes.length);
      }
      expect(await subject.blobs.stat('acc/partial1')).to.equal(undefined);
      const stored = await store.complete({ state, key: 'acc/partial1' });
      expect(stored).to.deep.equal({ size: bytes.length, sha256: sha256(bytes) });
      expect((await read('acc/partial1'))!.equals(bytes)).to.equal(true);
    });

    it('keeps what arrived before a cut body and resumes from the offset it reports', async () => {
      const bytes = patternBytes(600_000, 3);
      let state = await store.create({ key: 'acc/partial2', length: bytes.length, contentType: 'application/octet-stream' });
      const cut = await store.append({ state, offset: 0, body: cutAfter(bytes.subarray(0, 400_000), 50_000) });
      expect(cut.interruptedBy).to.be.instanceOf(Error);
      expect(cut.offset)
        .to.be.at.most(400_000)
        .and.at.least(400_000 - (subject.alignment ?? 0));
      state = cut.state;
      const rest = await store.append({ state, offset: cut.offset, body: chunked(bytes.subarray(cut.offset), [70_000]) });
      expect(rest.offset).to.equal(bytes.length);
      await store.complete({ state: rest.state, key: 'acc/partial2' });
      expect((await read('acc/partial2'))!.equals(bytes)).to.equal(true);
    });

    it('resumes at the offset the caller gives, over bytes it received but never acknowledged', async () => {
      const bytes = patternBytes(300_000, 5);
      const first = await store.create({ key: 'acc/partial3', length: bytes.length, contentType: 'application/octet-stream' });
      const written = await store.append({ state: first, offset: 0, body: chunked(bytes.subarray(0, 200_000)) });
      // The caller stored nothing of that append (a process killed before its database write): it resumes from 0.
      const again = await store.append({ state: written.state, offset: 0, body: chunked(bytes, [64_000]) });
      expect(again.offset).to.equal(bytes.length);
      const stored = await store.complete({ state: again.state, key: 'acc/partial3' });
      expect(stored.sha256).to.equal(sha256(bytes));
    });

    it('refuses a body that goes past the length, and keeps the offset it had', async () => {
      const bytes = patternBytes(1000, 7);
      const state = await store.create({ key: 'acc/partial4', length: 1000, contentType: 'text/plain' });
      const error = await rejectionOf(store.append({ state, offset: 0, body: chunked(Buffer.concat([bytes, bytes])) }));
      expect(error).to.be.instanceOf(DomainError).with.property('code', 'FILE_TOO_LARGE');
      const result = await store.append({ state, offset: 0, body: chunked(bytes) });
      expect(result.offset).to.equal(1000);
      await store.complete({ state: result.state, key: 'acc/partial4' });
      expect((await read('acc/partial4'))!.equals(bytes)).to.equal(true);
    });

    it('refuses to complete a partial blob that is not complete, and keeps it', async () => {
      const bytes = patternBytes(2000, 9);
      const state = await store.create({ key: 'acc/partial5', length: 2000, contentType: 'text/plain' });
      const half = await store.append({ state, offset: 0, body: chunked(bytes.subarray(0, 1000)) });
      await rejectionOf(store.complete({ state: half.state, key: 'acc/partial5' }));
      expect(await subject.blobs.stat('acc/partial5')).to.equal(undefined);
      const rest = await store.append({ state: half.state, offset: half.offset, body: chunked(bytes.subarray(half.offset)) });
      await store.complete({ state: rest.state, key: 'acc/partial5' });
      expect((await read('acc/partial5'))!.equals(bytes)).to.equal(true);
    });

    it('abort removes the partial blob, twice without complaint, and no blob appears', async () => {
      const state = await store.create({ key: 'acc/partial6', length: 10, contentType: 'text/plain' });
      const result = await store.append({ state, offset: 0, body: chunked(Buffer.from('0123456789')) });
      await store.abort(result.state);
      await store.abort(result.state);
      expect(await subject.blobs.stat('acc/partial6')).to.equal(undefined);
      await rejectionOf(store.complete({ state: result.state, key: 'acc/partial6' }));
    });

    if (options.crossProcess)
      it('continues an upload from its stored state in another instance (another process, a restart)', async () => {
        const bytes = patternBytes(700_000, 11);
        const state = await store.create({ key: 'acc/partial7', length: bytes.length, contentType: 'application/octet-stream' });
        const first = await store.append({ state, offset: 0, body: chunked(bytes.subarray(0, 300_000), [100_000]) });
        const persisted = JSON.parse(JSON.stringify(first.state));
        const other = await subject.reopen!();
        const rest = await other.append({ state: persisted, offset: first.offset, body: chunked(bytes.subarray(first.offset), [100_000]) });
        expect(rest.offset).to.equal(bytes.length);
        const stored = await other.complete({ state: JSON.parse(JSON.stringify(rest.state)), key: 'acc/partial7' });
        expect(stored.sha256).to.equal(sha256(bytes));
        expect((await read('acc/partial7'))!.equals(bytes)).to.equal(true);
      });
  });
}
