import { describeOidcRepositoriesContract } from './oidc-repositories.contract.js';
import { openInMemorySqlite, openMemory, onPostgres } from './persistence-fixtures.js';
import { testDatabaseUrl } from '../support/test-database.js';

const postgres = testDatabaseUrl();

describeOidcRepositoriesContract('memory', async () => {
  const { oidcIdentities, oidcFlows, users, close } = await openMemory();
  return { identities: oidcIdentities, flows: oidcFlows, users, close };
});

describeOidcRepositoriesContract('SQLite (:memory:)', async () => {
  const { oidcIdentities, oidcFlows, users, close } = await openInMemorySqlite();
  return { identities: oidcIdentities, flows: oidcFlows, users, close };
});

if (postgres !== undefined) {
  onPostgres(postgres, (open) =>
    describeOidcRepositoriesContract('Postgres', async () => {
      const { oidcIdentities, oidcFlows, users, close } = await open();
      return { identities: oidcIdentities, flows: oidcFlows, users, close };
    }),
  );
}
