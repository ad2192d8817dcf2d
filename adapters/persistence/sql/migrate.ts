/* eslint-disable @typescript-eslint/no-explicit-any -- Kysely's Migration interface takes Kysely<any>: a migration runs against the schema as it was then, not the current HangarDatabase */
import { type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator, sql } from 'kysely';
import { MIGRATIONS, type MigrationEntry } from '../migrations/index.js';
import { isPostgres } from './dialect.js';
import type { HangarDatabase } from './schema.js';

/**
 * Hands Kysely's {@link Migrator} the frozen migration files listed in
 * `adapters/persistence/migrations/index.ts` (docs/migrations.md). Each migration's module is
 * loaded only when the migration runs, and its `postgres` or `sqlite` function is called by the
 * dialect of the database it runs on.
 */
export class FrozenMigrationProvider implements MigrationProvider {
  /** @param entries the migrations offered, by name (default: all of them) */
  constructor(private readonly entries: readonly MigrationEntry[] = MIGRATIONS) {}

  /** @returns each migration by name; its `up` loads the file and runs the function of the database's dialect */
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

/**
 * The migrations for a database that has run none: the first of them creates the schema of the
 * snapshot (`adapters/persistence/migrations/snapshot.ts`, loaded only then) in one step, the others
 * up to the snapshot's last do nothing, and Kysely records them all as applied, as the history would
 * have left them; the migrations after the snapshot run as usual. Issue #59: a fresh database is
 * created at the current schema in one step instead of 41.
 */
export class SnapshotFirstMigrationProvider implements MigrationProvider {
  /**
   * @returns every migration by name, those up to the snapshot's last replaced as described above
   * @throws Error when the snapshot's last migration is not in the index (a snapshot file out of step with the list)
   */
  async getMigrations(): Promise<Record<string, Migration>> {
    const snapshot = await import('../migrations/snapshot.js');
    const migrations = await new FrozenMigrationProvider().getMigrations();
    const covered = MIGRATIONS.map(([name]) => name).filter((name) => name <= snapshot.SNAPSHOT_THROUGH);
    if (covered.at(-1) !== snapshot.SNAPSHOT_THROUGH) throw new Error(`The schema snapshot ends at ${snapshot.SNAPSHOT_THROUGH}, which is not a migration.`);
    for (const [i, name] of covered.entries()) {
      migrations[name] = {
        async up(db: Kysely<any>): Promise<void> {
          if (i === 0) await (isPostgres(db) ? snapshot.postgres(db) : snapshot.sqlite(db));
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
  /**
   * {@link migrateToLatest} with its default migrations: whether a database that has run no
   * migration is created from the schema snapshot ({@link SnapshotFirstMigrationProvider}; default
   * true) or through every migration of the history (false; the snapshot's script and test).
   */
  snapshot?: boolean;
}

/**
 * Brings the schema up to the latest migration, running those not yet recorded in Kysely's
 * `kysely_migration` table, in name order (on Postgres in one transaction; the caller holds the
 * migration lock, openPostgresDatabase; on SQLite inside the caller's transaction, openSqliteDatabase).
 * A database that has run no migration yet is created from the schema snapshot in one step
 * (unless `options.snapshot` is false), and the migrations it stands for are recorded as run.
 * @param provider the migrations (default: every frozen file, {@link FrozenMigrationProvider},
 *        or {@link SnapshotFirstMigrationProvider} for a database that has run none)
 * @returns the names of the migrations run now (empty when already up to date)
 * @throws Error `Database migration <name> failed: …` (the driver's error as `cause`) when a migration
 *         fails, or `Database migrations could not run: …` when the recorded history does not match
 *         these migrations (e.g. a database written by a newer release)
 */
export async function migrateToLatest(db: Kysely<HangarDatabase>, provider?: MigrationProvider, options: MigrateOptions = {}): Promise<string[]> {
  const chosen =
    provider ?? (options.snapshot !== false && !(await anyMigrationRun(db, options)) ? new SnapshotFirstMigrationProvider() : new FrozenMigrationProvider());
  return outcome(await migrator(db, chosen, options).migrateToLatest());
}

/** Whether Kysely's `kysely_migration` table exists (in `options.migrationTableSchema` when given) and records a migration. */
async function anyMigrationRun(db: Kysely<HangarDatabase>, options: MigrateOptions): Promise<boolean> {
  const name = options.migrationTableSchema === undefined ? 'kysely_migration' : `${options.migrationTableSchema}.kysely_migration`;
  const { rows } = isPostgres(db)
    ? await sql<{ present: boolean }>`select to_regclass(${sql.lit(
        name
          .split('.')
          .map((part) => `"${part.replace(/"/g, '""')}"`)
          .join('.'),
      )}) is not null as present`.execute(db)
    : await sql<{ present: number }>`select count(*) as present from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(db);
  if (!rows[0]?.present || Number(rows[0].present) === 0) return false;
  const { rows: recorded } = await sql<{ name: string }>`select name from ${sql.table(name)} limit 1`.execute(db);
  return recorded.length > 0;
}

/**
 * Brings the schema to migration `name` exactly (Kysely's `Migrator.migrateTo`): runs the
 * migrations up to it that are not recorded yet, through the history (never the snapshot). A database at a later migration is refused
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
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a thrown non-Error (a string, most often) is shown as String() gives it
    const reason = error instanceof Error ? error.message : String(error);
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(failed ? `Database migration ${failed.migrationName} failed: ${reason}` : `Database migrations could not run: ${reason}`, { cause: error });
  }
  const down = results?.find((result) => result.direction === 'Down');
  if (down !== undefined) throw new Error(`Database migrations could not run: migration ${down.migrationName} would have to be undone.`);
  return (results ?? []).map((result) => result.migrationName);
}
