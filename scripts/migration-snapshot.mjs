// Writes adapters/persistence/migrations/snapshot.ts: the schema that the migrations up to the
// last one give a fresh database, as DDL per dialect, so a fresh database is created in one step
// (docs/migrations.md, "The snapshot"). Run from the repository root after `npm run -s build`:
//   TEST_DATABASE_URL=postgres://… node scripts/migration-snapshot.mjs
// It migrates an in-memory SQLite database and a scratch Postgres schema (`hangar_snapshot`, dropped
// again) through the history alone, then reads back SQLite's `sqlite_master` and Postgres's
// `pg_dump --schema-only` of that schema. Needs `pg_dump` on the PATH.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';

const dist = new URL('../dist/', import.meta.url);
const { MIGRATION_NAMES, migrateToLatest } = await import(new URL('adapters/persistence/sql/migrate.js', dist).href);
const { postgresConnectionString } = await import(new URL('adapters/persistence/postgres/postgres-database.js', dist).href);
const url = process.env.TEST_DATABASE_URL;
if (!url) throw new Error('TEST_DATABASE_URL must name a Postgres database the script may create a scratch schema in.');
const through = MIGRATION_NAMES.at(-1);

// SQLite: every object's CREATE statement as stored, tables (and the FTS5 virtual table, whose
// shadow tables it creates itself) first, then indexes, then triggers, each in creation order.
const database = new BetterSqlite3(':memory:');
database.pragma('foreign_keys = ON');
const lite = new Kysely({ dialect: new SqliteDialect({ database }) });
await migrateToLatest(lite, undefined, { snapshot: false });
const { rows: objects } = await sql`select type, name, sql from sqlite_master where sql is not null order by rowid`.execute(lite);
const virtual = objects.filter((o) => /^create virtual table/i.test(o.sql)).map((o) => o.name);
const shadow = (name) => virtual.some((v) => new RegExp(`^${v}_(data|idx|content|docsize|config)$`).test(name));
const kept = objects.filter((o) => !o.name.startsWith('kysely_') && !o.name.startsWith('sqlite_') && !shadow(o.name));
const sqliteStatements = ['table', 'index', 'trigger'].flatMap((type) => kept.filter((o) => o.type === type).map((o) => o.sql));
await lite.destroy();

// Postgres: pg_dump of a scratch schema migrated through the history, without the schema's name,
// the session settings and Kysely's own tables; the trigram index is left to the snapshot's code,
// since whether it exists (and in which form) depends on the extensions the server offers.
const SCHEMA = 'hangar_snapshot';
const admin = new pg.Client({ connectionString: postgresConnectionString(url) });
await admin.connect();
await admin.query(`drop schema if exists ${SCHEMA} cascade`);
await admin.query(`create schema ${SCHEMA}`);
const pgdb = new Kysely({
  dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: postgresConnectionString(url, { schema: SCHEMA }), max: 1 }) }),
});
await migrateToLatest(pgdb, undefined, { migrationTableSchema: SCHEMA, snapshot: false });
await pgdb.destroy();
const dump = execFileSync(
  'pg_dump',
  [
    '--schema-only',
    '--no-owner',
    '--no-privileges',
    '--no-comments',
    '--no-publications',
    '--no-security-labels',
    '--no-tablespaces',
    '--no-table-access-method',
    `--schema=${SCHEMA}`,
    '--exclude-table',
    `${SCHEMA}.kysely_migration*`,
    url.replace(/\?.*$/, ''),
  ],
  { encoding: 'utf8' },
);
await admin.query(`drop schema ${SCHEMA} cascade`);
await admin.end();
const postgresStatements = splitStatements(dump)
  .filter((s) => !/^(SET|SELECT pg_catalog\.set_config|CREATE SCHEMA)\b/.test(s))
  .filter((s) => !/\bfiles_search_text_trgm\b/.test(s))
  .map((s) => s.split(`${SCHEMA}.`).join(''));
for (const s of postgresStatements) if (s.includes(SCHEMA)) throw new Error(`the schema's name is left in: ${s}`);

/** pg_dump's script as statements: split at `;` ending a line outside dollar quotes, comments and blank lines dropped. */
function splitStatements(script) {
  const statements = [];
  let current = [];
  let dollar = false;
  for (const line of script.split('\n')) {
    // Comments, blank lines and psql's meta-commands (\restrict, \unrestrict) are not SQL.
    if (!dollar && (line.startsWith('--') || line.startsWith('\\') || line.trim() === '')) continue;
    current.push(line);
    dollar = (line.match(/\$\$/g)?.length ?? 0) % 2 === 1 ? !dollar : dollar;
    if (!dollar && line.endsWith(';')) {
      statements.push(current.join('\n').replace(/;$/, ''));
      current = [];
    }
  }
  return statements;
}

// A template literal where the text allows it (readable SQL, verbatim), else a JSON string.
const literal = (s) => (/[`\\]|\$\{/.test(s) ? `  ${JSON.stringify(s)}` : `  \`${s}\``);
const text = `import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * The schema that migrations 0001 to {@link SNAPSHOT_THROUGH} give a fresh database, in one step:
 * a fresh database runs this instead of those migrations, which Kysely then records as applied
 * (sql/migrate.ts); a database that has run any migration gets the history. Written by
 * scripts/migration-snapshot.mjs from a database migrated through the history (SQLite's
 * sqlite_master, Postgres's pg_dump); test/contracts/migration-files.test.ts checks that both
 * paths give the same schema. Like a migration it imports nothing from the application; it is
 * rewritten only by that script, to move it forward to a later migration (docs/migrations.md).
 */
export const SNAPSHOT_THROUGH = ${JSON.stringify(through)};

/** Every table, index and trigger, as SQLite stores their CREATE statements. */
export async function sqlite(db: Kysely<any>): Promise<void> {
  for (const statement of SQLITE) await sql.raw(statement).execute(db);
}

/**
 * Every table, sequence, function, constraint, index and trigger, then the trigram index of \`q\`
 * (\`files_search_text_trgm\`, a GIN index on \`search_text\`) where pg_trgm is installed or can be
 * created in the current schema, as migration 0042 leaves it; without pg_trgm, no such index.
 */
export async function postgres(db: Kysely<any>): Promise<void> {
  // One round trip: a query without parameters goes as Postgres's simple query, which may hold many statements.
  await sql.raw(POSTGRES.join(';\\n')).execute(db);
  const schema = await trigramSchema(db);
  if (schema === undefined) return;
  // The operator class is qualified: the extension may live in a schema outside the search_path.
  await sql\`create index files_search_text_trgm on files using gin (search_text \${sql.id(schema)}.gin_trgm_ops)\`.execute(db);
}

/**
 * The schema that holds pg_trgm, created in the current schema first when it is not installed
 * (undone to a savepoint when that fails, inside the migration's transaction); undefined when it cannot be had.
 */
async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  const installed = async () =>
    (await sql<{ schema: string }>\`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'\`.execute(db)).rows[0]?.schema;
  const found = await installed();
  if (found !== undefined) return found;
  await sql\`savepoint create_pg_trgm\`.execute(db);
  try {
    await sql\`create extension if not exists pg_trgm\`.execute(db);
    await sql\`release savepoint create_pg_trgm\`.execute(db);
  } catch {
    await sql\`rollback to savepoint create_pg_trgm\`.execute(db);
    return undefined;
  }
  return installed();
}

const SQLITE: readonly string[] = [
${sqliteStatements.map(literal).join(',\n')},
];

const POSTGRES: readonly string[] = [
${postgresStatements.map(literal).join(',\n')},
];
`;
writeFileSync(new URL('../adapters/persistence/migrations/snapshot.ts', import.meta.url), text);
console.log(`snapshot through ${through}: ${sqliteStatements.length} SQLite and ${postgresStatements.length} Postgres statements`);
