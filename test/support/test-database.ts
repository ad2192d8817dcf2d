// Where tests find a database: SQLite files of their own, and Postgres when TEST_DATABASE_URL names one.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { postgresConnectionString } from '../../adapters/persistence/postgres/postgres-database.js';
import { redactPostgresUrl } from '../../adapters/persistence/postgres/postgres-url.js';

/** The one line a run prints when it leaves Postgres out. */
export const POSTGRES_SKIPPED_LINE = 'Postgres: TEST_DATABASE_URL not set, Postgres runs skipped';

let announced = false;
let resolved: { url: string | undefined } | undefined;

/**
 * TEST_DATABASE_URL (a libpq URL of a database the tests may create schemas in), or undefined.
 * In a worker of a parallel mocha run (MOCHA_WORKER_ID set) it is instead a database of that
 * worker's own on the same server, `<database>_w<id>` (`_pg_w<id>` in the Postgres pass), created on first use, so that workers never
 * share a database (its LISTEN channels, migration lock and connection limit). The first call of a
 * process prints one line saying which it is, so a run without Postgres says so once instead of
 * hiding it among skipped tests.
 */
export function testDatabaseUrl(): string | undefined {
  if (resolved === undefined) {
    const url = process.env.TEST_DATABASE_URL?.trim() || undefined;
    const worker = process.env.MOCHA_WORKER_ID;
    resolved = { url: url !== undefined && worker !== undefined && /^\d+$/.test(worker) ? workerDatabase(url, Number(worker)) : url };
  }
  const url = resolved.url;
  if (!announced) {
    announced = true;
    process.stdout.write(url === undefined ? `${POSTGRES_SKIPPED_LINE}\n` : `Postgres: test schemas in ${redactPostgresUrl(url)}\n`);
  }
  return url;
}

/**
 * `url` with its database `<name>` replaced by `<name>_w<worker>` (`<name>_pg_w<worker>` in the
 * Postgres HTTP pass, which `npm test` runs at the same time as the SQLite pass: scripts/test-passes.mjs),
 * created when missing.
 */
function workerDatabase(url: string, worker: number): string {
  const parsed = new URL(url);
  const base = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || decodeURIComponent(parsed.username) || 'postgres';
  const pass = httpTestDatabase() === 'postgres' ? '_pg' : '';
  const name = `${base.toLowerCase().replace(/[^a-z0-9_]/g, '_')}${pass}_w${worker}`;
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'create-database.js');
  execFileSync(process.execPath, [script, url, name], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 30_000 });
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * Which database the HTTP tests run on: `HANGAR_TEST_DB=postgres` selects Postgres (at
 * TEST_DATABASE_URL, a fresh schema per server), anything else SQLite (a file in the server's DATA_DIR).
 */
export function httpTestDatabase(): 'sqlite' | 'postgres' {
  return process.env.HANGAR_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

/** A schema of its own in the test database, and the URL that puts it on the search_path. */
export interface TestSchema {
  schema: string;
  /** TEST_DATABASE_URL with `options=-c search_path=<schema>`: what DATABASE_URL is set to. */
  url: string;
  /** Drops the schema with everything in it. */
  drop: () => Promise<void>;
}

let extensionsInstalled = false;

/**
 * One pool per database URL for the schemas' create and drop: a Postgres connection costs the
 * server a backend process start (about 27 ms of its CPU on the 2-core machine), and every server a
 * test starts on Postgres creates one schema and drops it. A connection idle for 2 s is closed, and
 * idle ones never keep the process alive (`allowExitOnIdle`).
 */
const adminPools = new Map<string, pg.Pool>();

/** Runs `statements` in turn on one connection of the admin pool of `url`. */
async function run(url: string, ...statements: string[]): Promise<void> {
  let pool = adminPools.get(url);
  if (pool === undefined) {
    pool = new pg.Pool({
      connectionString: postgresConnectionString(url),
      connectionTimeoutMillis: 10_000,
      max: 2,
      idleTimeoutMillis: 2_000,
      allowExitOnIdle: true,
    });
    // A connection that breaks while idle (the server restarted) is dropped by the pool; nothing to report.
    pool.on('error', () => {});
    adminPools.set(url, pool);
  }
  const client = await pool.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    client.release();
  }
}

/**
 * Creates an empty schema `hangar_test_<random>` in the database at `url` (migrations run when a
 * server or repository opens it). The extensions the migrations use (pg_trgm, btree_gin) are
 * installed into `public` first, once: were one created by a migration inside a test schema,
 * dropping that schema would drop the extension, and with it the search index of every other
 * schema using it.
 */
export async function createTestSchema(url: string): Promise<TestSchema> {
  if (!extensionsInstalled) {
    for (const extension of ['pg_trgm', 'btree_gin']) {
      try {
        await run(url, `create extension if not exists ${extension} with schema public`);
      } catch {
        // Not available, or another run created it at the same instant: migrations cope either way.
      }
    }
    extensionsInstalled = true;
  }
  // Before this process's first schema there: the leftovers of earlier runs.
  if (!dropsSinceVacuum.has(url)) await vacuumCatalogs(url);
  const schema = `hangar_test_${randomBytes(6).toString('hex')}`;
  await run(url, `create schema ${schema}`);
  return {
    schema,
    url: postgresConnectionString(url, { schema }),
    drop: async () => {
      await run(url, `drop schema if exists ${schema} cascade`);
      const dropped = (dropsSinceVacuum.get(url) ?? 0) + 1;
      dropsSinceVacuum.set(url, dropped);
      if (dropped >= DROPS_PER_CATALOG_VACUUM) await vacuumCatalogs(url);
    },
  };
}

/**
 * The system catalogs a test schema's create, migration and drop leave dead rows in (a migrated
 * schema: about 950 rows of `pg_attribute`, 600 of `pg_depend`, 200 of `pg_class`, 100 of
 * `pg_trigger`). Postgres's autovacuum clears them where it runs; where it is off (the CI machine's
 * server has `autovacuum = off`) they pile up across runs, and every later schema pays for walking
 * them: on the 2-CPU machine, create + migrate + drop took 450 ms of Postgres's CPU in a worker
 * database after two runs (115,000 dead `pg_attribute` rows) against 230–260 ms in a fresh one or
 * after a `VACUUM` of these tables (0.5 s).
 */
const DIRTIED_CATALOGS = ['pg_attribute', 'pg_depend', 'pg_class', 'pg_index', 'pg_trigger', 'pg_type', 'pg_constraint', 'pg_attrdef'];
/** Schemas dropped in a database between two `VACUUM`s of its catalogs (each then takes about 0.1 s). */
const DROPS_PER_CATALOG_VACUUM = 20;
/** Schemas dropped per database URL since this process last vacuumed its catalogs; no entry: not vacuumed yet. */
const dropsSinceVacuum = new Map<string, number>();

/**
 * `VACUUM`s {@link DIRTIED_CATALOGS} in the database at `url`. Best effort: a user who may not
 * vacuum them (neither superuser nor owner) gets Postgres's warning and the tests go on as before.
 */
async function vacuumCatalogs(url: string): Promise<void> {
  // Set before the first await, so that a create or drop meanwhile does not vacuum again.
  dropsSinceVacuum.set(url, 0);
  try {
    await run(url, `vacuum ${DIRTIED_CATALOGS.map((table) => `pg_catalog.${table}`).join(', ')}`);
  } catch {
    // Not allowed, or the server went away: the next create or drop reports what matters.
  }
}

/** A database for one server (or several sharing it), as the variables that select it, and how to remove it. */
export interface ServerDatabase {
  /** `DATABASE_URL` for the server's environment. */
  env: { DATABASE_URL: string };
  /** Removes the database: drops the Postgres schema; nothing for SQLite (its file lives in a directory the caller removes). */
  drop: () => Promise<void>;
  /**
   * Runs one SQL statement on the database, on a connection of its own, as a test reaching behind
   * the servers' backs (waits up to 5 s for SQLite's write lock); resolves with the number of rows
   * it changed. Parameters are written `?` on both databases (made `$1`, `$2`… for Postgres), so
   * the statement must hold no other `?`.
   */
  execute: (statement: string, parameters?: unknown[]) => Promise<number>;
}

/**
 * A fresh database of the kind {@link httpTestDatabase} selects: a new Postgres schema, or a SQLite
 * file `hangar.db` under `dir`.
 * @throws Error when Postgres is selected and TEST_DATABASE_URL is not set
 */
export async function freshServerDatabase(dir: string): Promise<ServerDatabase> {
  if (httpTestDatabase() === 'sqlite') {
    const file = path.join(dir, 'hangar.db');
    const execute = async (statement: string, parameters: unknown[] = []) => {
      const database = new BetterSqlite3(file, { fileMustExist: true, timeout: 5_000 });
      try {
        return database.prepare(statement).run(...parameters).changes;
      } finally {
        database.close();
      }
    };
    return { env: { DATABASE_URL: `sqlite:${file}` }, drop: async () => {}, execute };
  }
  const url = testDatabaseUrl();
  if (url === undefined) throw new Error('HANGAR_TEST_DB=postgres needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test).');
  return postgresServerDatabase(url);
}

/** A fresh Postgres schema in the database at `url` (TEST_DATABASE_URL), as a {@link ServerDatabase}, whatever {@link httpTestDatabase} selects. */
export async function postgresServerDatabase(url: string): Promise<ServerDatabase> {
  const schema = await createTestSchema(url);
  const execute = async (statement: string, parameters: unknown[] = []) => {
    const client = new pg.Client({ connectionString: schema.url, connectionTimeoutMillis: 10_000 });
    await client.connect();
    let n = 0;
    try {
      return (
        (
          await client.query(
            statement.replace(/\?/g, () => `$${++n}`),
            parameters,
          )
        ).rowCount ?? 0
      );
    } finally {
      await client.end();
    }
  };
  return { env: { DATABASE_URL: schema.url }, drop: schema.drop, execute };
}
