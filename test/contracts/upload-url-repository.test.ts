import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { SigningKeyRepository } from '../../core/files/signing-key-repository.js';
import type { UploadUrlGrant } from '../../core/files/upload-urls.js';
import type { UploadUrlRepository } from '../../core/files/upload-url-repository.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { at, givenUser, onSqlite, openMemory, onPostgres, type OpenedRepositories } from './persistence-fixtures.js';

const postgres = testDatabaseUrl();
let serial = 0;

/** The behaviour every UploadUrlRepository adapter must have. */
function describeUploadUrlRepositoryContract(name: string, open: () => Promise<OpenedRepositories>): void {
  describe(`UploadUrlRepository contract: ${name}`, () => {
    let urls: UploadUrlRepository;
    let users: UserRepository;
    let signingKeys: SigningKeyRepository;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ uploadUrls: urls, users, signingKeys, close } = await open());
    });
    afterEach(() => close());

    async function givenGrant(overrides: Partial<UploadUrlGrant> = {}): Promise<UploadUrlGrant> {
      serial += 1;
      const grant: UploadUrlGrant = {
        id: `u${String(serial).padStart(21, '0')}`,
        userId: (await givenUser(users)).id,
        expiresAt: at(3_600_000),
        maxSizeBytes: null,
        contentTypes: null,
        name: null,
        isPublic: true,
        fileExpiresAt: null,
        createdAt: at(0),
        resumableUploadId: null,
        apiKeyId: null,
        ...overrides,
      };
      await urls.insert(grant);
      return grant;
    }

    it('stores a grant and finds it with every field intact', async () => {
      const grant = await givenGrant({
        maxSizeBytes: 5_000_000_000,
        contentTypes: ['image/*', 'application/pdf'],
        name: 'résumé.pdf',
        isPublic: false,
        fileExpiresAt: at(86_400_000),
      });
      expect(await urls.find(grant.id)).to.deep.equal(grant);
      expect(await urls.find('unknown')).to.equal(undefined);
      expect(await urls.findWithSigningKey(grant.id)).to.deep.equal({ grant, signingKey: null });
      expect(await signingKeys.ensure({ userId: grant.userId, candidate: 'key-1' })).to.equal('key-1');
      expect(await urls.findWithSigningKey(grant.id)).to.deep.equal({ grant, signingKey: 'key-1' });
      expect(await urls.findWithSigningKey('unknown')).to.equal(undefined);
    });

    it('lets exactly one of many concurrent claims through; a released URL can be claimed again', async () => {
      const grant = await givenGrant();
      const results = await Promise.all(Array.from({ length: 12 }, () => urls.claim({ id: grant.id, now: at(1) })));
      expect(results.filter((r) => r === 'claimed')).to.have.length(1);
      expect(results.filter((r) => r === 'used')).to.have.length(11);
      await urls.attachResumableUpload({ id: grant.id, uploadId: 'tus-upload-1' });
      expect((await urls.find(grant.id))!.resumableUploadId).to.equal('tus-upload-1');
      await urls.release(grant.id);
      expect(await urls.claim({ id: grant.id, now: at(2) })).to.equal('claimed');
      expect(await urls.claim({ id: grant.id, now: at(3) })).to.equal('used');
      expect(await urls.claim({ id: 'unknown', now: at(3) })).to.equal('not_found');
    });

    it('deletes expired grants, and an account’s grants with the account', async () => {
      const old = await givenGrant({ expiresAt: at(1000) });
      const fresh = await givenGrant({ expiresAt: at(5000) });
      expect(await urls.deleteExpired(at(2000))).to.equal(1);
      expect(await urls.find(old.id)).to.equal(undefined);
      await users.delete(fresh.userId);
      expect(await urls.find(fresh.id)).to.equal(undefined);
    });
  });
}

describeUploadUrlRepositoryContract('memory', openMemory);
onSqlite((open) => describeUploadUrlRepositoryContract('SQLite', open));
if (postgres !== undefined) onPostgres(postgres, (open) => describeUploadUrlRepositoryContract('Postgres', open));
