import { testDatabaseUrl } from '../support/test-database.js';
import { describeAdminConsoleContract } from './admin-console.contract.js';
import { onPostgres, onSqlite, openMemory } from './persistence-fixtures.js';

const postgres = testDatabaseUrl();

describeAdminConsoleContract('memory', openMemory);
onSqlite((open) => describeAdminConsoleContract('SQLite', open));
if (postgres !== undefined) onPostgres(postgres, (open) => describeAdminConsoleContract('Postgres', open));
