import { expect } from 'chai';
import { PrecompiledQuery } from '../../adapters/persistence/sql/precompiled-query.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { aUser } from '../contracts/persistence-fixtures.js';

describe('PrecompiledQuery (SQLite)', () => {
  let database: SqliteDatabase;
  beforeEach(async () => {
    database = await openSqliteDatabase({ path: ':memory:' });
    const { users } = createSqlRepositories(database.db);
    for (const email of ['ann@example.com', 'bob@example.com', 'cid@example.com']) await users.create(aUser({ email }));
  });
  afterEach(() => database.close());

  it('answers each call with the rows for its own arguments, as the built query would', async () => {
    const byEmail = new PrecompiledQuery((db, email: string) => db.selectFrom('users').select(['email']).where('email', '=', email));
    for (const email of ['bob@example.com', 'ann@example.com', 'nobody@example.com', 'cid@example.com']) {
      const built = await database.db.selectFrom('users').select(['email']).where('email', '=', email).execute();
      expect(await byEmail.execute(database.db, email)).to.deep.equal(built);
    }
  });

  it('puts several arguments in their places and keeps constants the builder bound', async () => {
    const range = new PrecompiledQuery((db, from: string, to: string) =>
      db.selectFrom('users').select(['email']).where('email', '>=', from).where('email', '<', to).orderBy('email').limit(1),
    );
    expect(await range.execute(database.db, 'b', 'z')).to.deep.equal([{ email: 'bob@example.com' }]);
    expect(await range.execute(database.db, 'a', 'b')).to.deep.equal([{ email: 'ann@example.com' }]);
    expect(await range.first(database.db, 'd', 'z')).to.equal(undefined);
  });

  it('refuses a query that does not bind every argument as a parameter', async () => {
    const careless = new PrecompiledQuery((db, _email: string) => db.selectFrom('users').select(['email']));
    let failure: unknown;
    await careless.execute(database.db, 'ann@example.com').catch((error) => (failure = error));
    expect(failure).to.be.instanceOf(Error).with.property('message').that.matches(/must bind each of its 1 arguments/);
  });
});
