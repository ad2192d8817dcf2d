import { expect } from 'chai';
import type { FileRepository } from '../../core/files/file-repository.js';
import type { Share } from '../../core/shares/share.js';
import type { ShareRepository } from '../../core/shares/share-repository.js';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import { testDatabaseUrl } from '../support/test-database.js';
import type { ApiKeyRepository } from '../../core/api-keys/api-key-repository.js';
import { aFile, anApiKey, at, givenUser, onSqlite, openMemory, onPostgres, type OpenedRepositories, T0 } from './persistence-fixtures.js';

const postgres = testDatabaseUrl();
const ROOMY = { storageLimitBytes: 2 ** 40, fileCountLimit: 1_000_000 };
let serial = 0;

/** The behaviour every ShareRepository adapter must have. */
function describeShareRepositoryContract(name: string, open: () => Promise<OpenedRepositories>): void {
  describe(`ShareRepository contract: ${name}`, () => {
    let shares: ShareRepository;
    let files: FileRepository;
    let users: UserRepository;
    let apiKeys: ApiKeyRepository;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ shares, files, users, apiKeys, close } = await open());
    });
    afterEach(() => close());

    async function givenShare(overrides: Partial<Share> = {}, owner?: string): Promise<Share> {
      const userId = owner ?? (await givenUser(users)).id;
      const file = aFile(userId);
      await files.insert(file, ROOMY);
      serial += 1;
      const share: Share = {
        id: `s${String(serial).padStart(21, '0')}`,
        userId,
        fileId: file.fileId,
        fileRecordId: file.id,
        passwordHash: null,
        expiresAt: null,
        maxDownloads: null,
        downloads: 0,
        createdAt: at(serial),
        apiKeyId: null,
        ...overrides,
      };
      await shares.insert(share);
      return share;
    }

    it('stores a share and finds it by id, every field intact; lists a file’s shares newest first; deletes only the owner’s', async () => {
      const share = await givenShare({ passwordHash: '$argon2id$x', expiresAt: at(3_600_000), maxDownloads: 5 });
      expect(await shares.findById(share.id)).to.deep.equal(share);
      serial += 1;
      const second: Share = { ...share, id: `s${String(serial).padStart(21, '0')}`, createdAt: at(serial), passwordHash: null };
      await shares.insert(second);
      expect((await shares.listByFile({ userId: share.userId, fileId: share.fileId })).map((s) => s.id)).to.deep.equal([second.id, share.id]);
      const stranger = (await givenUser(users)).id;
      expect(await shares.listByFile({ userId: stranger, fileId: share.fileId })).to.deep.equal([]);
      expect(await shares.delete({ userId: stranger, shareId: share.id })).to.equal(false);
      expect(await shares.delete({ userId: share.userId, shareId: share.id })).to.equal(true);
      expect(await shares.findById(share.id)).to.equal(undefined);
      expect(await shares.delete({ userId: share.userId, shareId: share.id })).to.equal(false);
    });

    it('removes the shares an API key made when that key is deleted (alone or with all of its user’s keys), and no other share', async () => {
      const owner = (await givenUser(users)).id;
      const [key, other] = [anApiKey(owner), anApiKey(owner)];
      await apiKeys.create(key);
      await apiKeys.create(other);
      const byKey = await givenShare({ apiKeyId: key.id }, owner);
      const byOther = await givenShare({ apiKeyId: other.id }, owner);
      const bySession = await givenShare({}, owner);
      expect(await shares.findById(byKey.id)).to.deep.equal(byKey);
      expect(await apiKeys.delete({ userId: owner, id: key.id })).to.equal(true);
      expect(await shares.findById(byKey.id)).to.equal(undefined);
      expect(await shares.findById(byOther.id)).to.deep.equal(byOther);
      await apiKeys.deleteAllForUser({ userId: owner });
      expect(await shares.findById(byOther.id)).to.equal(undefined);
      expect(await shares.findById(bySession.id), 'a share a session made stays').to.deep.equal(bySession);
    });

    it('grants exactly max_downloads of many concurrent claims, and none once expired', async () => {
      const limited = await givenShare({ maxDownloads: 4 });
      const results = await Promise.all(Array.from({ length: 20 }, () => shares.claimDownload({ shareId: limited.id, now: T0 })));
      expect(results.filter(Boolean)).to.have.length(4);
      expect((await shares.findById(limited.id))!.downloads).to.equal(4);
      const expiring = await givenShare({ expiresAt: at(1000) });
      expect(await shares.claimDownload({ shareId: expiring.id, now: at(999) })).to.equal(true);
      expect(await shares.claimDownload({ shareId: expiring.id, now: at(1000) })).to.equal(false);
      const unlimited = await givenShare();
      for (let i = 0; i < 5; i++) expect(await shares.claimDownload({ shareId: unlimited.id, now: T0 })).to.equal(true);
      expect(await shares.claimDownload({ shareId: 'unknown', now: T0 })).to.equal(false);
    });

    it('removes a file’s shares with the file', async () => {
      const share = await givenShare();
      await files.deleteMany({ userId: share.userId, fileIds: [share.fileId] });
      expect(await shares.findById(share.id)).to.equal(undefined);
    });
  });
}

describeShareRepositoryContract('memory', openMemory);
onSqlite((open) => describeShareRepositoryContract('SQLite', open));
if (postgres !== undefined) onPostgres(postgres, (open) => describeShareRepositoryContract('Postgres', open));
