import { type Kysely, type Migration, type MigrationProvider, Migrator, type RawBuilder, sql } from 'kysely';
import { isPostgres } from './dialect.js';
import { countFileGrams, countGramDays, FILE_GRAM_SCHEMA, FILE_GRAM_TYPES_SCHEMA } from '../postgres/file-gram-counts.js';
import { FILE_SEARCH_PENDING_SCHEMA, FILE_SEARCH_SCHEMA, rebuildFileSearch } from './sqlite-file-search.js';
import type { HangarDatabase } from './schema.js';
import * as m0045 from '../migrations/0045_admin_console.js';

// Kysely's Migration interface takes Kysely<any>: a migration runs against the schema as it was
// then, not the current HangarDatabase, so it must not be typed by it.
/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * 0001: every table of the first release. Types are chosen to mean the same on SQLite and
 * Postgres: `text`, `bigint` (SQLite gives it INTEGER affinity) for Unix-ms timestamps and byte
 * counts, `integer` 0/1 for booleans.
 */
const initial: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('email_confirmed_at', 'bigint')
      .addColumn('max_upload_size_bytes', 'bigint')
      .addColumn('last_email_sent_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('users_email_unique').unique().on('users').column('email').execute();

    await db.schema
      .createTable('one_time_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('email_confirmation', 'password_reset')`))
      .addColumn('token_hash', 'text', (c) => c.notNull())
      .addColumn('redirect_to', 'text')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('one_time_tokens_token_hash_unique').unique().on('one_time_tokens').column('token_hash').execute();
    await db.schema.createIndex('one_time_tokens_user_id_purpose').on('one_time_tokens').columns(['user_id', 'purpose']).execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey().notNull())
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('rotated_at', 'bigint')
      .execute();
    await db.schema.createIndex('refresh_tokens_session_id').on('refresh_tokens').column('session_id').execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('key_prefix', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .execute();
    await db.schema.createIndex('api_keys_key_hash_unique').unique().on('api_keys').column('key_hash').execute();
    await db.schema.createIndex('api_keys_user_id_created_at_id').on('api_keys').columns(['user_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('files')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('file_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('is_public', 'integer', (c) => c.notNull().check(sql`is_public in (0, 1)`))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('blob_key', 'text', (c) => c.notNull())
      .addColumn('search_text', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('files_file_id_unique').unique().on('files').column('file_id').execute();
    await db.schema.createIndex('files_user_id_created_at_id').on('files').columns(['user_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('files_user_id_content_type').on('files').columns(['user_id', 'content_type']).execute();
    await db.schema.createIndex('files_user_id_size').on('files').columns(['user_id', 'size']).execute();
  },
};

/**
 * 0002: account rules (plans, trial, quotas, usage, activity logs). Accounts that exist already
 * get plan '' (the default plan: an unknown name falls back to it) and no trial end, and their
 * files are counted into `account_totals`, so quotas hold from the first upload after the upgrade.
 */
const accountRules: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    // One column per statement: SQLite's ALTER TABLE adds one column at a time.
    await db.schema.alterTable('users').addColumn('plan_name', 'text', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable('users').addColumn('trial_ends_at', 'bigint').execute();
    await db.schema.alterTable('users').addColumn('access_until', 'bigint').execute();
    await db.schema.alterTable('users').addColumn('subscription_canceled_at', 'bigint').execute();
    await db.schema.createIndex('users_created_at_id').on('users').columns(['created_at', 'id']).execute();

    await db.schema
      .createTable('account_totals')
      .addColumn('user_id', 'text', (c) => c.primaryKey().notNull().references('users.id').onDelete('cascade'))
      .addColumn('storage_bytes', 'bigint', (c) => c.notNull())
      .addColumn('files_count', 'bigint', (c) => c.notNull())
      .execute();
    await sql`
      insert into account_totals (user_id, storage_bytes, files_count)
      select user_id, sum(size), count(*) from files group by user_id
    `.execute(db);

    await db.schema
      .createTable('usage_periods')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('period_start', 'bigint', (c) => c.notNull())
      .addColumn('origin_reads', 'bigint', (c) => c.notNull())
      .addColumn('image_ops', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_periods_pkey', ['user_id', 'period_start'])
      .execute();

    await db.schema
      .createTable('activity_logs')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer', (c) => c.notNull())
      .addColumn('request_size_bytes', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('metadata', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('activity_logs_user_id_created_at_id').on('activity_logs').columns(['user_id', 'created_at', 'id']).execute();
    // For pruning by age (deleteBefore), across accounts.
    await db.schema.createIndex('activity_logs_created_at').on('activity_logs').column('created_at').execute();
  },
};

/**
 * 0003: what keeps `GET /files` fast on an account with a million files (see
 * bench/postgres-list-files.md), on both dialects unless noted.
 * - `account_totals.public_files_count`: with `files_count`, the exact total of a listing filtered
 *   by visibility alone, without counting rows (backfilled here, then kept by every insert and delete).
 * - `files (user_id, is_public, created_at, id)`: a visibility filter, alone or with others, walks
 *   only matching rows in list order, even when they are rare.
 * - Postgres only: a `pg_trgm` GIN index on `search_text`, which serves the `q` filter's
 *   `LIKE '%…%'` (needles of 3 characters or more). The extension is used where it is installed, or
 *   created in the current schema (`pg_trgm` is a trusted extension: the database owner may
 *   create it). When that fails (not shipped with the server, no privilege) the migration goes on
 *   without the index: `q` still answers correctly, by scanning the account's rows, and
 *   openPostgresDatabase reports the missing index at every start. Installing pg_trgm later and
 *   running `CREATE INDEX files_search_text_trgm ON files USING gin (search_text gin_trgm_ops)`
 *   makes it fast. SQLite has no such index: its `LIKE '%…%'` scans the account's rows.
 */
const listIndexes: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('account_totals').addColumn('public_files_count', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await sql`
      update account_totals set public_files_count = (
        select count(*) from files where files.user_id = account_totals.user_id and files.is_public = 1
      )
    `.execute(db);
    await db.schema.createIndex('files_user_id_is_public_created_at_id').on('files').columns(['user_id', 'is_public', 'created_at', 'id']).execute();
    if (isPostgres(db)) await createTrigramIndex(db);
  },
};

/** The name of the schema holding the pg_trgm extension, or undefined when it is not installed. */
async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'
  `.execute(db);
  return rows[0]?.schema;
}

/** See {@link listIndexes}. Runs inside the migration's transaction. */
async function createTrigramIndex(db: Kysely<any>): Promise<void> {
  if ((await trigramSchema(db)) === undefined && !(await createExtension(db, 'pg_trgm'))) return;
  // The operator class is qualified: the extension may live in a schema outside the search_path.
  await sql`create index files_search_text_trgm on files using gin (search_text ${sql.id((await trigramSchema(db))!)}.gin_trgm_ops)`.execute(db);
}

/**
 * Creates the Postgres extension `name` in the current schema unless it is installed already.
 * Runs inside the migration's transaction, so a failed CREATE EXTENSION (not shipped with the
 * server, no privilege) is undone to a savepoint.
 * @returns whether the extension is installed now
 */
async function createExtension(db: Kysely<any>, name: 'pg_trgm' | 'btree_gin'): Promise<boolean> {
  const savepoint = sql.id(`create_${name}`);
  await sql`savepoint ${savepoint}`.execute(db);
  try {
    await sql`create extension if not exists ${sql.id(name)}`.execute(db);
    await sql`release savepoint ${savepoint}`.execute(db);
    return true;
  } catch {
    await sql`rollback to savepoint ${savepoint}`.execute(db);
    return false;
  }
}

/**
 * 0004: custom domains (spec 2.5, 4.14), one row per account. `hostname` is unique across accounts
 * (`custom_domains_hostname_unique`), so of two accounts racing for one hostname only one row is
 * written. DNS records and provider errors are JSON text, the same on both dialects; timestamps are
 * `bigint` Unix ms as in 0001.
 */
const customDomains: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('custom_domains')
      .addColumn('user_id', 'text', (c) => c.primaryKey().notNull().references('users.id').onDelete('cascade'))
      .addColumn('hostname', 'text', (c) => c.notNull())
      .addColumn('provider_id', 'text', (c) => c.notNull())
      .addColumn('verification_status', 'text', (c) => c.notNull())
      .addColumn('ssl_status', 'text', (c) => c.notNull())
      .addColumn('dns_records', 'text', (c) => c.notNull())
      .addColumn('errors', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('custom_domains_hostname_unique').unique().on('custom_domains').column('hostname').execute();
  },
};

/**
 * 0005: listings of large accounts (bench/README.md, "list").
 * - `account_totals.changes`, a counter raised by every insert and delete of the account's files. A
 *   process keeps the exact totals of filtered listings it counted, each with the counter it was
 *   counted at, and counts again only when the counter has moved (SqlFileRepository): the counter
 *   is read from the database, so several processes never serve a stale total.
 * - SQLite only: `files (user_id, created_at, id, search_text)` replaces `files (user_id,
 *   created_at, id)` (a prefix of it): a `q` search walks it in list order without reading rows.
 *   Postgres has the trigram index for `q` instead (0003).
 */
const listingSpeed: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('account_totals').addColumn('changes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    if (!isPostgres(db)) {
      await db.schema.createIndex('files_user_id_created_at_id_search_text').on('files').columns(['user_id', 'created_at', 'id', 'search_text']).execute();
      await db.schema.dropIndex('files_user_id_created_at_id').execute();
    }
  },
};

/**
 * 0006: `file_histogram`, per account the number of files in each bucket of upload time (UTC `day`
 * and `hour`) and of size (`size`, 32 classes per octave), by visibility; the bucket schemes and why
 * are in file-histogram.ts. SqlFileRepository totals a listing filtered by one range from it
 * (bench/postgres-list-files.md) and keeps it in the transactions that insert and delete files.
 * Primary key `(user_id, dimension, bucket, is_public)`: a range of buckets of one dimension is one
 * index range. Rows go with their account (`on delete cascade`, as `account_totals`); a bucket
 * whose files are all deleted keeps a row with 0. SQLite stores the table `WITHOUT ROWID`, in key order.
 *
 * The backfill computes the buckets of the files already stored in SQL, the same on both dialects
 * (integer arithmetic only, no log functions, which SQLite may lack): the day and hour by floor
 * division, the size class from `e = ⌊log2 size⌋` summed from 62 comparisons. The SQL is written
 * out here, not derived from file-histogram.ts, so that this released migration never changes;
 * test/contracts/sql-migrations.test.ts checks it against the JavaScript.
 */
const fileHistogram: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('file_histogram')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('dimension', 'text', (c) => c.notNull().check(sql`dimension in ('day', 'hour', 'size')`))
      .addColumn('bucket', 'bigint', (c) => c.notNull())
      .addColumn('is_public', 'integer', (c) => c.notNull().check(sql`is_public in (0, 1)`))
      .addColumn('files', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_histogram_pkey', ['user_id', 'dimension', 'bucket', 'is_public'])
      .$call((table) => (isPostgres(db) ? table : table.modifyEnd(sql`without rowid`)))
      .execute();
    for (const { dimension, bucket } of bucketedFiles('user_id, is_public')) {
      await sql`
        insert into file_histogram (user_id, dimension, bucket, is_public, files)
        select user_id, ${sql.lit(dimension)}, bucket, is_public, count(*) from (${bucket}) bucketed group by user_id, bucket, is_public
      `.execute(db);
    }
  },
};

/**
 * For each dimension of `file_histogram`, a query of the stored files' buckets: one row per file
 * with `columns` (SQL, e.g. `user_id, is_public`) and its `bucket` (see fileHistogram for the
 * arithmetic). Used by the backfills of 0006 and 0007; the SQL it produces must never change.
 */
function bucketedFiles(columns: string): Array<{ dimension: 'day' | 'hour' | 'size'; bucket: RawBuilder<unknown> }> {
  const selected = sql.raw(columns);
  const floorDiv = (width: number) => sql`(created_at - (((created_at % ${sql.lit(width)}) + ${sql.lit(width)}) % ${sql.lit(width)})) / ${sql.lit(width)}`;
  const log2 = sql.join(
    Array.from({ length: 62 }, (_, i) => sql`case when size >= ${sql.lit(2n ** BigInt(i + 1))} then 1 else 0 end`),
    sql` + `,
  );
  const sizeClass = sql`case when size < 64 then size else 32 * (e - 5) + (size >> (e - 5)) end`;
  return [
    { dimension: 'day', bucket: sql`select ${selected}, ${floorDiv(86_400_000)} as bucket from files` },
    { dimension: 'hour', bucket: sql`select ${selected}, ${floorDiv(3_600_000)} as bucket from files` },
    { dimension: 'size', bucket: sql`select ${selected}, ${sizeClass} as bucket from (select ${selected}, size, ${log2} as e from files) sized` },
  ];
}

/**
 * 0007: `file_histogram` also by content type. The table is rebuilt with `content_type` in its key,
 * `(user_id, content_type, dimension, bucket, is_public)`: the rows of 0006 are kept as the rows of
 * all types (`content_type` '', ALL_TYPES in file-histogram.ts), and the rows of each content type
 * are backfilled from the stored files with the buckets of 0006. Each upload then adds six rows
 * (its three buckets for all types and for its own type) in one statement, and a listing filtered
 * by `type`, alone or with one range and visibility, is totalled from the rows of that type instead
 * of counted (bench/postgres-list-files.md: `type=image/png&sizeMin=1000000` on 1,000,000 files took
 * 178–277 ms counted). Same rules as 0006: `on delete cascade`, `WITHOUT ROWID` on SQLite.
 */
const fileHistogramByType: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('file_histogram_0007')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('dimension', 'text', (c) => c.notNull().check(sql`dimension in ('day', 'hour', 'size')`))
      .addColumn('bucket', 'bigint', (c) => c.notNull())
      .addColumn('is_public', 'integer', (c) => c.notNull().check(sql`is_public in (0, 1)`))
      .addColumn('files', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_histogram_0007_pkey', ['user_id', 'content_type', 'dimension', 'bucket', 'is_public'])
      .$call((table) => (isPostgres(db) ? table : table.modifyEnd(sql`without rowid`)))
      .execute();
    await sql`
      insert into file_histogram_0007 (user_id, content_type, dimension, bucket, is_public, files)
      select user_id, '', dimension, bucket, is_public, files from file_histogram
    `.execute(db);
    for (const { dimension, bucket } of bucketedFiles('user_id, content_type, is_public')) {
      await sql`
        insert into file_histogram_0007 (user_id, content_type, dimension, bucket, is_public, files)
        select user_id, content_type, ${sql.lit(dimension)}, bucket, is_public, count(*) from (${bucket}) bucketed
        group by user_id, content_type, bucket, is_public
      `.execute(db);
    }
    await db.schema.dropTable('file_histogram').execute();
    await db.schema.alterTable('file_histogram_0007').renameTo('file_histogram').execute();
    if (isPostgres(db)) await sql`alter table file_histogram rename constraint file_histogram_0007_pkey to file_histogram_pkey`.execute(db);
  },
};

/**
 * 0008: `activity_log_totals`, per account the number of its `activity_logs` entries, kept exact by
 * the batch inserts and the pruning (SqlActivityLogRepository), so that the total of `GET /logs` is
 * read, not counted: counting one account's million entries took ~120–140 ms on Postgres
 * (bench/postgres-list-files.md, "The other lists"). Backfilled from the stored entries; rows go
 * with their account (`on delete cascade`).
 */
const activityLogTotals: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('activity_log_totals')
      .addColumn('user_id', 'text', (c) => c.primaryKey().notNull().references('users.id').onDelete('cascade'))
      .addColumn('entries', 'bigint', (c) => c.notNull())
      .execute();
    await sql`insert into activity_log_totals (user_id, entries) select user_id, count(*) from activity_logs group by user_id`.execute(db);
  },
};

/**
 * 0009: indexes for purging spent credentials (PurgeCredentials, run hourly): expired one-time
 * tokens by `expires_at`, revoked sessions by `revoked_at`, rotated refresh tokens by `rotated_at`,
 * so that each purge reads only what it removes instead of scanning tables that grow with every
 * login and token refresh.
 */
const credentialPurgeIndexes: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('one_time_tokens_expires_at').on('one_time_tokens').column('expires_at').execute();
    await db.schema.createIndex('sessions_revoked_at').on('sessions').column('revoked_at').execute();
    await db.schema.createIndex('refresh_tokens_rotated_at').on('refresh_tokens').column('rotated_at').execute();
  },
};

/** The password reset e-mail's own one-per-minute slot, apart from the confirmation e-mail's (`last_email_sent_at`). */
const emailSlotsPerPurpose: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('users').addColumn('last_reset_email_sent_at', 'bigint').execute();
  },
};

/**
 * 0012: `image_variants`, one row per derived image of a file (core/images/image-variant-repository.ts):
 * the claim that lets one process compute a new variant and count it once (`state` 'computing',
 * `claim_token`, `claimed_until` in Unix ms: the lease after which another process may take it
 * over), then the stored variant and its size in bytes (`state` 'stored'), counted in the owner's
 * `account_totals.storage_bytes`. Rows go with their file (`on delete cascade`; the file delete
 * subtracts their bytes first).
 */
const imageVariants: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('image_variants')
      .addColumn('file_record_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('variant', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('computing', 'stored')`))
      .addColumn('claim_token', 'text')
      .addColumn('claimed_until', 'bigint', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('image_variants_pkey', ['file_record_id', 'variant'])
      .execute();
  },
};

/**
 * 0017: the account's actions in the activity log (`GET /logs?kind=actions`, the dashboard's
 * default), a partial index on `(user_id, created_at, id)` of the entries whose method is not a
 * read: a page and its count read only the actions, however many reads (API listings, page loads)
 * the account has. The predicate must stay the one SqlActivityLogRepository writes (ACTIONS_SQL),
 * literally, or the planners of SQLite and Postgres will not use the index.
 */
const activityActionsIndex: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`create index activity_logs_actions on activity_logs (user_id, created_at, id) where method not in ('GET', 'HEAD', 'OPTIONS')`.execute(db);
  },
};

/**
 * 0010 (Postgres only; nothing on SQLite, whose processes see commits through the WAL index): the
 * change notifications of the lookups cached on every request's path (docs/scale-out.md). Triggers
 * send `pg_notify('hangar:<schema>', <JSON>)` in the transaction of the change, so a notification
 * goes out exactly when the change commits, whichever statement made it (a route, the admin CLI, a
 * cascade from a deleted account, a route added later):
 * - `users` updated or deleted → `{ kind: 'account', accountId }`;
 * - `api_keys` updated or deleted → `{ kind: 'api_key', keyHash }`;
 * - `sessions` updated or deleted → `{ kind: 'session', sessionId }`;
 * - `custom_domains` inserted, updated or deleted → `{ kind: 'hostname', hostname, accountId }`, for
 *   the hostname before and after;
 * - `files` updated or deleted → `[{ kind: 'file', fileId }, …]`: one statement-level trigger per
 *   statement (transition table), in notifications of at most ~7 KB each (the limit is 8,000 bytes).
 * Inserts of the others are not announced: nobody has looked up a row before it exists (the caches
 * keep no "not found" answer for them; see PostgresLookupCache). Identical notifications within one
 * transaction are sent once (Postgres folds them). The channel is `left('hangar:' || schema, 63)`.
 */
const changeNotifications: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    await sql`
      create function hangar_notify_row() returns trigger language plpgsql as $$
      declare
        channel text := left('hangar:' || tg_table_schema, 63);
        rows_changed jsonb[];
        changed jsonb;
      begin
        if tg_op = 'INSERT' then rows_changed := array[to_jsonb(new)];
        elsif tg_op = 'DELETE' then rows_changed := array[to_jsonb(old)];
        else rows_changed := array[to_jsonb(old), to_jsonb(new)];
        end if;
        foreach changed in array rows_changed loop
          perform pg_notify(channel, case tg_table_name
            when 'users' then json_build_object('kind', 'account', 'accountId', changed->>'id')::text
            when 'api_keys' then json_build_object('kind', 'api_key', 'keyHash', changed->>'key_hash')::text
            when 'sessions' then json_build_object('kind', 'session', 'sessionId', changed->>'id')::text
            when 'custom_domains' then json_build_object('kind', 'hostname', 'hostname', changed->>'hostname', 'accountId', changed->>'user_id')::text
            else '{"kind":"everything"}'
          end);
        end loop;
        return null;
      end
      $$
    `.execute(db);
    await sql`
      create function hangar_notify_files() returns trigger language plpgsql as $$
      declare
        channel text := left('hangar:' || tg_table_schema, 63);
        buffer text := '';
        item text;
      begin
        for item in select json_build_object('kind', 'file', 'fileId', file_id)::text from changed_files loop
          if octet_length(buffer) + octet_length(item) > 7000 then
            perform pg_notify(channel, '[' || buffer || ']');
            buffer := '';
          end if;
          buffer := case when buffer = '' then item else buffer || ',' || item end;
        end loop;
        if buffer <> '' then perform pg_notify(channel, '[' || buffer || ']'); end if;
        return null;
      end
      $$
    `.execute(db);
    for (const table of ['users', 'api_keys', 'sessions']) {
      await sql`create trigger ${sql.id(`${table}_changes`)} after update or delete on ${sql.table(table)} for each row execute function hangar_notify_row()`.execute(db);
    }
    await sql`create trigger custom_domains_changes after insert or update or delete on custom_domains for each row execute function hangar_notify_row()`.execute(db);
    await sql`create trigger files_changes_deleted after delete on files referencing old table as changed_files for each statement execute function hangar_notify_files()`.execute(db);
    await sql`create trigger files_changes_updated after update on files referencing old table as changed_files for each statement execute function hangar_notify_files()`.execute(db);
  },
};

/**
 * 0011: `service_secrets`, secrets the service generates once for every process sharing the
 * database: the HS256 key of session tokens when JWT_SECRET is not set (apps/server/jwt-secret.ts),
 * inserted by whichever process comes first (`on conflict do nothing`) and read by all.
 */
const serviceSecrets: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('service_secrets')
      .addColumn('name', 'text', (c) => c.primaryKey().notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};

/**
 * 0013 (docs/private-files.md): `files.expires_at` (Unix ms, null: never), indexed for the expiry sweep, which
 * reads only the files that are due; `users.signing_key`, the per-account key of signed URLs
 * (null until the account signs its first URL; rotating it revokes every URL signed before);
 * `files.view_count` and `files.download_count`, the reads of each file (FileReadCounts flushes them).
 */
const privateFiles: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('files').addColumn('expires_at', 'bigint').execute();
    await db.schema.createIndex('files_expires_at').on('files').column('expires_at').where(sql.ref('expires_at'), 'is not', null).execute();
    await db.schema.alterTable('users').addColumn('signing_key', 'text').execute();
    await db.schema.alterTable('files').addColumn('view_count', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('files').addColumn('download_count', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  },
};

/**
 * 0014 (docs/private-files.md): `shares`, the share links of files, removed with their file (by record id) and
 * their user; looked up by id (the primary key), listed by user and file.
 */
const shares: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('shares')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('file_id', 'text', (c) => c.notNull())
      .addColumn('file_record_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('password_hash', 'text')
      .addColumn('expires_at', 'bigint')
      .addColumn('max_downloads', 'bigint')
      .addColumn('downloads', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('shares_user_id_file_id').on('shares').columns(['user_id', 'file_id', 'created_at']).execute();
    await db.schema.createIndex('shares_file_record_id').on('shares').column('file_record_id').execute();
  },
};

/**
 * 0018: `mail_outbox`, e-mails accepted for sending and not yet sent (SqlMailOutbox): a message is
 * a row from the moment `send` resolves, so a crash loses none; any process sending mail claims a
 * due row (`claimed_by`, a lease until `claimed_until`, Unix ms) with a conditional update before
 * delivering it, so two processes never send one message at once. `attempts` counts deliveries
 * tried; a failed one is retried at `next_attempt_at` with backoff; `sent_at` / `failed_at` (given
 * up) end it. Due rows are found through `mail_outbox_due`.
 */
const mailOutbox: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('mail_outbox')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('text_body', 'text', (c) => c.notNull())
      .addColumn('html_body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('claimed_by', 'text')
      .addColumn('claimed_until', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('sent_at', 'bigint')
      .addColumn('failed_at', 'bigint')
      .execute();
    await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['sent_at', 'failed_at', 'next_attempt_at']).execute();
  },
};

/**
 * 0023: `passkeys`, the WebAuthn credentials of accounts (core/passkeys/passkey.ts), removed with
 * their user. A sign-in finds one by `credential_id` (unique); the account's list by user.
 * `transports` is a JSON array of strings; `public_key` the COSE key in base64url.
 */
const passkeys: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('passkeys')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('credential_id', 'text', (c) => c.notNull().unique())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('counter', 'bigint', (c) => c.notNull())
      .addColumn('transports', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .execute();
    await db.schema.createIndex('passkeys_user').on('passkeys').columns(['user_id', 'created_at']).execute();
  },
};

/**
 * 0024: `passkey_challenges`, the WebAuthn challenges handed out and not yet answered
 * (core/passkeys/passkey-challenge-repository.ts): taken by primary key, purged by expiry.
 * `user_id` is the registering account (removed with it), null for a sign-in.
 */
const passkeyChallenges: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('passkey_challenges')
      .addColumn('challenge', 'text', (c) => c.primaryKey().notNull())
      .addColumn('ceremony', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('passkey_challenges_expires_at').on('passkey_challenges').column('expires_at').execute();
  },
};

/**
 * 0019: resumable (tus) uploads. `resumable_uploads` holds each upload's offset, partial-blob state
 * and write lease (`lease_owner` until `leased_until`, Unix ms: one PATCH at a time across
 * processes); `account_totals.reserved_bytes` / `reserved_files` sum the unfinished ones, and every
 * quota check counts them, so parallel resumable and plain uploads never exceed a plan together.
 * The expiry sweep finds due uploads through `resumable_uploads_expiry`.
 */
const resumableUploads: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('account_totals').addColumn('reserved_bytes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('account_totals').addColumn('reserved_files', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .createTable('resumable_uploads')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('file_id', 'text', (c) => c.notNull().unique())
      .addColumn('length', 'bigint', (c) => c.notNull())
      .addColumn('upload_offset', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('is_public', 'integer', (c) => c.notNull())
      .addColumn('file_expires_at', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('partial_state', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('leased_until', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('resumable_uploads_expiry').on('resumable_uploads').columns(['expires_at']).execute();
    await db.schema.createIndex('resumable_uploads_user').on('resumable_uploads').columns(['user_id']).execute();
  },
};

/**
 * 0029: single sign-on (OIDC). `oidc_identities` links an account to a person at an OpenID
 * provider, unique by `(issuer, subject)`, removed with the account. `oidc_flows` holds a sign-in
 * between the redirect to the provider and its callback, by the SHA-256 of its `state`: the nonce
 * and PKCE verifier (secrets for ten minutes, deleted when used or purged) and the SHA-256 of an
 * invite token passed along. `oidc_sign_in_codes` holds the single-use hand-over codes (by SHA-256) that the
 * dashboard exchanges for a session, for a minute. Both are found for purging by `expires_at`.
 */
const oidc: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('oidc_identities')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('email', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('oidc_identities_pkey', ['issuer', 'subject'])
      .execute();
    await db.schema.createIndex('oidc_identities_user_id').on('oidc_identities').column('user_id').execute();
    await db.schema
      .createTable('oidc_flows')
      .addColumn('state_hash', 'text', (c) => c.primaryKey().notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('invite_hash', 'text')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oidc_flows_expires_at').on('oidc_flows').column('expires_at').execute();
    await db.schema
      .createTable('oidc_sign_in_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oidc_sign_in_codes_expires_at').on('oidc_sign_in_codes').column('expires_at').execute();
  },
};

/**
 * 0021 (docs/account-security.md): `totp_factors` (one per account, the secret sealed, the last
 * accepted time step for replay refusal), `recovery_codes` (SHA-256 of each one-time code, by
 * account) and `mfa_challenges` (pending two-step sign-ins by token hash, found by expiry for the
 * purge). Every row goes with its account.
 */
const mfa: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('totp_factors')
      .addColumn('user_id', 'text', (c) => c.primaryKey().notNull().references('users.id').onDelete('cascade'))
      .addColumn('sealed_secret', 'text', (c) => c.notNull())
      .addColumn('confirmed_at', 'bigint')
      .addColumn('last_time_step', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('recovery_codes')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .addPrimaryKeyConstraint('recovery_codes_pkey', ['user_id', 'code_hash'])
      .execute();
    await db.schema
      .createTable('mfa_challenges')
      .addColumn('token_hash', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('mfa_challenges_expires_at').on('mfa_challenges').column('expires_at').execute();
    await db.schema.createIndex('mfa_challenges_user_id').on('mfa_challenges').column('user_id').execute();
  },
};

/**
 * 0022 (docs/account-security.md): device sessions. `sessions.last_used_at` (Unix ms; existing rows
 * take their `created_at`), indexed for the idle sweep; `user_agent` and `ip` of the request that
 * opened the session.
 */
const deviceSessions: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('sessions').addColumn('last_used_at', 'bigint').execute();
    await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
    await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
    await db.updateTable('sessions').set({ last_used_at: sql.ref('created_at') }).execute();
    await db.schema.createIndex('sessions_live_last_used_at').on('sessions').column('last_used_at').where(sql.ref('revoked_at'), 'is', null).execute();
  },
};

/**
 * 0025 (docs/api-keys.md): `api_keys.scopes`, what a key may do as a space-separated list (as
 * OAuth's `scope`, RFC 6749 §3.3), every scope for the keys that exist; `api_keys.expires_at` (Unix
 * ms; null: never). Both are fixed at creation and read with the key on every request, through the
 * cached lookup by hash, so no index is needed.
 */
const apiKeyScopes: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('api_keys').addColumn('scopes', 'text', (c) => c.notNull().defaultTo('files:read files:write files:delete account:read')).execute();
    await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
  },
};

/**
 * 0030: `invites` for `REGISTRATION=invite`, by the SHA-256 of their token (unique). Used once:
 * `used_at`/`used_by` are set by a conditional update. `used_by` is the new account's id without a
 * foreign key: the invite is claimed just before the account is inserted, and the record outlives
 * the account.
 */
const invites: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('invites')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('plan_name', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('used_at', 'bigint')
      .addColumn('used_by', 'text')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('invites_created_at').on('invites').columns(['created_at', 'id']).execute();
  },
};

/**
 * 0031 (Postgres only; SQLite gets nothing: it has no GIN): an index for `q` needles of one or two
 * code points, which the trigram index of 0003 cannot serve (see postgres-file-search.ts and
 * bench/postgres-list-files.md, the section on 0031).
 * - `hangar_search_grams(text) → text[]`: the substrings of one and of two code points of a
 *   `search_text` (its characters, as `regexp_split_to_array(…, '')` gives them in a UTF-8
 *   database, then each pair of neighbours): as a set, what fileSearchGrams (file-search.ts)
 *   computes in JavaScript. Repeats are kept (GIN keeps each key of an item once, and `@>` ignores
 *   them), which spares a sort per call. Immutable, as an index expression must be. Each call
 *   costs tens of µs (per upload, and per file wherever a plan tests files with it; 0034 made it
 *   PL/pgSQL), so PostgresFileSearch reads it only through the index's bitmaps and tests files one
 *   by one with LIKE.
 * - `files_search_grams`: GIN on `hangar_search_grams(search_text)`: `… @> array[needle]` is then
 *   exact (every substring of that length is there), without a column in the table (the grams
 *   would take ~440 bytes a row, nearly tripling the heap every listing reads).
 */
const searchGrams: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    await sql`
      create function hangar_search_grams(search_text text) returns text[]
      language sql immutable strict parallel safe
      as $$
        select case when search_text = '' then '{}'::text[]
          else c || array(select c[i] || c[i + 1] from generate_series(1, cardinality(c) - 1) as i) end
        from regexp_split_to_array(search_text, '') as c
      $$
    `.execute(db);
    await sql`create index files_search_grams on files using gin (hangar_search_grams(search_text))`.execute(db);
  },
};

/**
 * 0032, SQLite only: the substring index of `q` (sqlite-file-search.ts): the contentless FTS5
 * table `files_search`, the triggers on `files` that keep it, and a document for every file already
 * stored, computed in JavaScript in batches of rowids (1,200,000 files: see
 * bench/postgres-list-files.md, 2026-11-26). Postgres has its trigram (0003) and gram (0031) indexes.
 */
const sqliteFileSearch: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (isPostgres(db)) return;
    for (const statement of FILE_SEARCH_SCHEMA) await sql.raw(statement).execute(db);
    await rebuildFileSearch(db);
  },
};

/**
 * 0033, SQLite only: files are indexed for `q` in batches after their upload's commit instead of
 * inside it (the pending table `files_search_pending` and new triggers, sqlite-file-search.ts);
 * searches read the pending files too. Every file stored so far is indexed already.
 */
const sqliteFileSearchPending: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (isPostgres(db)) return;
    for (const statement of FILE_SEARCH_PENDING_SCHEMA) await sql.raw(statement).execute(db);
  },
};

/**
 * 0034 (Postgres only; SQLite gets nothing): `hangar_search_grams` of 0031 again, as PL/pgSQL that
 * returns exactly the same array for every text (the characters, then each pair of neighbours, in
 * that order), so the index built on it stays valid and is not rebuilt.
 *
 * Why: the function is evaluated for every row an `insert into files` writes (the index
 * expression of `files_search_grams`), and an SQL function whose body has a `FROM` cannot be
 * inlined, so Postgres parsed and planned its body again for every insert statement: that, not
 * the grams, was most of what the index cost per upload. A PL/pgSQL function is compiled once per
 * connection, and this body has no query in it, only expressions, so a call costs a few tens of µs
 * whether it comes from an insert or a query (measured in bench/README.md, "The gram index's
 * function").
 */
const searchGramsPlpgsql: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    await sql`
      create or replace function hangar_search_grams(search_text text) returns text[]
      language plpgsql immutable strict parallel safe
      as $$
      declare
        c text[] := regexp_split_to_array(search_text, '');
        grams text[] := c;
      begin
        if search_text = '' then
          return '{}'::text[];
        end if;
        for i in 1 .. cardinality(c) - 1 loop
          grams := grams || (c[i] || c[i + 1]);
        end loop;
        return grams;
      end
      $$
    `.execute(db);
  },
};

/**
 * 0035, SQLite only (Postgres gets nothing): two indexes of `files` that listings read become
 * covering for the filters tested on each file (bench/postgres-list-files.md, "SQLite: covering
 * list indexes (0035)"):
 * - `files (user_id, created_at, id, search_text)` of 0005, which listings walk in list order,
 *   becomes `files (user_id, created_at, id, is_public, size, content_type, search_text)`. A walk
 *   that tests visibility, size or content type on each file it passes (a deep page of a size range,
 *   `q` with `type` or `isPublic`, a counted size range with an upload-time range) reads the index
 *   alone instead of every file's row: at 1,000,000 files, page 3,000 of `sizeMin=1000000` 141 →
 *   45 ms, `sizeMin` with `createdBefore` counted 50 → 6 ms.
 * - `files (user_id, size)` of 0001 becomes `files (user_id, size, is_public, content_type)`: the
 *   exact count of a size range's edge buckets with visibility or a content type (rangeTotal) reads
 *   that index alone too. Without it SQLite's planner counts those over the wider index above, every
 *   file of the account (185 ms instead of 3 ms at 1,000,000 files).
 * Uploads write as many index entries as before, two of them wider.
 */
const sqliteCoveringListIndexes: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (isPostgres(db)) return;
    await db.schema
      .createIndex('files_user_id_created_at_id_is_public_size_content_type_search_text')
      .on('files')
      .columns(['user_id', 'created_at', 'id', 'is_public', 'size', 'content_type', 'search_text'])
      .execute();
    await db.schema.dropIndex('files_user_id_created_at_id_search_text').execute();
    await db.schema.createIndex('files_user_id_size_is_public_content_type').on('files').columns(['user_id', 'size', 'is_public', 'content_type']).execute();
    await db.schema.dropIndex('files_user_id_size').execute();
  },
};

/**
 * 0036, Postgres only (SQLite's FTS index of 0032 holds the same counts): per-account gram counts
 * for `q` (file-gram-counts.ts): `file_grams` (every 1–3-code-point gram by content type and
 * visibility), `file_grams_tracked` and `file_gram_days` (the grams of 5,000 files or more, by
 * upload day), and `file_gram_pending` with the triggers on `files` that note each change there
 * for the background fold. The files already stored are counted here, from JavaScript in one
 * pass over them (bench/postgres-list-files.md). Their days are counted by
 * 0039, which runs after it in the same upgrade and counts `file_gram_days` anew on every database
 * (so this migration's backfill stopped counting them when 0039 came: the end state is the same).
 */
const postgresFileGrams: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    for (const statement of FILE_GRAM_SCHEMA) await sql.raw(statement).execute(db);
    await countFileGrams(db);
  },
};

/**
 * 0037, Postgres only (SQLite's 0035 did the same with a wider index): the list-order index
 * `files (user_id, created_at, id)` of 0001 becomes `files (user_id, created_at, id) include
 * (is_public, size, content_type)`, so that a walk in list order that tests visibility, size or
 * content type on each file it passes reads the index alone (an index-only scan, where the
 * visibility map allows) instead of every file's row. SqlFileRepository asks for a deep page's ids
 * first so that the walk can be index-only: at 1,000,000 files, page 3,000 of `sizeMin=1000000`
 * (no day rows place it) 40 → 22 ms warm (bench/postgres-list-files.md, "Postgres: a covering
 * list-order index (0037)"). Uploads write as many index entries as before, each about 25 bytes
 * wider (132 → 161 MB at 1,200,000 files).
 */
const postgresCoveringListIndex: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    await sql`create index files_user_id_created_at_id_covering on files (user_id, created_at, id) include (is_public, size, content_type)`.execute(db);
    await db.schema.dropIndex('files_user_id_created_at_id').execute();
  },
};

/**
 * 0038, Postgres only (SQLite gets nothing): `hangar_upload_claimed(claimed)`, which the one-statement
 * upload (POSTGRES_INSERT_SQL, sql-file-repository.ts) calls with the number of quota claims it made: it answers 1
 * for 1 and otherwise raises SQLSTATE `HG001` (UPLOAD_REFUSED_SQLSTATE), which undoes the whole statement.
 *
 * Why: the statement now inserts the record before it claims the file's place in the account's
 * totals, so that the row lock on `account_totals`, which every upload of the account waits for, is
 * held for the claim and the histogram rows only, not for the record's index entries (the GIN
 * indexes' pending list, and its merge when full, during which every other upload of the account
 * waited). A refused claim then has to undo an insert already made, which only an error can.
 */
const uploadClaimed: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    await sql`
      create function hangar_upload_claimed(claimed bigint) returns integer
      language plpgsql
      as $$
      begin
        if claimed = 1 then
          return 1;
        end if;
        raise exception 'hangar: the upload does not fit the account''s limits' using errcode = 'HG001';
      end
      $$
    `.execute(db);
  },
};

/**
 * 0039, Postgres only: the tracked grams' day counts by content type (file-gram-counts.ts,
 * FILE_GRAM_TYPES_SCHEMA): `file_gram_days` gains `content_type` (in its primary key) and
 * `file_gram_types_tracked` is created, then the day rows are counted anew from the files
 * (countGramDays: one pass, about two minutes at 1,000,000 files), tracking the content types that
 * hold 5,000 of a tracked gram's files. So `GET /files?q=…&type=…` places a deep page by day as a
 * search without `type` does, instead of collecting and sorting every match (page 300 of
 * `q=cat&type=image/png` at 1,000,000 files: bench/postgres-list-files.md).
 */
const postgresGramDaysByType: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    for (const statement of FILE_GRAM_TYPES_SCHEMA) await sql.raw(statement).execute(db);
    await countGramDays(db);
  },
};

/**
 * 0040, Postgres only: the trigram index of `q` (0003) also holds each file's content type and
 * visibility (`files_search_text_trgm` on `(search_text gin_trgm_ops, content_type, is_public)`,
 * their GIN operator classes from the `btree_gin` extension). A search with `type` or `isPublic`
 * then takes from the index only the files that pass those filters: at 1,000,000 files
 * `q=holiday&type=image/png` ANDed the needle's 60,623 entries with the content type's 291,088 to
 * count 10,001 matches, and now reads 17,731 (bench/postgres-list-files.md, "Combined filters:
 * 0040, 0041 and collecting by the range's index").
 *
 * `btree_gin` is used where it is installed, or created in the current schema (a trusted extension,
 * as `pg_trgm` is; both ship with Postgres). Without it, or without the trigram index (0003 found
 * no `pg_trgm`), nothing changes: the single-column index answers the same searches, more slowly.
 * The new index is built under a temporary name, then replaces the old one (about 15 s at
 * 1,200,000 files, writes to `files` waiting meanwhile).
 */
const postgresTrigramIndexByType: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    const schema = await trigramSchema(db);
    const { rows: present } = await sql`select 1 from pg_indexes where schemaname = current_schema() and indexname = 'files_search_text_trgm'`.execute(db);
    if (schema === undefined || present.length === 0) return;
    if (!(await createExtension(db, 'btree_gin'))) return;
    await sql`create index files_search_text_trgm_by_type on files using gin (search_text ${sql.id(schema)}.gin_trgm_ops, content_type, is_public)`.execute(db);
    await sql`drop index files_search_text_trgm`.execute(db);
    await sql`alter index files_search_text_trgm_by_type rename to files_search_text_trgm`.execute(db);
  },
};

/**
 * 0041, Postgres only (SQLite's 0035 did the like): the size index also holds, after its key
 * `(user_id, size)`, each file's upload time, id, visibility, content type and search text
 * (`include`), as `files_user_id_size_covering`, replacing `files_user_id_size`. A `q` search with
 * a size range whose matches are collected by the range (PostgresFileSearch.collect) then reads
 * that index alone where Postgres's visibility map allows, testing the needle on each entry, not
 * each file's row: at 1,000,000 files `q=cat&sizeMin=50000000` collected its 3,049 matches in
 * 11 ms against 48 for the bitmaps of the trigram and size indexes and the rows
 * (bench/postgres-list-files.md, "Combined filters: 0040, 0041 and collecting by the range's
 * index"). Each upload writes about a hundred bytes more to the index; it is about three times as
 * large (206 MB against 73 at 1,200,000 files), and is built in a few seconds per million files,
 * writes to `files` waiting meanwhile.
 */
const postgresSizeCoveringIndex: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!isPostgres(db)) return;
    await sql`create index files_user_id_size_covering on files (user_id, size) include (created_at, id, is_public, content_type, search_text)`.execute(db);
    await db.schema.dropIndex('files_user_id_size').execute();
  },
};

/**
 * Every migration, by name. Names sort in the order they run (`0001_initial`, `0002_…`); a
 * released migration is never edited, only followed by a new one.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_account_rules': accountRules,
  '0003_list_indexes': listIndexes,
  '0004_custom_domains': customDomains,
  '0005_listing_speed': listingSpeed,
  '0006_file_histogram': fileHistogram,
  '0007_file_histogram_by_type': fileHistogramByType,
  '0008_activity_log_totals': activityLogTotals,
  '0009_credential_purge_indexes': credentialPurgeIndexes,
  '0010_change_notifications': changeNotifications,
  '0011_service_secrets': serviceSecrets,
  '0012_image_variants': imageVariants,
  '0013_private_files': privateFiles,
  '0014_shares': shares,
  '0016_email_slots_per_purpose': emailSlotsPerPurpose,
  '0017_activity_actions_index': activityActionsIndex,
  '0018_mail_outbox': mailOutbox,
  '0019_resumable_uploads': resumableUploads,
  '0021_mfa': mfa,
  '0022_device_sessions': deviceSessions,
  '0023_passkeys': passkeys,
  '0024_passkey_challenges': passkeyChallenges,
  '0025_api_key_scopes': apiKeyScopes,
  '0029_oidc': oidc,
  '0030_invites': invites,
  '0031_search_grams': searchGrams,
  '0032_sqlite_file_search': sqliteFileSearch,
  '0033_sqlite_file_search_pending': sqliteFileSearchPending,
  '0034_search_grams_plpgsql': searchGramsPlpgsql,
  '0035_sqlite_covering_list_indexes': sqliteCoveringListIndexes,
  '0036_postgres_file_grams': postgresFileGrams,
  '0037_postgres_covering_list_index': postgresCoveringListIndex,
  '0038_postgres_upload_claim_last': uploadClaimed,
  '0039_postgres_gram_days_by_type': postgresGramDaysByType,
  '0040_postgres_trigram_index_by_type': postgresTrigramIndexByType,
  '0041_postgres_size_covering_index': postgresSizeCoveringIndex,
  '0045_admin_console': { up: (db) => (isPostgres(db) ? m0045.postgres(db) : m0045.sqlite(db)) },
};

/** Hands Kysely's {@link Migrator} the migrations compiled into this module (no folder is read). */
export class InCodeMigrationProvider implements MigrationProvider {
  constructor(private readonly all: Readonly<Record<string, Migration>> = migrations) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    return { ...this.all };
  }
}

/**
 * Brings the schema up to the latest migration, running those not yet recorded in Kysely's
 * `kysely_migration` table, in name order.
 * `options.migrationTableSchema` (Postgres): the schema of that table, so a database whose other
 * schemas hold a `kysely_migration` table of their own is not confused by it.
 * @returns the names of the migrations run now (empty when already up to date)
 * @throws Error `Database migration <name> failed: …` (the driver's error as `cause`) when a migration
 *         fails, or `Database migrations could not run: …` when the recorded history does not match
 *         these migrations (e.g. a database written by a newer release)
 */
export async function migrateToLatest(
  db: Kysely<HangarDatabase>,
  provider: MigrationProvider = new InCodeMigrationProvider(),
  options: { migrationTableSchema?: string } = {},
): Promise<string[]> {
  // Names compared by code unit, the order `Object.keys(…).sort()` gives the pending ones, instead
  // of Kysely's default `localeCompare`, whose first call initialises ICU's collator at every start.
  const nameComparator = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const migrator = new Migrator({ db, provider, migrationTableSchema: options.migrationTableSchema, nameComparator });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const reason = error instanceof Error ? error.message : String(error);
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(
      failed ? `Database migration ${failed.migrationName} failed: ${reason}` : `Database migrations could not run: ${reason}`,
      { cause: error },
    );
  }
  return (results ?? []).map((result) => result.migrationName);
}
