// `node create-database.js <url> <name>`: creates the Postgres database `name` on the server of
// `url` (a libpq URL of a database there) unless it exists. test-database.ts runs it, once per
// mocha worker, to give each worker of a parallel run a database of its own.
import pg from 'pg';
import { postgresConnectionString } from '../../adapters/persistence/postgres/postgres-database.js';

const [url, name] = process.argv.slice(2);
if (!url || !name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: create-database.js <postgres url> <name: lower-case letters, digits, _>');
  process.exit(2);
}
const client = new pg.Client({ connectionString: postgresConnectionString(url), connectionTimeoutMillis: 10_000 });
await client.connect();
try {
  const existing = await client.query('select 1 from pg_database where datname = $1', [name]);
  if (existing.rowCount === 0) {
    try {
      await client.query(`create database ${name}`);
    } catch (error) {
      // 42P04 duplicate_database: another process created it at the same instant.
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
  }
} finally {
  await client.end();
}
