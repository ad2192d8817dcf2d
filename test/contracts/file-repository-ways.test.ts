import { describeFileRepositoryContract } from './file-repository.contract.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { SqlFileRepository } from '../../adapters/persistence/sql/sql-file-repository.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';

// SQLite chooses how to count and page each listing (listing-plan.ts); small test accounts always
// take one way, so each way is also forced on every listing: the same answers either way.
for (const way of ['index', 'size-range', 'list-order'] as const) {
  describeFileRepositoryContract(`SQLite (:memory:), every listing by way ${way}`, async () => {
    const database = await openSqliteDatabase({ path: ':memory:' });
    const { users, signingKeys } = createSqlRepositories(database);
    const subject = new SqlFileRepository(new SqlExecutor(database.db, { direct: database.direct }), { sqliteListingWay: way });
    return { subject, users, signingKeys, close: database.close };
  });
}
