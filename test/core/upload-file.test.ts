import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { createHangar, type FileRepository, type Hangar, type IdGenerator, type InsertResult, type QuotaLimits, type StoredFile } from '../../core/index.js';
import {
  bodyOf,
  brokenBody,
  bytes,
  collect,
  createMemoryHangar,
  expectDomainError,
  signedPattern,
  START,
  untouchableBody,
  UUID_PATTERN,
  withTrialPlan,
} from '../support/memory-hangar.js';

async function withAlice(...args: Parameters<typeof createMemoryHangar>) {
  const world = createMemoryHangar(...args);
  const alice = await world.registerConfirmed('alice@example.com');
  /** Nothing was stored: no record listed and no blob under any key the store was asked to write. */
  const expectNothingStored = async () => {
    expect((await world.hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 100 })).total).to.equal(0);
    expect(await world.blobs.liveKeys()).to.deep.equal([]);
  };
  return { ...world, alice, expectNothingStored };
}

/** A FileRepository that passes every call to `inner`, for test doubles that change one call. */
class DelegatingFileRepository implements FileRepository {
  constructor(protected readonly inner: FileRepository) {}
  insert(file: StoredFile, limits: QuotaLimits, options?: { fromUpload?: string }): Promise<InsertResult> {
    return this.inner.insert(file, limits, options);
  }
  totals(userId: string) {
    return this.inner.totals(userId);
  }
  findByFileId(fileId: string) {
    return this.inner.findByFileId(fileId);
  }
  totalsAndFileIdTaken(userId: string, fileId: string) {
    return this.inner.totalsAndFileIdTaken(userId, fileId);
  }
  list(options: Parameters<FileRepository['list']>[0]) {
    return this.inner.list(options);
  }
  deleteMany(options: Parameters<FileRepository['deleteMany']>[0]) {
    return this.inner.deleteMany(options);
  }
  scan(options: Parameters<FileRepository['scan']>[0]) {
    return this.inner.scan(options);
  }
  update(options: Parameters<FileRepository['update']>[0]) {
    return this.inner.update(options);
  }
  findExpired(options: Parameters<FileRepository['findExpired']>[0]) {
    return this.inner.findExpired(options);
  }
  findWithSigningKey(fileId: string) {
    return this.inner.findWithSigningKey(fileId);
  }
  addReadCounts(entries: Parameters<FileRepository['addReadCounts']>[0]) {
    return this.inner.addReadCounts(entries);
  }
}

/** A FileRepository whose insert always fails, as a database outage would. */
class FailingInsertFileRepository extends DelegatingFileRepository {
  override async insert(): Promise<InsertResult> {
    throw new Error('database is down');
  }
}

/** A FileRepository that reports each read of the totals before an upload's body (`totalsAndFileIdTaken`). */
class CountingFileRepository extends DelegatingFileRepository {
  constructor(
    inner: FileRepository,
    private readonly onRead: () => void,
  ) {
    super(inner);
  }
  override totalsAndFileIdTaken(userId: string, fileId: string) {
    this.onRead();
    return this.inner.totalsAndFileIdTaken(userId, fileId);
  }
}

/** An IdGenerator that answers the queued file ids (base62(10)) first, then random ones. */
class ScriptedFileIds implements IdGenerator {
  readonly queue: string[] = [];
  constructor(private readonly inner: IdGenerator) {}
  uuid(): string {
    return this.inner.uuid();
  }
  base62(length: number): string {
    return length === 10 && this.queue.length > 0 ? this.queue.shift()! : this.inner.base62(length);
  }
}

describe('UploadFile', () => {
  describe('storing', () => {
    it('stores the bytes: they read back whole through the public address', async () => {
      const { hangar, upload, alice } = await withAlice();
      const { file } = await upload(alice.userId, { size: 700, contentType: 'image/png' });
      const publicFile = await hangar.readPublicFile.execute({ fileId: file.fileId });
      expect(await collect(await publicFile.open())).to.deep.equal(Buffer.from(signedPattern('image/png', 700)));
    });

    it('records size, SHA-256, owner, time, content type and a 10-character base62 file id', async () => {
      const { upload, alice, clock, repos } = await withAlice();
      clock.advance(42_000);
      const { file } = await upload(alice.userId, { size: 700, contentType: 'image/png' });
      expect(file.size).to.equal(700);
      expect(file.sha256).to.equal(createHash('sha256').update(signedPattern('image/png', 700)).digest('hex'));
      expect(file.userId).to.equal(alice.userId);
      expect(file.id).to.match(UUID_PATTERN);
      expect(file.fileId).to.match(/^[0-9A-Za-z]{10}$/);
      expect(file.contentType).to.equal('image/png');
      expect(file.createdAt.getTime()).to.equal(START.getTime() + 42_000);
      expect(file.blobKey).to.equal(`${alice.userId}/${file.fileId}`);
      expect(await repos.files.findByFileId(file.fileId)).to.deep.equal(file);
    });

    it('builds the addresses {cdn_url}/m/<file_id>, {cdn_url}/d/<file_id> and {cdn_url}/v/<file_id>', async () => {
      const { upload, alice } = await withAlice();
      const { file, urls } = await upload(alice.userId);
      expect(urls).to.deep.equal({
        publicUrl: `http://cdn.test/m/${file.fileId}`,
        publicDownloadUrl: `http://cdn.test/d/${file.fileId}`,
        defaultUrl: `http://cdn.test/m/${file.fileId}`,
        defaultDownloadUrl: `http://cdn.test/d/${file.fileId}`,
        viewUrl: `http://cdn.test/v/${file.fileId}`,
      });
    });

    it('makes files public by default', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId)).file.isPublic).to.equal(true);
    });

    it('stores a private file with null addresses, which the public address does not serve', async () => {
      const { hangar, upload, alice } = await withAlice();
      const { file, urls } = await upload(alice.userId, { isPublic: false });
      expect(file.isPublic).to.equal(false);
      expect(urls).to.deep.equal({ publicUrl: null, publicDownloadUrl: null, defaultUrl: null, defaultDownloadUrl: null, viewUrl: null });
      await expectDomainError(hangar.readPublicFile.execute({ fileId: file.fileId }), 'FILE_NOT_FOUND');
      expect((await hangar.getFile.execute({ userId: alice.userId, fileId: file.fileId })).file.size).to.equal(16);
    });

    it('gives each upload its own file id', async () => {
      const { upload, alice } = await withAlice();
      const a = await upload(alice.userId);
      const b = await upload(alice.userId);
      expect(a.file.fileId).to.not.equal(b.file.fileId);
    });

    it('accepts a matching Content-Length', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId, { size: 300, contentLength: 300 })).file.size).to.equal(300);
    });
  });

  describe('file name', () => {
    it('has a null name without x-file-name', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId)).file.name).to.equal(null);
    });

    it('decodes percent-encoded UTF-8: r%C3%A9sum%C3%A9.pdf is résumé.pdf', async () => {
      const { upload, alice } = await withAlice();
      const { file } = await upload(alice.userId, { contentType: 'application/pdf', fileName: 'r%C3%A9sum%C3%A9.pdf' });
      expect(file.name).to.equal('résumé.pdf');
    });

    it('keeps a plain name as it is', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId, { fileName: 'notes 2025 (final).txt' })).file.name).to.equal('notes 2025 (final).txt');
    });

    it('removes control characters, raw or percent-encoded, and trims', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId, { fileName: ' a\u0001b\u007fc\u0085.txt ' })).file.name).to.equal('abc.txt');
      expect((await upload(alice.userId, { fileName: 'evil%0D%0Aname%00.txt' })).file.name).to.equal('evilname.txt');
    });

    it('turns a name of only spaces and control characters into null', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId, { fileName: ' \u0000 ' })).file.name).to.equal(null);
    });

    it('accepts a 255-character name', async () => {
      const { upload, alice } = await withAlice();
      const name = `${'n'.repeat(251)}.txt`;
      expect((await upload(alice.userId, { fileName: name })).file.name).to.equal(name);
    });

    it('counts characters after decoding: 255 two-byte characters are accepted', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId, { fileName: '%C3%A9'.repeat(255) })).file.name).to.equal('é'.repeat(255));
    });

    it('refuses a 256-character name with INVALID_FILE_NAME before reading the body, storing nothing', async () => {
      const { upload, alice, expectNothingStored } = await withAlice();
      const body = untouchableBody();
      await expectDomainError(upload(alice.userId, { fileName: `${'n'.repeat(252)}.txt`, body }), 'INVALID_FILE_NAME');
      expect(body.touched).to.equal(false);
      await expectNothingStored();
    });

    it('refuses a percent escape that is not UTF-8 with INVALID_FILE_NAME', async () => {
      const { upload, alice, expectNothingStored } = await withAlice();
      await expectDomainError(upload(alice.userId, { fileName: 'caf%E9.txt' }), 'INVALID_FILE_NAME');
      await expectNothingStored();
    });
  });

  describe('content type', () => {
    it('normalises Image/PNG; charset=x to image/png', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId, { contentType: 'Image/PNG; charset=x' })).file.contentType).to.equal('image/png');
    });

    for (const contentType of ['application/x-msdownload', 'text/html', 'image/png-but-not-really', 'image', '', undefined]) {
      it(`refuses Content-Type ${JSON.stringify(contentType)} with CONTENT_TYPE_NOT_ALLOWED before reading the body, storing nothing`, async () => {
        const { hangar, alice, expectNothingStored } = await withAlice();
        const body = untouchableBody();
        const error = await expectDomainError(
          hangar.uploadFile.execute({ userId: alice.userId, contentType, fileName: 'x', body }),
          'CONTENT_TYPE_NOT_ALLOWED',
        );
        expect(error.details).to.have.property('allowed').that.includes('image/png');
        expect(body.touched).to.equal(false);
        await expectNothingStored();
      });
    }

    it('honours a custom allowed list', async () => {
      const { upload, alice } = await withAlice({ allowedContentTypes: ['text/html'] });
      expect((await upload(alice.userId, { contentType: 'text/html' })).file.contentType).to.equal('text/html');
      await expectDomainError(upload(alice.userId, { contentType: 'image/png' }), 'CONTENT_TYPE_NOT_ALLOWED');
    });
  });

  describe('size limit', () => {
    it('accepts exactly the limit (1024 bytes)', async () => {
      const { upload, alice } = await withAlice();
      expect((await upload(alice.userId, { size: 1024 })).file.size).to.equal(1024);
    });

    it('refuses one byte over the limit with FILE_TOO_LARGE, leaving no blob and no record', async () => {
      const { upload, alice, expectNothingStored, blobs } = await withAlice();
      const error = await expectDomainError(upload(alice.userId, { size: 1025 }), 'FILE_TOO_LARGE');
      expect(error.details).to.deep.equal({ max_upload_size_bytes: 1024 });
      expect(blobs.putKeys).to.have.length(1);
      await expectNothingStored();
    });

    it('refuses a much larger body in many chunks without storing anything', async () => {
      const { upload, alice, expectNothingStored } = await withAlice();
      await expectDomainError(upload(alice.userId, { body: bytes(64 * 1024, 10) }), 'FILE_TOO_LARGE');
      await expectNothingStored();
    });

    it('refuses a declared Content-Length over the limit before reading the body', async () => {
      const { upload, alice, expectNothingStored, blobs } = await withAlice();
      const body = untouchableBody();
      await expectDomainError(upload(alice.userId, { contentLength: 1025, body }), 'FILE_TOO_LARGE');
      expect(body.touched).to.equal(false);
      expect(blobs.putKeys).to.deep.equal([]);
      await expectNothingStored();
    });

    it('refuses a body longer than the limit even when its Content-Length claimed less', async () => {
      const { upload, alice, expectNothingStored } = await withAlice();
      await expectDomainError(upload(alice.userId, { contentLength: 10, size: 2000 }), 'FILE_TOO_LARGE');
      await expectNothingStored();
    });
  });

  describe('incomplete and empty bodies', () => {
    it('refuses an empty body with EMPTY_FILE, leaving nothing', async () => {
      const { upload, alice, expectNothingStored } = await withAlice();
      await expectDomainError(upload(alice.userId, { body: bytes(0) }), 'EMPTY_FILE');
      await expectNothingStored();
    });

    it('refuses a body of one empty chunk with EMPTY_FILE', async () => {
      const { upload, alice, expectNothingStored } = await withAlice();
      await expectDomainError(upload(alice.userId, { body: bodyOf(new Uint8Array(0)) }), 'EMPTY_FILE');
      await expectNothingStored();
    });

    it('refuses a body shorter than its Content-Length with UPLOAD_INCOMPLETE, leaving nothing', async () => {
      const { upload, alice, expectNothingStored } = await withAlice();
      await expectDomainError(upload(alice.userId, { contentLength: 500, size: 300 }), 'UPLOAD_INCOMPLETE');
      await expectNothingStored();
    });

    it('refuses a body that breaks off with UPLOAD_INCOMPLETE, leaving nothing', async () => {
      const { upload, alice, expectNothingStored } = await withAlice();
      await expectDomainError(upload(alice.userId, { body: brokenBody(200) }), 'UPLOAD_INCOMPLETE');
      await expectNothingStored();
    });
  });

  describe('failures after the blob is written', () => {
    it('removes the blob when the record cannot be inserted, and rethrows', async () => {
      const world = createMemoryHangar({}, (ports) => ({ files: new FailingInsertFileRepository(ports.files) }));
      const alice = await world.registerConfirmed('alice@example.com');
      let failure: unknown;
      try {
        await world.upload(alice.userId, { size: 100 });
      } catch (error) {
        failure = error;
      }
      expect(failure).to.be.instanceOf(Error).with.property('message', 'database is down');
      expect(world.blobs.putKeys).to.have.length(1);
      expect(await world.blobs.liveKeys()).to.deep.equal([]);
      expect((await world.repos.files.list({ userId: alice.userId, filter: {}, window: { offset: 0, limit: 10 } })).total).to.equal(0);
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 0, filesCount: 0 });
    });

    it('refuses with FILE_ID_COLLISION when an id drawn without a read is the account’s own file, keeping that file’s bytes', async () => {
      let ids!: ScriptedFileIds;
      const world = createMemoryHangar({}, (ports) => ({ ids: (ids = new ScriptedFileIds(ports.ids)) }));
      const alice = await world.registerConfirmed('alice@example.com');
      const existing = await world.upload(alice.userId, { body: bodyOf('original contents') });
      const before = await world.totals(alice.userId);

      ids.queue.push(existing.file.fileId);
      await expectDomainError(world.upload(alice.userId, { body: bodyOf('newcomer') }), 'FILE_ID_COLLISION');

      const publicFile = await world.hangar.readPublicFile.execute({ fileId: existing.file.fileId });
      expect((await collect(await publicFile.open())).toString('utf8')).to.equal('original contents');
      expect(await world.totals(alice.userId)).to.deep.equal(before);
      expect(await world.blobs.liveKeys()).to.have.length(1);
      // Sent again, it draws another id and is stored.
      const again = await world.upload(alice.userId, { body: bodyOf('newcomer') });
      expect(again.file.fileId).to.not.equal(existing.file.fileId);
    });

    it('refuses with FILE_ID_COLLISION when an id drawn without a read is another account’s file, leaving no blob', async () => {
      let ids!: ScriptedFileIds;
      const world = createMemoryHangar({}, (ports) => ({ ids: (ids = new ScriptedFileIds(ports.ids)) }));
      const alice = await world.registerConfirmed('alice@example.com');
      const bob = await world.registerConfirmed('bob@example.com');
      const taken = await world.upload(bob.userId, { body: bodyOf('bob’s file') });
      await world.upload(alice.userId, { body: bodyOf('alice’s first file') });
      const before = await world.totals(alice.userId);

      ids.queue.push(taken.file.fileId);
      await expectDomainError(world.upload(alice.userId, { body: bodyOf('alice’s file') }), 'FILE_ID_COLLISION');

      expect(await world.totals(alice.userId)).to.deep.equal(before);
      expect(await world.blobs.liveKeys()).to.have.length(2);
      const bobs = await world.hangar.readPublicFile.execute({ fileId: taken.file.fileId });
      expect((await collect(await bobs.open())).toString('utf8')).to.equal('bob’s file');
    });

    it('draws again when the id drawn with the totals is taken (an account’s first upload in this process)', async () => {
      let ids!: ScriptedFileIds;
      const world = createMemoryHangar({}, (ports) => ({ ids: (ids = new ScriptedFileIds(ports.ids)) }));
      const alice = await world.registerConfirmed('alice@example.com');
      const bob = await world.registerConfirmed('bob@example.com');
      const taken = await world.upload(bob.userId, { body: bodyOf('bob’s file') });
      const alsoTaken = await world.upload(bob.userId, { body: bodyOf('bob’s second file') });

      // The first draw is checked with the totals, the next ones alone: both must be passed over.
      ids.queue.push(taken.file.fileId, alsoTaken.file.fileId);
      const { file } = await world.upload(alice.userId, { body: bodyOf('alice’s file') });

      expect(file.fileId).to.not.be.oneOf([taken.file.fileId, alsoTaken.file.fileId]);
      expect((await collect(await (await world.hangar.readPublicFile.execute({ fileId: file.fileId })).open())).toString('utf8')).to.equal('alice’s file');
    });
  });

  describe('with the account’s room known to this process (no read before the body)', () => {
    /** Process A is `world.hangar`; process B is another core on the same repositories and blobs. */
    function twoProcesses(plan: Parameters<typeof withTrialPlan>[0]) {
      let reads = 0;
      const world = createMemoryHangar({ ...withTrialPlan(plan), defaultMaxUploadSizeBytes: 1000 }, (ports) => ({
        files: new CountingFileRepository(ports.files, () => reads++),
      }));
      const other = createHangar(world.ports, world.options);
      const uploadThrough = (hangar: Hangar, userId: string, input: { size?: number; body?: AsyncIterable<Uint8Array> }) =>
        hangar.uploadFile.execute({ userId, contentType: 'text/plain', fileName: undefined, body: input.body ?? bytes(input.size ?? 10) });
      return { world, other, uploadThrough, reads: () => reads };
    }

    it('reads the totals before the body once, then again only after 10 s', async () => {
      const { world, reads } = twoProcesses({ storageLimitBytes: 100_000, fileCountLimit: 100 });
      const alice = await world.registerConfirmed('alice@example.com');
      for (let i = 0; i < 5; i++) await world.upload(alice.userId, { size: 100 });
      expect(reads()).to.equal(1);
      world.clock.advance(10_001);
      await world.upload(alice.userId, { size: 100 });
      expect(reads()).to.equal(2);
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 600, filesCount: 6 });
    });

    it('reads the totals before every body once the room left is less than a whole upload', async () => {
      const { world, reads } = twoProcesses({ storageLimitBytes: 2500, fileCountLimit: 100 });
      const alice = await world.registerConfirmed('alice@example.com');
      await world.upload(alice.userId, { size: 1000 });
      // 1500 bytes left: room for a whole upload.
      await world.upload(alice.userId, { size: 1000 });
      expect(reads()).to.equal(1);
      // 500 bytes left: a body of 600 is cut off at the storage left, as the fresh read says.
      await expectDomainError(world.upload(alice.userId, { body: bytes(600) }), 'STORAGE_LIMIT_REACHED');
      expect(reads()).to.equal(2);
      await world.upload(alice.userId, { size: 500 });
      expect(reads()).to.equal(3);
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 2500, filesCount: 3 });
    });

    it('another process filled the file slots: the insert refuses with FILE_COUNT_LIMIT_REACHED, storing nothing, and the next upload is refused before its body', async () => {
      const { world, other, uploadThrough } = twoProcesses({ storageLimitBytes: 100_000, fileCountLimit: 3 });
      const alice = await world.registerConfirmed('alice@example.com');
      await uploadThrough(world.hangar, alice.userId, { size: 10 });
      await uploadThrough(other, alice.userId, { size: 10 });
      await uploadThrough(other, alice.userId, { size: 10 });

      await expectDomainError(uploadThrough(world.hangar, alice.userId, { size: 10 }), 'FILE_COUNT_LIMIT_REACHED');
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 30, filesCount: 3 });
      expect(await world.blobs.liveKeys()).to.have.length(3);

      const body = untouchableBody();
      await expectDomainError(uploadThrough(world.hangar, alice.userId, { body }), 'FILE_COUNT_LIMIT_REACHED');
      expect(body.touched).to.equal(false);
    });

    it('another process used the storage: the insert refuses with STORAGE_LIMIT_REACHED, storing nothing, and a file that fits is stored next', async () => {
      const { world, other, uploadThrough } = twoProcesses({ storageLimitBytes: 3000, fileCountLimit: 100 });
      const alice = await world.registerConfirmed('alice@example.com');
      await uploadThrough(world.hangar, alice.userId, { size: 100 });
      await uploadThrough(other, alice.userId, { size: 1000 });
      await uploadThrough(other, alice.userId, { size: 1000 });

      await expectDomainError(uploadThrough(world.hangar, alice.userId, { size: 950 }), 'STORAGE_LIMIT_REACHED');
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 2100, filesCount: 3 });
      expect(await world.blobs.liveKeys()).to.have.length(3);

      await uploadThrough(world.hangar, alice.userId, { size: 900 });
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 3000, filesCount: 4 });
    });

    it('another process deleted files of a full account: the next upload through this one is stored', async () => {
      const { world, other, uploadThrough } = twoProcesses({ storageLimitBytes: 100_000, fileCountLimit: 2 });
      const alice = await world.registerConfirmed('alice@example.com');
      const first = await uploadThrough(world.hangar, alice.userId, { size: 10 });
      await uploadThrough(world.hangar, alice.userId, { size: 10 });
      await expectDomainError(uploadThrough(world.hangar, alice.userId, { size: 10 }), 'FILE_COUNT_LIMIT_REACHED');

      await other.deleteFile.execute({ userId: alice.userId, fileId: first.file.fileId });
      await uploadThrough(world.hangar, alice.userId, { size: 10 });
      expect(await world.totals(alice.userId)).to.deep.equal({ storageBytes: 20, filesCount: 2 });
    });
  });

  it('refuses an account that no longer exists with UNAUTHORIZED', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(
      hangar.uploadFile.execute({ userId: '00000000-0000-4000-8000-000000000000', contentType: 'text/plain', fileName: undefined, body: bytes(10) }),
      'UNAUTHORIZED',
    );
  });
});
