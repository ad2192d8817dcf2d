// The migration files themselves: listed exactly once in order, frozen (nothing imported from the
// application), and giving a fresh database the schema the in-code migrations of bec26c8 gave it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { MIGRATIONS } from '../../adapters/persistence/migrations/index.js';
import { MIGRATION_NAMES, migrateTo, migrateToLatest } from '../../adapters/persistence/sql/migrate.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { dumpPostgresSchema, dumpSqliteSchema } from '../support/schema-dump.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';

/** The repository's root, from dist/test/contracts/. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FOLDER = path.join(ROOT, 'adapters/persistence/migrations');
const FIXTURES = path.join(ROOT, 'test/fixtures');
/** The last migration of bec26c8, whose schema the fixtures hold (dumped with that commit's migrations.ts). */
const LAST_OF_BEC26C8 = '0041_postgres_size_covering_index';

/** Files of the folder that are not migrations: the list, and the schema snapshot of fresh databases. */
const NOT_MIGRATIONS = ['index.ts', 'snapshot.ts'];

/** The migration files of the folder (`NNNN_name.ts`), by name. */
function migrationFiles(): string[] {
  return readdirSync(FOLDER)
    .filter((file) => !NOT_MIGRATIONS.includes(file))
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();
}

describe('migration files (adapters/persistence/migrations)', () => {
  it('lists every file of the folder in the index exactly once, in name order, and nothing else', () => {
    const listed = MIGRATIONS.map(([name]) => name);
    expect(listed, 'the index lists each migration once, in the order of their names').to.deep.equal([...new Set(listed)].sort());
    expect(listed, 'a file missing from the index, or an entry without its file').to.deep.equal(migrationFiles());
  });

  it('names every file NNNN_snake_case.ts and keeps the released names (kysely_migration holds them)', () => {
    for (const name of migrationFiles()) expect(name).to.match(/^\d{4}_[a-z0-9]+(_[a-z0-9]+)*$/);
    // Numbers never released stay unused, so no name recorded by an earlier release changes.
    const released = MIGRATIONS.map(([name]) => name).filter((name) => name <= LAST_OF_BEC26C8);
    expect(released.map((name) => name.slice(0, 4))).to.deep.equal([
      '0001',
      '0002',
      '0003',
      '0004',
      '0005',
      '0006',
      '0007',
      '0008',
      '0009',
      '0010',
      '0011',
      '0012',
      '0013',
      '0014',
      '0016',
      '0017',
      '0018',
      '0019',
      '0021',
      '0022',
      '0023',
      '0024',
      '0025',
      '0029',
      '0030',
      '0031',
      '0032',
      '0033',
      '0034',
      '0035',
      '0036',
      '0037',
      '0038',
      '0039',
      '0040',
      '0041',
    ]);
  });

  it('imports nothing but kysely and Node built-ins in any file (the snapshot too), so no change to the application changes a migration', () => {
    for (const name of [...migrationFiles(), 'snapshot']) {
      const source = readFileSync(path.join(FOLDER, `${name}.ts`), 'utf8');
      const imported = [...source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm)].map((match) => match[1]);
      for (const specifier of imported) expect(specifier, `${name} imports ${specifier}`).to.match(/^(kysely|node:[a-z_/]+)$/);
    }
  });

  it('exports sqlite(db) and postgres(db) from every file', async () => {
    for (const [name, load] of MIGRATIONS) {
      const migration = await load();
      expect(typeof migration.sqlite, name).to.equal('function');
      expect(typeof migration.postgres, name).to.equal('function');
    }
  });

  it(`gives a fresh SQLite database, at ${LAST_OF_BEC26C8}, exactly the schema bec26c8's migrations gave it`, async () => {
    const database = new BetterSqlite3(':memory:');
    database.pragma('foreign_keys = ON');
    const db = new Kysely<HangarDatabase>({ dialect: new SqliteDialect({ database }) });
    try {
      await migrateTo(db, LAST_OF_BEC26C8);
      expect((await dumpSqliteSchema(db)).join('\n') + '\n').to.equal(readFileSync(path.join(FIXTURES, 'schema-0041.sqlite.txt'), 'utf8'));
    } finally {
      await db.destroy();
    }
  });

  it('creates a fresh SQLite database from the snapshot with the same schema and the same recorded migrations as the history gives', async () => {
    const dumps: string[][] = [];
    for (const snapshot of [true, false]) {
      const database = new BetterSqlite3(':memory:');
      database.pragma('foreign_keys = ON');
      const db = new Kysely<HangarDatabase>({ dialect: new SqliteDialect({ database }) });
      try {
        expect(await migrateToLatest(db, undefined, { snapshot })).to.deep.equal([...MIGRATION_NAMES]);
        expect(
          (
            await db
              .selectFrom('kysely_migration' as any)
              .select('name')
              .orderBy('name')
              .execute()
          ).map((row: any) => row.name),
        ).to.deep.equal([...MIGRATION_NAMES]);
        dumps.push(await dumpSqliteSchema(db));
      } finally {
        await db.destroy();
      }
    }
    expect(dumps[0]).to.deep.equal(dumps[1]);
  });

  // Registered only where a Postgres database is configured (testDatabaseUrl prints the one line saying so otherwise).
  const postgresUrl = testDatabaseUrl();
  if (postgresUrl !== undefined)
    it('creates a fresh Postgres schema from the snapshot with the same schema and the same recorded migrations as the history gives', async function () {
      this.timeout(30_000);
      const dumps: string[][] = [];
      for (const snapshot of [true, false]) {
        const schema = await createTestSchema(postgresUrl);
        const db = new Kysely<HangarDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 1 }) }) });
        try {
          expect(await migrateToLatest(db, undefined, { migrationTableSchema: schema.schema, snapshot })).to.deep.equal([...MIGRATION_NAMES]);
          expect(
            (
              await db
                .selectFrom('kysely_migration' as any)
                .select('name')
                .orderBy('name')
                .execute()
            ).map((row: any) => row.name),
          ).to.deep.equal([...MIGRATION_NAMES]);
          dumps.push(await dumpPostgresSchema(db));
        } finally {
          await db.destroy();
          await schema.drop();
        }
      }
      expect(dumps[0]).to.deep.equal(dumps[1]);
    });

  if (postgresUrl !== undefined)
    it(`gives a fresh Postgres schema, at ${LAST_OF_BEC26C8}, exactly the schema bec26c8's migrations gave it`, async function () {
      this.timeout(30_000);
      const schema = await createTestSchema(postgresUrl);
      const db = new Kysely<HangarDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 1 }) }) });
      try {
        await migrateTo(db, LAST_OF_BEC26C8, { migrationTableSchema: schema.schema });
        expect((await dumpPostgresSchema(db)).join('\n') + '\n').to.equal(readFileSync(path.join(FIXTURES, 'schema-0041.postgres.txt'), 'utf8'));
      } finally {
        await db.destroy();
        await schema.drop();
      }
    });
});
