import { describeActivityLogRepositoryContract, type ActivityLogRepositorySubject } from './activity-log-repository.contract.js';
import { expect } from 'chai';
import { aLogEntry, givenUser, onSqlite, openMemory, onPostgres, type OpenedRepositories } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

function subjectOf({ logs, users, close }: OpenedRepositories): ActivityLogRepositorySubject {
  return { subject: logs, users, close };
}

describeActivityLogRepositoryContract('memory', async () => subjectOf(await openMemory()));
onSqlite((open) => describeActivityLogRepositoryContract('SQLite', async () => subjectOf(await open())));
if (postgres !== undefined) onPostgres(postgres, (open) => describeActivityLogRepositoryContract('Postgres', async () => subjectOf(await open())));

/**
 * Postgres only: under READ COMMITTED, a batch's EXISTS can see an account whose deletion has not
 * committed yet; the foreign-key check then waits for that deletion and fails once it commits. The
 * repository tries the batch once more (the EXISTS no longer sees the account), so writing the log of
 * an account deleted meanwhile is not an error.
 */
if (postgres !== undefined)
  onPostgres(postgres, (open) => {
    describe('SqlActivityLogRepository: an account deleted while its entries are written', () => {
      it("skips its entries without a foreign-key error, and keeps the other accounts' entries", async () => {
        const { logs, users, db } = await open();
        const leaving = await givenUser(users);
        const staying = await givenUser(users);
        let written: Promise<void> | undefined;
        await db!.transaction().execute(async (trx) => {
          await trx.deleteFrom('users').where('id', '=', leaving.id).execute();
          written = logs.insertMany([aLogEntry(leaving.id), aLogEntry(staying.id)]);
          // Long enough for the batch's EXISTS to pass and its foreign-key check to wait on this deletion.
          await new Promise((resolve) => setTimeout(resolve, 300));
        });
        await written;
        expect((await logs.list({ userId: staying.id, window: { offset: 0, limit: 10 } })).total).to.equal(1);
      });
    });
  });
