// Loaded first by the run of the HTTP suite on Postgres (.mocharc.postgres.json, `npm test`'s second
// mocha run): says where Postgres is, or, when TEST_DATABASE_URL is not set, says that in one line
// and ends the run with success, since there is nothing for it to do.
import { httpTestDatabase, testDatabaseUrl } from './test-database.js';

if (httpTestDatabase() === 'postgres' && testDatabaseUrl() === undefined) process.exit(0);
