import { expect } from 'chai';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { SigningKeyRepository } from '../../core/files/signing-key-repository.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { givenUser, onSqlite, openMemory, onPostgres, type OpenedRepositories } from './persistence-fixtures.js';

const postgres = testDatabaseUrl();

/** The behaviour every SigningKeyRepository adapter must have. */
function describeSigningKeyRepositoryContract(name: string, open: () => Promise<OpenedRepositories>): void {
  describe(`SigningKeyRepository contract: ${name}`, () => {
    let keys: SigningKeyRepository;
    let users: UserRepository;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ signingKeys: keys, users, close } = await open());
    });
    afterEach(() => close());

    it('stores the first candidate and returns it to every later call, per account', async () => {
      const [a, b] = [await givenUser(users), await givenUser(users)];
      expect(await keys.ensure({ userId: a.id, candidate: 'k1' })).to.equal('k1');
      expect(await keys.ensure({ userId: a.id, candidate: 'k2' })).to.equal('k1');
      expect(await keys.ensure({ userId: b.id, candidate: 'k3' })).to.equal('k3');
    });

    it('agrees on one key when first calls race', async () => {
      const user = await givenUser(users);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => keys.ensure({ userId: user.id, candidate: `k${i}` })));
      expect(new Set(results).size).to.equal(1);
    });

    it('replaces the key; answers undefined / false for an unknown account', async () => {
      const user = await givenUser(users);
      await keys.ensure({ userId: user.id, candidate: 'old' });
      expect(await keys.replace({ userId: user.id, key: 'new' })).to.equal(true);
      expect(await keys.ensure({ userId: user.id, candidate: 'other' })).to.equal('new');
      const unknown = '00000000-0000-4000-8000-000000000000';
      expect(await keys.ensure({ userId: unknown, candidate: 'x' })).to.equal(undefined);
      expect(await keys.replace({ userId: unknown, key: 'x' })).to.equal(false);
    });

    it('forgets the key of a deleted account', async () => {
      const user = await givenUser(users);
      await keys.ensure({ userId: user.id, candidate: 'k' });
      await users.delete(user.id);
      expect(await keys.ensure({ userId: user.id, candidate: 'x' })).to.equal(undefined);
    });
  });
}

describeSigningKeyRepositoryContract('memory', openMemory);
onSqlite((open) => describeSigningKeyRepositoryContract('SQLite', open));
if (postgres !== undefined) onPostgres(postgres, (open) => describeSigningKeyRepositoryContract('Postgres', open));
