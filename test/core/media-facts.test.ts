import { expect } from 'chai';
import { MemoryLogger } from '../../adapters/logging/memory-logger.js';
import {
  type CatchUpMediaFactsOptions,
  DomainError,
  HangarRuntime,
  MEDIA_CATCH_UP_DEFAULTS,
  type MediaFacts,
  type MediaFactsRepository,
  type MediaProber,
  type ProbeInput,
} from '../../core/index.js';
import { makePng } from '../support/bytes.js';
import { bodyOf, createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

const SIZE: MediaFacts = { width: 640, height: 480, durationSeconds: null, thumbhash: 'AAAA' };

/**
 * A MediaProber double: handles images and videos, answers {@link SIZE} after reading the whole
 * body (so the blob really is read), and can be made to fail or to wait.
 */
class FakeProber implements MediaProber {
  readonly probed: string[] = [];
  failure: Error | undefined;
  gate: Promise<void> | undefined;

  handles(contentType: string): boolean {
    return contentType.startsWith('image/') || contentType.startsWith('video/');
  }

  async probe(input: ProbeInput): Promise<MediaFacts> {
    this.probed.push(input.contentType);
    await this.gate;
    let bytes = 0;
    for await (const chunk of await input.read()) bytes += chunk.length;
    expect(bytes).to.equal(input.size);
    if (this.failure) throw this.failure;
    return input.contentType.startsWith('video/') ? { width: null, height: null, durationSeconds: 12.5, thumbhash: null } : SIZE;
  }
}

/** Counts the reads of a MediaFactsRepository (to prove a listing reads its page's facts in one call). */
class CountingMediaFacts implements MediaFactsRepository {
  findManyCalls = 0;
  constructor(private readonly inner: MediaFactsRepository) {}
  save(options: Parameters<MediaFactsRepository['save']>[0]) {
    return this.inner.save(options);
  }
  findMany(ids: readonly string[]) {
    this.findManyCalls += 1;
    return this.inner.findMany(ids);
  }
  filesWithout(options: Parameters<MediaFactsRepository['filesWithout']>[0]) {
    return this.inner.filesWithout(options);
  }
  countWithout() {
    return this.inner.countWithout();
  }
}

function world(options: { concurrency?: number; maxPending?: number; catchUp?: CatchUpMediaFactsOptions } = {}) {
  const prober = new FakeProber();
  let counting: CountingMediaFacts | undefined;
  const made = createMemoryHangar({ media: options }, (defaults) => {
    counting = new CountingMediaFacts(defaults.mediaFacts!);
    return { mediaProber: prober, mediaFacts: counting };
  });
  return { ...made, prober, media: counting! };
}

describe('media facts (core)', () => {
  it('answers the upload with null facts, then shows the facts computed from the stored blob', async () => {
    const { hangar, registerConfirmed, upload, prober } = world();
    const { userId } = await registerConfirmed('ada@example.com');
    let open!: () => void;
    prober.gate = new Promise((resolve) => (open = resolve));
    const uploaded = await upload(userId, { contentType: 'image/png', size: 200 });
    expect(uploaded.media).to.deep.equal({ width: null, height: null, durationSeconds: null, thumbhash: null });
    open();
    await hangar.mediaFactsQueue!.settled();
    expect((await hangar.getFile.execute({ userId, fileId: uploaded.file.fileId })).media).to.deep.equal(SIZE);
    expect(prober.probed).to.deep.equal(['image/png']);
  });

  it('computes the facts of a resumable upload once its last piece completes it', async () => {
    const { hangar, registerConfirmed, prober } = world();
    const { userId } = await registerConfirmed('ada@example.com');
    const png = makePng(8, 8);
    const started = await hangar.createResumableUpload.execute({ userId, length: png.length, contentType: 'image/png', fileName: 'tiny.png' });
    const done = await hangar.appendToResumableUpload.execute({ userId, uploadId: started.id, offset: 0, body: bodyOf(png) });
    expect(done.file?.media?.width).to.equal(null);
    await hangar.mediaFactsQueue!.settled();
    expect(prober.probed).to.deep.equal(['image/png']);
    expect((await hangar.getFile.execute({ userId, fileId: started.fileId })).media).to.deep.equal(SIZE);
  });

  it('reads a listing page’s facts in one call, and records files of other types with every fact null without probing them', async () => {
    const { hangar, registerConfirmed, upload, prober, media } = world();
    const { userId } = await registerConfirmed('ada@example.com');
    await upload(userId, { contentType: 'image/png', size: 200 });
    await upload(userId, { contentType: 'video/mp4', size: 200 });
    await upload(userId, { contentType: 'application/pdf', size: 200 });
    await hangar.mediaFactsQueue!.settled();
    expect(prober.probed.sort()).to.deep.equal(['image/png', 'video/mp4']);
    const before = media.findManyCalls;
    const page = await hangar.listFiles.execute({ userId, filter: {}, page: 1, limit: 10 });
    expect(media.findManyCalls - before).to.equal(1);
    const byType = new Map(page.items.map((view) => [view.file.contentType, view.media]));
    expect(byType.get('image/png')).to.deep.equal(SIZE);
    expect(byType.get('video/mp4')).to.deep.equal({ width: null, height: null, durationSeconds: 12.5, thumbhash: null });
    expect(byType.get('application/pdf')).to.deep.equal({ width: null, height: null, durationSeconds: null, thumbhash: null });
    expect(await hangar.backfillMediaFacts.execute()).to.deep.equal({ done: 0, total: 0, failed: 0 });
  });

  it('records unreadable bytes as failed (every fact null) and leaves a file whose store was out of reach to the backfill', async () => {
    const { hangar, registerConfirmed, upload, prober, backgroundErrors } = world();
    const { userId } = await registerConfirmed('ada@example.com');
    prober.failure = new Error('not a PNG after all');
    const broken = await upload(userId, { contentType: 'image/png', size: 200 });
    await hangar.mediaFactsQueue!.settled();
    prober.failure = new DomainError('BLOB_STORE_UNAVAILABLE', 'The blob store did not answer.');
    const unlucky = await upload(userId, { contentType: 'image/png', size: 200 });
    await hangar.mediaFactsQueue!.settled();
    expect(backgroundErrors.map((error) => (error as DomainError).code)).to.deep.equal(['BLOB_STORE_UNAVAILABLE']);
    expect((await hangar.getFile.execute({ userId, fileId: broken.file.fileId })).media!.width).to.equal(null);

    prober.failure = undefined;
    expect(await hangar.backfillMediaFacts.execute()).to.deep.equal({ done: 1, total: 1, failed: 0 });
    expect((await hangar.getFile.execute({ userId, fileId: unlucky.file.fileId })).media).to.deep.equal(SIZE);
    expect((await hangar.getFile.execute({ userId, fileId: broken.file.fileId })).media!.width).to.equal(null);
  });

  it('backfills files stored with probing off, batch by batch with progress, and a second run does nothing', async () => {
    const { hangar, registerConfirmed, upload, prober } = world({ concurrency: 0 });
    expect(hangar.mediaFactsQueue).to.equal(undefined);
    const { userId } = await registerConfirmed('ada@example.com');
    for (let i = 0; i < 5; i++) await upload(userId, { contentType: 'image/png', size: 100 + i });
    expect(prober.probed).to.deep.equal([]);
    const progress: unknown[] = [];
    const report = await hangar.backfillMediaFacts.execute({ batchSize: 2, onProgress: (p) => progress.push(p) });
    expect(report).to.deep.equal({ done: 5, total: 5, failed: 0 });
    expect(progress).to.deep.equal([
      { done: 2, total: 5, failed: 0 },
      { done: 4, total: 5, failed: 0 },
      { done: 5, total: 5, failed: 0 },
    ]);
    const page = await hangar.listFiles.execute({ userId, filter: {}, page: 1, limit: 10 });
    expect(page.items.map((view) => view.media)).to.deep.equal(Array(5).fill(SIZE));
    expect(await hangar.backfillMediaFacts.execute()).to.deep.equal({ done: 0, total: 0, failed: 0 });
    expect(prober.probed).to.have.length(5);
  });

  it('keeps at most maxPending files waiting; the ones dropped are left to the backfill', async () => {
    const { hangar, registerConfirmed, upload, prober } = world({ concurrency: 1, maxPending: 1 });
    const { userId } = await registerConfirmed('ada@example.com');
    let open!: () => void;
    prober.gate = new Promise((resolve) => (open = resolve));
    for (let i = 0; i < 4; i++) await upload(userId, { contentType: 'image/png', size: 100 + i });
    // One running, one waiting, two dropped.
    expect(hangar.mediaFactsQueue!.size).to.equal(2);
    expect(hangar.mediaFactsQueue!.dropped).to.equal(2);
    open();
    await hangar.mediaFactsQueue!.settled();
    expect((await hangar.backfillMediaFacts.execute()).done).to.equal(2);
  });

  it('refuses the backfill without a media prober', async () => {
    const { hangar, registerConfirmed, upload } = createMemoryHangar();
    const { userId } = await registerConfirmed('ada@example.com');
    await upload(userId, { contentType: 'image/png', size: 100 });
    expect(hangar.mediaFactsQueue).to.equal(undefined);
    await expectDomainError(hangar.backfillMediaFacts.execute(), 'NOT_IMPLEMENTED');
  });
});

describe('media facts left missing (the runtime’s catch-up)', () => {
  const OLD_ENOUGH = MEDIA_CATCH_UP_DEFAULTS.minAgeMs + 1_000;

  it('gives facts to files dropped from a full queue once they are five minutes old, a batch a run, without the CLI', async () => {
    // maxPending 0: every upload is dropped from the queue, as when it is full.
    const { hangar, registerConfirmed, upload, prober, clock } = world({ concurrency: 1, maxPending: 0, catchUp: { batchSize: 2 } });
    const { userId } = await registerConfirmed('ada@example.com');
    const uploaded = [];
    for (let i = 0; i < 3; i++) uploaded.push(await upload(userId, { contentType: 'image/png', size: 100 + i }));
    expect(hangar.mediaFactsQueue!.dropped).to.equal(3);
    const runtime = new HangarRuntime(hangar, { maintenance: false });
    const known = async () => {
      const page = await hangar.listFiles.execute({ userId, filter: {}, page: 1, limit: 10 });
      return page.items.filter((view) => view.media?.width !== null).length;
    };

    // Just uploaded: left to the upload's own probe.
    await runtime.catchUpMediaFacts();
    expect(prober.probed).to.deep.equal([]);
    clock.advance(OLD_ENOUGH);
    await runtime.catchUpMediaFacts();
    expect(await known()).to.equal(2);
    await runtime.catchUpMediaFacts();
    expect(await known()).to.equal(3);
    expect((await hangar.getFile.execute({ userId, fileId: uploaded[2].file.fileId })).media).to.deep.equal(SIZE);
    // Nothing left: runs probe nothing more.
    await runtime.catchUpMediaFacts();
    await runtime.catchUpMediaFacts();
    expect(prober.probed).to.have.length(3);
    expect(await hangar.backfillMediaFacts.execute()).to.deep.equal({ done: 0, total: 0, failed: 0 });
  });

  it('moves past a file whose store was out of reach, logs it deferred, and tries it again on the next pass', async () => {
    const { hangar, registerConfirmed, upload, prober, clock, media } = world({ concurrency: 1, maxPending: 0, catchUp: { batchSize: 1 } });
    const { userId } = await registerConfirmed('ada@example.com');
    await upload(userId, { contentType: 'image/png', size: 100 });
    await upload(userId, { contentType: 'image/png', size: 101 });
    clock.advance(OLD_ENOUGH);
    const logger = new MemoryLogger();
    const runtime = new HangarRuntime(hangar, { maintenance: false, logger });
    prober.failure = new DomainError('BLOB_STORE_UNAVAILABLE', 'The blob store did not answer.');
    await runtime.catchUpMediaFacts();
    expect(logger.entries.map(({ event, fields }) => [event, fields.work, fields.code])).to.deep.equal([
      ['background_work_deferred', 'catch-up-media-facts', 'BLOB_STORE_UNAVAILABLE'],
    ]);
    prober.failure = undefined;
    await runtime.catchUpMediaFacts(); // the second file: the first does not hold it up
    expect(await media.countWithout()).to.equal(1);
    await runtime.catchUpMediaFacts(); // the end of the walk
    await runtime.catchUpMediaFacts(); // the next pass takes the first file again
    expect(await media.countWithout()).to.equal(0);
    expect(prober.probed).to.have.length(3);
  });

  it('runs on the maintenance process’s timer, and not on a process without maintenance', async () => {
    const { hangar, registerConfirmed, upload, prober, clock, media } = world({ concurrency: 1, maxPending: 0 });
    const { userId } = await registerConfirmed('ada@example.com');
    await upload(userId, { contentType: 'image/png', size: 100 });
    clock.advance(OLD_ENOUGH);
    const quiet = new HangarRuntime(hangar, { maintenance: false, mediaCatchUpIntervalMs: 5, planSyncIntervalMs: 3_600_000 });
    quiet.start();
    await new Promise((resolve) => setTimeout(resolve, 60));
    await quiet.stop();
    expect(prober.probed).to.deep.equal([]);
    const busy = new HangarRuntime(hangar, { maintenance: true, mediaCatchUpIntervalMs: 5, planSyncIntervalMs: 3_600_000 });
    busy.start();
    for (let waited = 0; prober.probed.length === 0 && waited < 2_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    await busy.stop();
    expect(prober.probed).to.deep.equal(['image/png']);
    expect(await media.countWithout()).to.equal(0);
  });

  it('has no catch-up where uploads are not probed (MEDIA_PROBE_CONCURRENCY=0): the CLI remains', async () => {
    const { hangar } = world({ concurrency: 0 });
    expect(hangar.catchUpMediaFacts).to.equal(undefined);
  });
});
