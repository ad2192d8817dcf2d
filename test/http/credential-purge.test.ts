import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';
import { CREDENTIAL_RETENTION_DAYS } from '../../core/index.js';
import { call, expectError, signUp, startTestServer } from '../support/http-harness.js';
import { startServerProcess } from '../support/server-process.js';

const DAY = 86_400_000;

/**
 * The server purges spent credentials when it starts (and hourly; apps/server/start.ts). Over a
 * SQLite file the test owns (on both runs of the HTTP suite), so that it can age a session between
 * two starts; what is purged is the contract suites' and PurgeCredentials' tests.
 */
/** The second start: in this process, or `npm start` with two workers (only the first one runs the maintenance). */
const restarts: { name: string; start: (dataDir: string, env: Record<string, string>) => Promise<{ api: string; stop(): Promise<unknown> }> }[] = [
  { name: 'one process', start: (dataDir, env) => startTestServer(env, {}, { dataDir }) },
  {
    name: 'WORKERS=2',
    start: (dataDir, env) =>
      startServerProcess({ ...env, WORKERS: '2', HOST: '127.0.0.1', PORT: '0', CONTENT_PORT: '0', DATA_DIR: dataDir, PASSWORD_HASH_MEMORY_KIB: '1024' }),
  },
];

describe('HTTP: spent credentials purged when the server starts', () => {
  for (const restart of restarts)
    it(`forgets a session logged out more than ${CREDENTIAL_RETENTION_DAYS} days ago, and keeps a live one (${restart.name})`, async function () {
      this.timeout(30_000);
      const dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-purge-'));
      const env = { DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}` };
      try {
        const server = await startTestServer(env, {}, { dataDir });
        const gone = await signUp(server, 'gone@example.com');
        const kept = await signUp(server, 'kept@example.com');
        expect((await call(server.api, '/auth/logout', { method: 'POST', token: gone.accessToken })).status).to.equal(204);
        await server.stop();

        const { db, close } = await openSqliteDatabase({ path: path.join(dataDir, 'hangar.db') });
        const revoked = await db.selectFrom('sessions').select('id').where('user_id', '=', gone.userId).where('revoked_at', 'is not', null).execute();
        expect(revoked).to.have.length(1);
        await db
          .updateTable('sessions')
          .set({ revoked_at: Date.now() - (CREDENTIAL_RETENTION_DAYS + 1) * DAY })
          .where('id', '=', revoked[0].id)
          .execute();
        const all = (await db.selectFrom('sessions').select('id').execute()).length;
        await close();

        const again = await restart.start(dataDir, env);
        try {
          const { db: reopened, close: closeAgain } = await openSqliteDatabase({ path: path.join(dataDir, 'hangar.db') });
          try {
            const deadline = Date.now() + 5_000;
            const count = async () => (await reopened.selectFrom('sessions').select('id').where('id', '=', revoked[0].id).execute()).length;
            while ((await count()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
            expect(await count(), 'the old session is purged').to.equal(0);
            expect((await reopened.selectFrom('sessions').select('id').execute()).length, 'every other session is kept').to.equal(all - 1);
          } finally {
            await closeAgain();
          }
          expectError(await call(again.api, '/auth/refresh', { method: 'POST', json: { refresh_token: gone.refreshToken } }), 401, 'INVALID_REFRESH_TOKEN');
          const refreshed = await call(again.api, '/auth/refresh', { method: 'POST', json: { refresh_token: kept.refreshToken } });
          expect(refreshed.status).to.equal(200);
        } finally {
          await again.stop();
        }
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    });
});
