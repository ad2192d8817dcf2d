import { type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely';
import { MIGRATIONS, type MigrationEntry } from '../migrations/index.js';
import { isPostgres } from './dialect.js';
import type { HangarDatabase } from './schema.js';

// Kysely's Migration interface takes Kysely<any>: a migration runs against the schema as it was
// then, not the current HangarDatabase.
/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Hands Kysely's {@link Migrator} the frozen migration files listed in
 * `adapters/persistence/migrations/index.ts` (docs/migrations.md). Each migration's module is
 * loaded only when the migration runs, and its `postgres` or `sqlite` function is called by the
 * dialect of the database it runs on.
 */
export class FrozenMigrationProvider implements MigrationProvider {
  /** @param entries the migrations offered, by name (default: all of them) */
  constructor(private readonly entries: readonly MigrationEntry[] = MIGRATIONS) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const [name, load] of this.entries) {
      migrations[name] = {
        async up(db: Kysely<any>): Promise<void> {
          const migration = await load();
          await (isPostgres(db) ? migration.postgres(db) : migration.sqlite(db));
        },
      };
    }
    return migrations;
  }
}

/** The name of every migration, in the order they run. */
export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map(([name]) => name);

/** A provider of the migrations up to and including `last` (by name): a database as an earlier release left it (tests, tools). */
export function migrationsUpTo(last: string): FrozenMigrationProvider {
  return new FrozenMigrationProvider(MIGRATIONS.filter(([name]) => name <= last));
}

/** Options of {@link migrateToLatest} and {@link migrateTo}. */
export interface MigrateOptions {
  /**
   * Postgres: the schema of Kysely's `kysely_migration` table, so a database whose other schemas
   * hold a `kysely_migration` table of their own is not confused by it.
   */
  migrationTableSchema?: string;
}

/**
 * Brings the schema up to the latest migration, running those not yet recorded in Kysely's
 * `kysely_migration` table, in name order (on Postgres in one transaction; the caller holds the
 * migration lock, openPostgresDatabase; on SQLite inside the caller's transaction, openSqliteDatabase).
 * @param provider the migrations (default: every frozen file, {@link FrozenMigrationProvider})
 * @returns the names of the migrations run now (empty when already up to date)
 * @throws Error `Database migration <name> failed: …` (the driver's error as `cause`) when a migration
 *         fails, or `Database migrations could not run: …` when the recorded history does not match
 *         these migrations (e.g. a database written by a newer release)
 */
export async function migrateToLatest(
  db: Kysely<HangarDatabase>,
  provider: MigrationProvider = new FrozenMigrationProvider(),
  options: MigrateOptions = {},
): Promise<string[]> {
  return outcome(await migrator(db, provider, options).migrateToLatest());
}

/**
 * Brings the schema to migration `name` exactly (Kysely's `Migrator.migrateTo`): runs the
 * migrations up to it that are not recorded yet. A database at a later migration is refused
 * rather than taken down: these migrations have no `down`.
 * @returns the names of the migrations run now
 * @throws Error as {@link migrateToLatest}, also when `name` is not a migration
 */
export async function migrateTo(db: Kysely<HangarDatabase>, name: string, options: MigrateOptions = {}): Promise<string[]> {
  return outcome(await migrator(db, new FrozenMigrationProvider(), options).migrateTo(name));
}

function migrator(db: Kysely<HangarDatabase>, provider: MigrationProvider, options: MigrateOptions): Migrator {
  // Names compared by code unit, the order `Object.keys(…).sort()` gives the pending ones, instead
  // of Kysely's default `localeCompare`, whose first call initialises ICU's collator at every start.
  const nameComparator = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return new Migrator({ db, provider, migrationTableSchema: options.migrationTableSchema, nameComparator });
}

/** The names run, or the error described as {@link migrateToLatest} says. */
function outcome({ error, results }: MigrationResultSet): string[] {
  if (error !== undefined) {
    const reason = error instanceof Error ? error.message : String(error);
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(
      failed ? `Database migration ${failed.migrationName} failed: ${reason}` : `Database migrations could not run: ${reason}`,
      { cause: error },
    );
  }
  const down = results?.find((result) => result.direction === 'Down');
  if (down !== undefined) throw new Error(`Database migrations could not run: migration ${down.migrationName} would have to be undone.`);
  return (results ?? []).map((result) => result.migrationName);
}
