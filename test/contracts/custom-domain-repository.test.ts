import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { aCustomDomain, describeCustomDomainRepositoryContract } from './custom-domain-repository.contract.js';
import { givenUser, onSqlite, openMemory, onPostgres, type OpenedRepositories } from './persistence-fixtures.js';

const postgres = testDatabaseUrl();

function subjectOf({ domains, users, close }: OpenedRepositories) {
  return { subject: domains, users, close };
}

describeCustomDomainRepositoryContract('memory', async () => subjectOf(await openMemory()));
onSqlite((open) => describeCustomDomainRepositoryContract('SQLite', async () => subjectOf(await open())));
if (postgres !== undefined) onPostgres(postgres, (open) => describeCustomDomainRepositoryContract('Postgres', async () => subjectOf(await open())));

describe('SqlCustomDomainRepository on one SQLite file shared by two connections (two processes)', () => {
  let dir: string;
  let first: SqliteDatabase;
  let second: SqliteDatabase;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hangar-domains-'));
    first = await openSqliteDatabase({ path: join(dir, 'hangar.sqlite') });
    second = await openSqliteDatabase({ path: join(dir, 'hangar.sqlite') });
  });
  afterEach(async () => {
    await first.close();
    await second.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lets the unique index decide between two accounts racing for one hostname', async () => {
    const users = createSqlRepositories(first).users;
    const alice = (await givenUser(users)).id;
    const bob = (await givenUser(users)).id;
    const results = await Promise.all([
      createSqlRepositories(first).domains.save(aCustomDomain(alice, { hostname: 'race.example.com' })),
      createSqlRepositories(second).domains.save(aCustomDomain(bob, { hostname: 'race.example.com' })),
    ]);
    expect([...results].sort()).to.deep.equal(['saved', 'taken']);
    const holder = await createSqlRepositories(second).domains.findByHostname('race.example.com');
    expect(holder?.userId).to.equal(results[0] === 'saved' ? alice : bob);
  });

  it('rejects a domain of an unknown account with the driver error, not taken', async () => {
    const error = await createSqlRepositories(first)
      .domains.save(aCustomDomain('00000000-0000-4000-8000-000000000000'))
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).to.be.instanceOf(Error);
    expect((error as { code?: string }).code).to.equal('SQLITE_CONSTRAINT_FOREIGNKEY');
  });
});
