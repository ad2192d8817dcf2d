import { LRUCache } from 'lru-cache';
import { CompiledQuery, type Expression, type ExpressionBuilder, type Kysely, type OnConflictBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import { accountTotals, type AccountTotals, type FileChanges, type FileFilter, type FileRepository, type InsertResult, type QuotaLimits } from '../../../core/files/file-repository.js';
import { copyStoredFile, type StoredFile } from '../../../core/files/stored-file.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { containsPattern, fileSearchNeedle, fileSearchText } from '../file-search.js';
import { type ListingTotals, PROBE_COLUMNS, PostgresFileSearch, type PostgresFileSearchOptions } from './postgres-file-search.js';
import { PostgresUploadBatches, type PostgresUploadBatchesOptions } from './postgres-upload-batches.js';
import { toDate, toFlag, toMillis, toNullableDate, toNullableMillis, toNumber } from './rows.js';
import type { FilesTable, HangarDatabase } from './schema.js';
import { PrecompiledQuery, repeatedStatement } from './precompiled-query.js';
import type { SqlExecutor } from './sql-executor.js';
import { isPostgres } from './dialect.js';
import { SqliteFileSearch, type SqliteFileSearchOptions } from './sqlite-file-search.js';
import { ALL_TYPES, coverSizeRange, coverTimeRange, DAY_MS, floorDiv, histogramKeysOf, HOUR_MS, type HistogramDimension, type InclusiveRange } from './file-histogram.js';
import type { FileDeletionReason } from '../../../core/webhooks/webhook.js';
import { clearFileDeletionReason, declareFileDeletionReason } from './file-deletion-reason.js';

/** Hour buckets in a day bucket of `file_histogram` (both counted from the Unix epoch, so each day is 24 whole hours). */
const HOURS_PER_DAY = DAY_MS / HOUR_MS;

/** The primary key of `file_histogram` (migration 0007). */
const HISTOGRAM_KEY = ['user_id', 'content_type', 'dimension', 'bucket', 'is_public'] as const;

/** An upsert into `file_histogram` adds its `files` (1 per inserted file, negative for deletes) to the row that exists. */
const addToExistingRow = (conflict: OnConflictBuilder<HangarDatabase, 'file_histogram'>) =>
  conflict.columns(HISTOGRAM_KEY).doUpdateSet((eb) => ({ files: eb('file_histogram.files', '+', eb.ref('excluded.files')) }));

/** Ids per DELETE statement, well under every driver's bound-parameter limit. */
const DELETE_CHUNK = 500;
/** Histogram rows per upsert of a delete (5 parameters each), well under every driver's bound-parameter limit. */
const HISTOGRAM_CHUNK = 500;

/**
 * From this offset on (rows), a listing that the day rows of `file_histogram` can place finds its
 * page with `SqlFileRepository.seek` instead of skipping the rows one by one. Skipping reads each
 * skipped row, dearer where the filter's rows are spread over the table (`isPublic=false`, a
 * content type); up to 1,000 rows it costs no more than placing a page does at any depth
 * (bench/postgres-list-files.md, "Deep pages").
 */
export const SEEK_FROM_OFFSET = 1_000;

/** Options of {@link SqlFileRepository}. */
export interface SqlFileRepositoryOptions {
  /** The offset (rows) from which deep pages are sought in `file_histogram`; default {@link SEEK_FROM_OFFSET}. Tests set it low. */
  seekFromOffset?: number;
  /**
   * Postgres: an upload's quota claim, record and histogram rows in one statement, one round trip
   * ({@link POSTGRES_INSERT_SQL}); default true. Off, the transaction script of every database
   * (six round trips with BEGIN and COMMIT). Ignored on SQLite, whose statements cost no round trip.
   */
  singleStatementInsert?: boolean;
  /**
   * Postgres, with `singleStatementInsert`: the uploads of one account that wait at the same time
   * are written by one statement (PostgresUploadBatches); default on. `false`: one statement each.
   */
  uploadBatches?: false | PostgresUploadBatchesOptions;
  /**
   * SQLite: `q` through the FTS5 substring index `files_search` (SqliteFileSearch, migration 0032);
   * default on. `false`: `q` walks the account's files testing `LIKE` on each, as without the index
   * (same results; for diagnosis, and the contract runs both). Ignored on Postgres.
   */
  sqliteSearch?: false | SqliteFileSearchOptions;
  /**
   * Postgres: `q` through PostgresFileSearch (the gram index of migration 0031 or the trigram index
   * of 0003, statements chosen by how common the needle is); default on. `false`: the plain LIKE of
   * every database (same results; the contract runs both). Ignored on SQLite.
   */
  postgresSearch?: false | PostgresFileSearchOptions;
}

/**
 * An upload on Postgres in one statement (one round trip, its own transaction): data-modifying CTEs
 * that insert the record, then claim the file's place in the account's totals, then add its six
 * histogram rows. The claim is an upsert whose insert (an account's first file) and update (`where`
 * the limits still hold) both check the limits; Postgres re-checks the update's `where` on the latest
 * version of the row it locked, so concurrent uploads of one account, in any process, succeed exactly
 * as many as fit, as with the conditional UPDATE of the transaction script. A refused claim makes
 * `hangar_upload_claimed` (migration 0038) raise {@link UPLOAD_REFUSED_SQLSTATE}, which undoes the
 * record's insert with the rest; a unique or foreign-key violation fails the whole statement too. So
 * nothing is written unless all of it is.
 *
 * Why the record comes first: the claim locks the account's `account_totals` row until the statement
 * ends, and every upload of the account waits for that lock. Inserted first, the record's heap row and
 * index entries (among them the GIN indexes' pending list, and its merge when full) are written
 * before the lock is taken, in parallel with the account's other uploads (measured in bench/README.md,
 * eleventh session). `claimed` selects from `inserted`, so Postgres runs the insert first.
 *
 * Parameters: $1 user id, $2 size (bytes), $3 public flag, $4 file count limit, $5 storage limit
 * (bytes), $6 record id, $7 file id, $8 name, $9 content type, $10 SHA-256, $11 created at (Unix ms),
 * $12 blob key, $13 search text, $14 the all-types marker, $15 day, $16 hour, $17 size bucket, $18
 * expires at (Unix ms, or null). Answers one row, `inserted` 1, or fails with {@link UPLOAD_REFUSED_SQLSTATE}.
 */
export const POSTGRES_INSERT_SQL = repeatedStatement(`with inserted as (
  insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text, expires_at)
  values ($6::text, $1::text, $7::text, $8::text, $9::text, $2::bigint, $10::text, $3::integer, $11::bigint, $12::text, $13::text, $18::bigint)
  returning user_id
), claimed as (
  insert into account_totals as t (user_id, storage_bytes, files_count, public_files_count, changes)
  select user_id, $2::bigint, 1, $3::bigint, 1 from inserted where 1 <= $4::bigint and $2::bigint <= $5::bigint
  on conflict (user_id) do update set
    files_count = t.files_count + 1,
    storage_bytes = t.storage_bytes + excluded.storage_bytes,
    public_files_count = t.public_files_count + excluded.public_files_count,
    changes = t.changes + 1
  where t.files_count + t.reserved_files + 1 <= $4::bigint and t.storage_bytes + t.reserved_bytes + excluded.storage_bytes <= $5::bigint
  returning t.user_id
), histogram as (
  insert into file_histogram as h (user_id, content_type, dimension, bucket, is_public, files)
  select claimed.user_id, k.content_type, k.dimension, k.bucket, $3::integer, 1
  from claimed cross join (values
    ($14::text, 'day', $15::bigint), ($14::text, 'hour', $16::bigint), ($14::text, 'size', $17::bigint),
    ($9::text, 'day', $15::bigint), ($9::text, 'hour', $16::bigint), ($9::text, 'size', $17::bigint)
  ) as k (content_type, dimension, bucket)
  on conflict (user_id, content_type, dimension, bucket, is_public) do update set files = h.files + excluded.files
  returning 1
)
select hangar_upload_claimed((select count(*) from claimed)) as inserted, (select count(*) from histogram)::integer as histogram_rows`);

/**
 * The SQLSTATE with which {@link POSTGRES_INSERT_SQL} fails when the account's limits refuse the
 * file (raised by `hangar_upload_claimed`, migration 0038): nothing of the upload was written.
 */
export const UPLOAD_REFUSED_SQLSTATE = 'HG001';

/**
 * The columns a {@link StoredFile} is made of: every column but `search_text`, which only serves
 * `q` and would be one more string to build per row read (30 per listing page).
 */
const FILE_COLUMNS = ['id', 'user_id', 'file_id', 'name', 'content_type', 'size', 'sha256', 'is_public', 'created_at', 'blob_key', 'expires_at', 'view_count', 'download_count'] as const;
type FileRow = Pick<Selectable<FilesTable>, (typeof FILE_COLUMNS)[number]>;

/** An integer column as drivers answer it (Postgres `bigint` as a string). */
type IntegerColumn = number | string | bigint;

/** An account's totals from its `account_totals` row; zeros without one (no row, or a left join's nulls). */
function totalsOf(row: { storage_bytes: IntegerColumn | null; files_count: IntegerColumn | null; reserved_bytes: IntegerColumn | null; reserved_files: IntegerColumn | null } | undefined): AccountTotals {
  if (row?.files_count === null || row?.files_count === undefined) return { storageBytes: 0, filesCount: 0 };
  return accountTotals({
    storageBytes: toNumber(row.storage_bytes ?? 0),
    filesCount: toNumber(row.files_count),
    reservedBytes: toNumber(row.reserved_bytes ?? 0),
    reservedFiles: toNumber(row.reserved_files ?? 0),
  });
}

function toStoredFile(row: FileRow): StoredFile {
  return {
    id: row.id,
    userId: row.user_id,
    fileId: row.file_id,
    name: row.name,
    contentType: row.content_type,
    size: toNumber(row.size),
    sha256: row.sha256,
    isPublic: row.is_public === 1,
    createdAt: toDate(row.created_at),
    blobKey: row.blob_key,
    expiresAt: toNullableDate(row.expires_at),
    viewCount: toNumber(row.view_count),
    downloadCount: toNumber(row.download_count),
  };
}

/**
 * {@link FileRepository} over `files` and `account_totals`. `q` is a LIKE (with `ESCAPE '\'`) on
 * `search_text`, the name and file id folded once at insert by JavaScript (see file-search.ts), so
 * matching is Unicode case-insensitive on every database without relying on its collation or `lower()`.
 *
 * Quotas: `insert` is one transaction whose first statements write the account's `account_totals`
 * row (ensure it exists, then a conditional UPDATE that adds the file only if the limits still hold).
 * That row lock orders concurrent inserts of one account, in one process or many (SQLite's write
 * lock; Postgres re-checks the WHERE on the latest row version), so exactly as many succeed as fit.
 * `deleteMany` deletes and subtracts in one transaction. `account_totals` also counts public
 * files, so that a listing's total without filters, or filtered by visibility alone, is read rather
 * than counted (a count over a million rows takes longer than the whole request should).
 * `file_histogram` (migrations 0006, 0007, file-histogram.ts) counts files per upload day, hour and
 * size class, by visibility, for all content types and for each: `insert` adds the file's six rows
 * in one more statement, `deleteMany` subtracts in its transaction, and a listing filtered by one
 * range and/or one content type is totalled from it; its day rows also place deep pages (`seek`).
 */
export class SqlFileRepository implements FileRepository {
  /** Totals of filtered listings counted by this process, by account and filter (see `total`). */
  private readonly counted = new LRUCache<string, { changes: number; total: CountedTotal }>({ max: COUNTED_TOTALS_KEPT });
  /**
   * Pages of filtered listings found by this process: the files in list order and the total, by
   * account, filter and window, with the account's `changes` counter they were found at (see `list`).
   */
  private readonly keptPages = new LRUCache<string, KeptPage>({ max: KEPT_PAGES, maxSize: KEPT_FILES, sizeCalculation: (page) => Math.max(1, page.files.length) });
  /**
   * Kept pages again, one statement (one snapshot) for any number of them: the `changes` counter of
   * each account of `userIds` (rows whose `id` is null; none for an account without a totals row),
   * and the owner and read counts of each file of `ids` (row ids), through the primary keys alone.
   * `userIds` and `ids` are arrays on Postgres, JSON arrays on SQLite. The owner of a file is checked
   * by the caller: a condition on `files.user_id` here lets SQLite walk the account's files by
   * their `user_id` index instead of the primary key (bench/README.md, "Measurements behind the code").
   */
  private readonly keptPageRows = new PrecompiledQuery(
    (db, p: { userIds: unknown; ids: unknown }) =>
      db
        .selectFrom('account_totals')
        .select([
          'user_id',
          sql<IntegerColumn | null>`changes`.as('changes'),
          sql<string | null>`null`.as('id'),
          sql<IntegerColumn | null>`null`.as('view_count'),
          sql<IntegerColumn | null>`null`.as('download_count'),
        ])
        .where(inList(db, 'user_id', p.userIds))
        .unionAll(
          db
            .selectFrom('files')
            .select(['user_id', sql<IntegerColumn | null>`null`.as('changes'), 'id', 'view_count', 'download_count'])
            .where(inList(db, 'id', p.ids)),
        ),
    { cacheable: true },
  );
  /**
   * On Postgres, the kept pages asked for in this turn of the event loop, read together by one
   * `keptPageRows` statement when the turn's immediate callbacks run (see `keptRows`).
   */
  private keptBatch: { userIds: Set<string>; ids: Set<string>; rows: Promise<KeptRows> } | undefined;

  /** On every content read: compiled once. */
  private readonly byFileId = new PrecompiledQuery((db, p: { fileId: string }) => db.selectFrom('files').select(FILE_COLUMNS).where('file_id', '=', p.fileId), {
    cacheable: true,
    invalidatedBy: { kind: 'file', key: 'fileId' },
  });
  /** On every signed-URL read: the file and its owner's signing key, one lookup (cached like `byFileId`). */
  private readonly withSigningKey = new PrecompiledQuery(
    (db, p: { fileId: string }) =>
      db
        .selectFrom('files')
        .innerJoin('users', 'users.id', 'files.user_id')
        .select([
          'files.id', 'files.user_id', 'files.file_id', 'files.name', 'files.content_type', 'files.size', 'files.sha256',
          'files.is_public', 'files.created_at', 'files.blob_key', 'files.expires_at', 'files.view_count', 'files.download_count', 'users.signing_key',
        ])
        .where('files.file_id', '=', p.fileId),
    { cacheable: true },
  );
  /** On every upload, first in its transaction: the account's totals row, if it has none yet. */
  private readonly ensureTotals = new PrecompiledQuery((db, p: { userId: string }) =>
    db.insertInto('account_totals').values({ user_id: p.userId, storage_bytes: 0, files_count: 0 }).onConflict((conflict) => conflict.column('user_id').doNothing()),
  );
  /**
   * On every upload: claims the file's place in the quota, or changes nothing when the file would
   * take the account past a limit (then no row is updated). `size` and `storageLimitBytes` in bytes,
   * `publicFlag` 1 when public.
   */
  private readonly claimQuota = new PrecompiledQuery(
    (db, p: { userId: string; size: number; publicFlag: 0 | 1; fileCountLimit: number; storageLimitBytes: number }) =>
      db
        .updateTable('account_totals')
        .set({
          files_count: sql<number>`files_count + 1`,
          storage_bytes: sql<number>`storage_bytes + ${p.size}`,
          public_files_count: sql<number>`public_files_count + ${p.publicFlag}`,
          changes: sql<number>`changes + 1`,
        })
        .where('user_id', '=', p.userId)
        .where(sql<SqlBool>`files_count + reserved_files + 1 <= ${p.fileCountLimit}`)
        .where(sql<SqlBool>`storage_bytes + reserved_bytes + ${p.size} <= ${p.storageLimitBytes}`),
  );
  /** On every upload, after its quota claim: the row (times in Unix ms, `publicFlag` 1 when public). */
  private readonly insertFile = new PrecompiledQuery(
    (
      db,
      p: {
        id: string; userId: string; fileId: string; name: string | null; contentType: string; size: number; sha256: string;
        publicFlag: 0 | 1; createdAtMs: number; blobKey: string; searchText: string; expiresAtMs: number | null;
      },
    ) =>
      db.insertInto('files').values({
        id: p.id,
        user_id: p.userId,
        file_id: p.fileId,
        name: p.name,
        content_type: p.contentType,
        size: p.size,
        sha256: p.sha256,
        is_public: p.publicFlag,
        created_at: p.createdAtMs,
        blob_key: p.blobKey,
        search_text: p.searchText,
        expires_at: p.expiresAtMs,
      }),
  );
  /** On every upload, before its body is read (the quota's early refusal), and in a refused claim. */
  private readonly storageTotals = new PrecompiledQuery((db, p: { userId: string }) =>
    db.selectFrom('account_totals').select(['storage_bytes', 'files_count', 'reserved_bytes', 'reserved_files']).where('user_id', '=', p.userId),
    { cacheable: true },
  );
  /** On every upload: the totals and whether the drawn file id is taken, one statement. */
  private readonly totalsAndFileId = new PrecompiledQuery(
    (db, p: { userId: string; fileId: string }) =>
      db
        .selectFrom(sql<{ one: number }>`(select 1)`.as('one'))
        .leftJoin('account_totals', (join) => join.on('account_totals.user_id', '=', p.userId))
        .select((eb) => [
          'account_totals.storage_bytes',
          'account_totals.files_count',
          'account_totals.reserved_bytes',
          'account_totals.reserved_files',
          eb.exists(eb.selectFrom('files').select(sql.lit(1).as('taken')).where('files.file_id', '=', p.fileId)).as('file_id_taken'),
        ]),
    { cacheable: true },
  );
  /** On every listing. */
  private readonly totalsRow = new PrecompiledQuery((db, p: { userId: string }) =>
    db.selectFrom('account_totals').select(['files_count', 'public_files_count', 'changes']).where('user_id', '=', p.userId),
    { cacheable: true },
  );

  /**
   * On every upload: adds one file to its day, hour and size rows of `file_histogram`, for all types
   * and for its content type, one statement. `day`, `hour` and `size` are its buckets (histogramKeysOf).
   */
  private readonly histogramAdd = new PrecompiledQuery(
    (db, p: { userId: string; contentType: string; publicFlag: 0 | 1; day: number; hour: number; size: number }) =>
      db
        .insertInto('file_histogram')
        .values(
          ([ALL_TYPES, p.contentType] as const).flatMap((contentType) =>
            (['day', 'hour', 'size'] as const).map((dimension) => ({ user_id: p.userId, content_type: contentType, dimension, bucket: p[dimension], is_public: p.publicFlag, files: 1 })),
          ),
        )
        .onConflict(addToExistingRow),
  );

  /** Page queries by filter shape (see `pageQuery`). */
  private readonly pages = new Map<string, PrecompiledQuery<FileRow, PageParameters>>();

  /** Whether the database is Postgres (see `list`). */
  private readonly postgres: boolean;

  /** See {@link SqlFileRepositoryOptions.singleStatementInsert}: true only on Postgres. */
  private readonly singleStatementInsert: boolean;

  /** See {@link SqlFileRepositoryOptions.uploadBatches}: defined only on Postgres with the single-statement insert, unless switched off. */
  private readonly uploadBatches: PostgresUploadBatches | undefined;

  /** See {@link SqlFileRepositoryOptions.seekFromOffset}. */
  private readonly seekFromOffset: number;

  /** See {@link SqlFileRepositoryOptions.sqliteSearch}: undefined on Postgres or when switched off. */
  private readonly search: SqliteFileSearch | undefined;

  /** See {@link SqlFileRepositoryOptions.postgresSearch}: defined only on Postgres, unless switched off. */
  private readonly postgresSearch: PostgresFileSearch | undefined;

  private readonly db: Kysely<HangarDatabase>;

  /** @param executor the database, with the fast paths its adapter offers (SqlExecutor) */
  constructor(
    private readonly executor: SqlExecutor,
    options: SqlFileRepositoryOptions = {},
  ) {
    const { db } = executor;
    this.db = db;
    this.postgres = isPostgres(db);
    this.seekFromOffset = options.seekFromOffset ?? SEEK_FROM_OFFSET;
    this.singleStatementInsert = this.postgres && (options.singleStatementInsert ?? true);
    this.uploadBatches =
      this.singleStatementInsert && options.uploadBatches !== false
        ? new PostgresUploadBatches(db, (file, limits) => this.insertAlone(file, limits), options.uploadBatches)
        : undefined;
    this.search = this.postgres || options.sqliteSearch === false ? undefined : new SqliteFileSearch(executor, FILE_COLUMNS, options.sqliteSearch);
    this.postgresSearch = this.postgres && options.postgresSearch !== false ? new PostgresFileSearch(db, FILE_COLUMNS, options.postgresSearch) : undefined;
  }

  /**
   * @throws the driver's unique-violation error when `id` or `fileId` exists, or a foreign-key error for an
   *         unknown user; the totals are then unchanged (the transaction rolls back)
   */
  async insert(file: StoredFile, limits: QuotaLimits, options: { fromUpload?: string } = {}): Promise<InsertResult> {
    if (options.fromUpload !== undefined) return this.insertFromUpload(file, limits, options.fromUpload);
    if (this.uploadBatches) return this.uploadBatches.insert(file, limits);
    if (this.singleStatementInsert) return this.insertAlone(file, limits);
    const { db } = this;
    const [day, hour, size] = histogramKeysOf({ createdAtMs: toMillis(file.createdAt), size: file.size });
    const flag = toFlag(file.isPublic);
    const { ensureTotals, claimQuota, storageTotals, insertFile, histogramAdd } = this;
    const { userId } = file;
    return this.executor.transaction(function* () {
      yield ensureTotals.compiled(db, { userId });
      const claimed = yield claimQuota.compiled(db, { userId, size: file.size, publicFlag: flag, fileCountLimit: limits.fileCountLimit, storageLimitBytes: limits.storageLimitBytes });
      if (claimed.numAffectedRows === 0n) {
        // The row is ours until commit: the totals read here are the ones the UPDATE refused.
        const [row] = (yield storageTotals.compiled(db, { userId })).rows as { files_count: number | string; reserved_files: number | string }[];
        return toNumber(row?.files_count ?? 0) + toNumber(row?.reserved_files ?? 0) + 1 > limits.fileCountLimit ? 'file_count_limit_reached' : 'storage_limit_reached';
      }
      yield insertFile.compiled(db, {
        id: file.id,
        userId,
        fileId: file.fileId,
        name: file.name,
        contentType: file.contentType,
        size: file.size,
        sha256: file.sha256,
        publicFlag: flag,
        createdAtMs: toMillis(file.createdAt),
        blobKey: file.blobKey,
        searchText: fileSearchText(file),
        expiresAtMs: toNullableMillis(file.expiresAt),
      });
      yield histogramAdd.compiled(db, { userId, contentType: file.contentType, publicFlag: flag, day: day.bucket, hour: hour.bucket, size: size.bucket });
      return 'inserted' as const;
    });
  }

  /**
   * One upload's record on Postgres by {@link POSTGRES_INSERT_SQL}: the claim, the record and its
   * histogram rows in one statement.
   * @throws the driver's unique-violation or foreign-key error, as {@link insert}
   */
  private async insertAlone(file: StoredFile, limits: QuotaLimits): Promise<InsertResult> {
    const { db } = this;
    const [day, hour, size] = histogramKeysOf({ createdAtMs: toMillis(file.createdAt), size: file.size });
    const flag = toFlag(file.isPublic);
    try {
      await db.executeQuery<{ inserted: number }>(
        CompiledQuery.raw(POSTGRES_INSERT_SQL, [
          file.userId, file.size, flag, limits.fileCountLimit, limits.storageLimitBytes, file.id, file.fileId, file.name, file.contentType,
          file.sha256, toMillis(file.createdAt), file.blobKey, fileSearchText(file), ALL_TYPES, day.bucket, hour.bucket, size.bucket,
          toNullableMillis(file.expiresAt),
        ]),
      );
      return 'inserted';
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== UPLOAD_REFUSED_SQLSTATE) throw error;
    }
    // Refused (a rare path): which limit, from the totals as they are now.
    const totals = await this.totals(file.userId);
    return totals.filesCount + (totals.reservedFiles ?? 0) + 1 > limits.fileCountLimit ? 'file_count_limit_reached' : 'storage_limit_reached';
  }

  /**
   * {@link insert} of a completed resumable upload: one transaction that marks the upload complete,
   * claims the file's place while releasing the upload's reservation, inserts the record and its
   * histogram rows. The upload row is updated first, so on Postgres it is locked before
   * `account_totals`, the order the upload repository's delete takes them in.
   */
  private async insertFromUpload(file: StoredFile, limits: QuotaLimits, uploadId: string): Promise<InsertResult> {
    const { insertFile, histogramAdd } = this;
    const [day, hour, size] = histogramKeysOf({ createdAtMs: toMillis(file.createdAt), size: file.size });
    const flag = toFlag(file.isPublic);
    return this.db.transaction().execute(async (trx) => {
      const upload = await trx
        .updateTable('resumable_uploads')
        .set({ status: 'complete', upload_offset: sql<number>`length`, lease_owner: null, leased_until: null })
        .where('id', '=', uploadId)
        .where('user_id', '=', file.userId)
        .where('status', '=', 'uploading')
        .returning(['length'])
        .executeTakeFirst();
      if (!upload) throw new Error(`Resumable upload ${uploadId} is not an unfinished upload of this account.`);
      const reserved = toNumber(upload.length);
      const claimed = await trx
        .updateTable('account_totals')
        .set({
          files_count: sql<number>`files_count + 1`,
          storage_bytes: sql<number>`storage_bytes + ${file.size}`,
          public_files_count: sql<number>`public_files_count + ${flag}`,
          changes: sql<number>`changes + 1`,
          reserved_files: sql<number>`reserved_files - 1`,
          reserved_bytes: sql<number>`reserved_bytes - ${reserved}`,
        })
        .where('user_id', '=', file.userId)
        .where(sql<SqlBool>`files_count + reserved_files <= ${limits.fileCountLimit}`)
        .where(sql<SqlBool>`storage_bytes + reserved_bytes - ${reserved} + ${file.size} <= ${limits.storageLimitBytes}`)
        .executeTakeFirst();
      if (claimed.numUpdatedRows === 0n) {
        const row = await trx.selectFrom('account_totals').select(['files_count', 'reserved_files']).where('user_id', '=', file.userId).executeTakeFirst();
        const result: InsertResult = toNumber(row?.files_count ?? 0) + toNumber(row?.reserved_files ?? 0) > limits.fileCountLimit ? 'file_count_limit_reached' : 'storage_limit_reached';
        // Rolls the upload's status back: the caller decides what becomes of the upload.
        throw new RefusedInsert(result);
      }
      await trx.executeQuery(insertFile.compiled(trx, {
        id: file.id,
        userId: file.userId,
        fileId: file.fileId,
        name: file.name,
        contentType: file.contentType,
        size: file.size,
        sha256: file.sha256,
        publicFlag: flag,
        createdAtMs: toMillis(file.createdAt),
        blobKey: file.blobKey,
        searchText: fileSearchText(file),
        expiresAtMs: toNullableMillis(file.expiresAt),
      }));
      await trx.executeQuery(histogramAdd.compiled(trx, { userId: file.userId, contentType: file.contentType, publicFlag: flag, day: day.bucket, hour: hour.bucket, size: size.bucket }));
      return 'inserted' as const;
    }).catch((error: unknown) => {
      if (error instanceof RefusedInsert) return error.result;
      throw error;
    });
  }

  async totals(userId: string): Promise<AccountTotals> {
    return totalsOf(await this.storageTotals.first(this.executor, { userId }));
  }

  async totalsAndFileIdTaken(userId: string, fileId: string): Promise<{ totals: AccountTotals; fileIdTaken: boolean }> {
    const row = await this.totalsAndFileId.first(this.executor, { userId, fileId });
    // Postgres answers a boolean, SQLite 0 or 1.
    return { totals: totalsOf(row), fileIdTaken: Boolean(row?.file_id_taken) };
  }

  async scan(options: { afterId?: string; limit: number }): Promise<StoredFile[]> {
    let query = this.db.selectFrom('files').select(FILE_COLUMNS);
    if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
    const rows = await query.orderBy('id', 'asc').limit(options.limit).execute();
    return rows.map(toStoredFile);
  }

  async findByFileId(fileId: string): Promise<StoredFile | undefined> {
    const row = await this.byFileId.first(this.executor, { fileId });
    return row && toStoredFile(row);
  }

  /**
   * One page, newest first, with the exact total. On SQLite a `q` search picks the page's ids
   * first, walking the covering index `files (user_id, created_at, id, is_public, size,
   * content_type, search_text)` (migrations 0005 and 0035) without reading a row, then reads only
   * those rows: half the time of testing `search_text`
   * row by row, when matches are rare and many index entries are passed over (bench/README.md, "list").
   * Postgres keeps the plain form, which its planner serves with the trigram index.
   * On SQLite `q` goes through the FTS5 gram index first (SqliteFileSearch, `sqliteSearch`), which
   * gives the total, and the page too unless the needle is common in the account; then the page is
   * the walk above, which stops after the page's matches (deep pages of a common needle skip
   * `offset` matches one by one, and stay slower).
   *
   * A filtered page found after reading the account's `changes` counter is kept in this process
   * (`keptPages`, by account, filter and window), and asked again it is one statement: the counter
   * and the kept rows by id, answered only if the counter has not moved (any upload, delete, rename,
   * visibility or expiry change of the account, through any process, moves it). A client polling or
   * paging back through one search, or many clients listing one account, then pay neither the
   * search nor the count. When the counter has moved, that statement was one more before the search.
   */
  async list(options: { userId: string; filter: FileFilter; window: Window; countLimit?: number }): Promise<Paged<StoredFile>> {
    const { userId, filter, window, countLimit } = options;
    const key = `${countedKey(userId, filter, countLimit)}\n${window.offset}\n${window.limit}`;
    const kept = this.keptPages.get(key);
    if (kept) {
      const again = await this.keptPage(userId, kept);
      if (again) return again;
    }
    const found = await this.find(userId, filter, window, countLimit);
    if (found.changes !== undefined) {
      this.keptPages.set(key, { changes: found.changes, files: found.items.map(copyStoredFile), total: found.total });
    }
    return { items: found.items, ...found.total };
  }

  /**
   * A page kept by {@link list}, read again in one statement: if the account's `changes` counter is
   * still the one the page was found at (no file of the account was added, removed, renamed, or
   * changed in visibility or expiry since, through any process: every other field of its files is as
   * kept), the kept files with their read counts as they are now, which change without the counter;
   * else undefined.
   */
  private async keptPage(userId: string, kept: KeptPage): Promise<Paged<StoredFile> | undefined> {
    const { changes, counts } = await this.keptRows(userId, kept.files);
    if (changes.get(userId) !== kept.changes) return undefined;
    const items: StoredFile[] = [];
    for (const file of kept.files) {
      const now = counts.get(file.id);
      // Only a change moves the counter; a page that lost a row without it is found again.
      if (!now || now.userId !== userId) return undefined;
      items.push({ ...copyStoredFile(file), viewCount: now.views, downloadCount: now.downloads });
    }
    return { items, ...kept.total };
  }

  /**
   * The `changes` counter of `userId` and the owner and read counts of `files`, as they are now. On
   * SQLite one `keptPageRows` statement, answered at once. On Postgres the reads of one turn of the
   * event loop (the requests received together, which the lookup cache's gate lets on together)
   * are one statement, sent when the turn's immediate callbacks run: every request of the batch
   * arrived before it was sent, so each sees what it would have seen alone, for one round trip.
   */
  private async keptRows(userId: string, files: readonly StoredFile[]): Promise<KeptRows> {
    if (!this.postgres) {
      return keptRowsOf(await this.keptPageRows.execute(this.executor, { userIds: JSON.stringify([userId]), ids: JSON.stringify(files.map((file) => file.id)) }));
    }
    let batch = this.keptBatch;
    if (!batch) {
      const userIds = new Set<string>();
      const ids = new Set<string>();
      const rows = new Promise<KeptRows>((resolve, reject) => {
        setImmediate(() => {
          // Later requests start a batch of their own: this one is being sent.
          this.keptBatch = undefined;
          this.keptPageRows.execute(this.executor, { userIds: [...userIds], ids: [...ids] }).then((found) => resolve(keptRowsOf(found)), reject);
        });
      });
      batch = this.keptBatch = { userIds, ids, rows };
    }
    batch.userIds.add(userId);
    for (const file of files) batch.ids.add(file.id);
    return batch.rows;
  }

  /**
   * The page and total of a listing, and the account's `changes` counter when both were found after
   * it was read (the page may then be kept; undefined when they were not, or the total needs no count).
   */
  private async find(userId: string, filter: FileFilter, window: Window, countLimit: number | undefined): Promise<FoundPage> {
    if (this.postgresSearch && filter.q !== undefined) return this.searchList(userId, filter, window, countLimit);
    if (filter.q !== undefined && this.search) {
      const searched = await this.sqliteSearchList(userId, filter, window, countLimit);
      if (searched) return searched;
    }
    if (!this.postgres && (filter.type !== undefined || filter.sizeMin !== undefined || filter.sizeMax !== undefined)) {
      // SQLite: the total first, to choose the page's plan (see `inListOrder`).
      const { total, changes } = await this.total(userId, filter, countLimit);
      const rows = await this.page(userId, filter, window, await this.inListOrder(userId, total.total, window));
      return { items: rows.map(toStoredFile), total, changes };
    }
    // Total and page at once: the page is not known to follow the counter's read, so it is not kept.
    const [{ total }, rows] = await Promise.all([this.total(userId, filter, countLimit), this.page(userId, filter, window, false)]);
    return { items: rows.map(toStoredFile), total };
  }

  /**
   * SQLite, a listing with `q` through its index ({@link SqliteFileSearch}): the total, kept in
   * {@link counted} as in {@link total} (verifying every candidate of a needle is what costs), and
   * the page: walked in list order (SqlFileRepository.page, which stops after the page's matches)
   * when that passes fewer files than the index has candidates to read — about
   * `(offset + limit) × files / matches` index entries against `matches` rows read and verified,
   * an entry costing about a twentieth of a row (measured with the bench's list scenario) —, else the index's page. Undefined when the index
   * cannot serve the filter (an empty needle).
   */
  private async sqliteSearchList(userId: string, filter: FileFilter, window: Window, countLimit: number | undefined): Promise<FoundPage | undefined> {
    const row = await this.totalsRow.first(this.executor, { userId });
    if (!row) return { items: [], total: EXACTLY_NONE };
    const files = toNumber(row.files_count);
    const changes = toNumber(row.changes);
    const key = countedKey(userId, filter, countLimit);
    const known = this.counted.get(key);
    const walkCheaper = (matches: number) => (window.offset + window.limit) * files < WALK_ENTRIES_PER_ROW * matches * matches;
    const sized = filter.type !== undefined || filter.sizeMin !== undefined || filter.sizeMax !== undefined;
    const walked = async (matches: number) => {
      // A deep page starts from the day that holds it (SqliteFileSearch.place) when the needle allows.
      const placed = window.offset >= this.seekFromOffset ? await this.search!.place({ userId, filter, offset: window.offset, dayFiles: () => this.bucketsNewestFirst(userId, 'day', {}, filter.type, filter.isPublic) }) : undefined;
      const [pageFilter, pageWindow] = placed ? [{ ...filter, createdBefore: new Date(placed.before) }, { ...window, offset: placed.offset }] : [filter, window];
      return (await this.page(userId, pageFilter, pageWindow, sized && (await this.inListOrder(userId, matches, pageWindow)))).map(toStoredFile);
    };
    if (known?.changes === changes) {
      const matches = known.total.total + (known.total.totalRelation === 'gte' ? 1 : 0);
      if (matches === 0) return { items: [], total: known.total, changes };
      if (walkCheaper(matches)) return { items: await walked(matches), total: known.total, changes };
    }
    const searched = await this.search!.list({ userId, filter, window, countLimit });
    if (!searched) return undefined;
    // Counted after `changes` was read (see `total`).
    this.counted.set(key, { changes, total: searched.total });
    const matches = searched.total.total + (searched.total.totalRelation === 'gte' ? 1 : 0);
    const rows = searched.rows as FileRow[] | undefined;
    return { items: rows ? rows.map(toStoredFile) : await walked(matches), total: searched.total, changes };
  }

  /**
   * Postgres, a listing with `q`: its page and bounded count from {@link PostgresFileSearch}, the
   * count kept in {@link counted} as in {@link total}.
   */
  private async searchList(userId: string, filter: FileFilter, window: Window, countLimit: number | undefined): Promise<FoundPage> {
    const needle = fileSearchNeedle(filter.q!);
    if (needle === undefined) return { items: [], total: EXACTLY_NONE };
    const key = countedKey(userId, filter, countLimit);
    const kept = this.counted.get(key);
    const { fields, values } = filterParameters({ ...filter, q: undefined });
    // With the needle's index, a visibility that most of the account's files have is tested on each
    // file the trigram index yields rather than intersected in that index (migration 0040), where
    // its entries (up to every file of the account) would cost more than the files they leave out.
    // Walks in list order keep it indexable (the visibility index walks only the files that have it).
    const othersWith =
      (common: boolean) =>
      (eb: ExpressionBuilder<HangarDatabase, 'files'>, withNeedleIndex: boolean) =>
        conditions(eb, userId, fields, values, common && withNeedleIndex ? ['is_public'] : []).slice(1);
    // A count kept for this search (a client paging through or polling it): the totals row and the
    // page among the newest files in one statement, the page used if `changes` still matches.
    let row: ListingTotals | undefined;
    let recent: FileRow[] | undefined;
    if (kept) {
      // The newest files are walked in list order, where visibility stays indexable (`common` off).
      const read = await this.postgresSearch!.recentPageWithTotals<FileRow>({ userId, needle, others: othersWith(false), window });
      row = read?.totals;
      if (read && toNumber(read.totals.changes) === kept.changes) recent = read.rows;
    } else {
      row = await this.totalsRow.first(this.executor, { userId });
    }
    if (!row) return { items: [], total: EXACTLY_NONE };
    const changes = toNumber(row.changes);
    const known = kept?.changes === changes ? kept : undefined;
    const files = toNumber(row.files_count);
    const publicFiles = toNumber(row.public_files_count);
    const common = filter.isPublic !== undefined && 2 * (filter.isPublic ? publicFiles : files - publicFiles) > files;
    // One upload-time or size range among the other filters: its files can be counted from the histogram.
    const range = histogramRange({ ...filter, q: undefined });
    const ranged = range !== undefined && range !== 'empty' && (range.from !== undefined || range.to !== undefined) ? range : undefined;
    const { rows, counted } = await this.postgresSearch!.list<FileRow>({
      userId,
      needle,
      others: othersWith(common),
      window,
      countLimit,
      ...(ranged ? { range: { files: () => this.rangeTotal(userId, ranged), dimension: ranged.dimension }, accountFiles: files } : {}),
      ...(filter.sizeMin === undefined && filter.sizeMax === undefined && filter.expiresBefore === undefined
        ? {
            gramFilter: {
              ...(filter.type === undefined ? {} : { type: filter.type }),
              ...(filter.isPublic === undefined ? {} : { isPublic: toFlag(filter.isPublic) }),
              ...(filter.createdAfter === undefined ? {} : { createdAfter: toMillis(filter.createdAfter) }),
              ...(filter.createdBefore === undefined ? {} : { createdBefore: toMillis(filter.createdBefore) }),
            },
          }
        : {}),
      ...(known ? { knownMatches: known.total.total + (known.total.totalRelation === 'gte' ? 1 : 0), ...(recent ? { recent } : {}) } : {}),
    });
    let total = known?.total;
    if (counted !== undefined) {
      total = countLimit !== undefined && counted > countLimit ? { total: countLimit, totalRelation: 'gte' } : { total: counted };
      // Counted after `changes` was read (see `total`).
      this.counted.set(key, { changes, total });
    }
    return { items: rows.map(toStoredFile), total: total!, changes };
  }

  /**
   * SQLite: whether a page filtered by content type or size should be found by walking the
   * account's files in list order (the covering index of migration 0035, which holds content type,
   * size and visibility: no file's row is read for the entries passed), testing the filter on each, rather
   * than by the filter's own index (`(user_id, content_type)`, `(user_id, size)`) and a sort of every
   * match, which SQLite's planner prefers even for filters matching tens of thousands of files
   * (bench/postgres-list-files.md, the 1,000,000-file section). Walking passes about
   * `(offset + limit) × files / matches` entries, the index about `matches` rows plus the sort: in
   * list order when the first is smaller. `matches` is the listing's total (a bound of it at
   * `gte`, which only makes the walk cheaper than estimated).
   */
  private async inListOrder(userId: string, matches: number, window: Window): Promise<boolean> {
    const row = await this.totalsRow.first(this.executor, { userId });
    const files = row ? toNumber(row.files_count) : 0;
    return matches * matches >= (window.offset + window.limit) * files;
  }

  /**
   * The rows of one page: skipping `window.offset` matches, or from where {@link seek} places a deep
   * one; `inListOrder` keeps the content type and size filters off their indexes (see {@link inListOrder}).
   */
  private async page(userId: string, filter: FileFilter, window: Window, inListOrder: boolean): Promise<FileRow[]> {
    let pageFilter = filter;
    let { offset } = window;
    if (offset >= this.seekFromOffset) {
      const sought = await this.seek(userId, filter, offset);
      if (sought) ({ filter: pageFilter, offset } = sought);
    }
    const { fields, values, nothing } = filterParameters(pageFilter);
    if (nothing) return [];
    const parameters: PageParameters = { userId, limit: window.limit, offset };
    fields.forEach((field, i) => (parameters[field] = values[i]));
    // The ids first: on SQLite for `q` (the walk reads the covering index of 0035, not each row);
    // on Postgres when still deep (a size range, which no day rows place, or a day of many uploads),
    // so that the walk past `offset` files reads the covering list-order index of 0037 alone.
    const idsFirst = fields.includes('q') ? !this.postgres : this.postgres && offset >= this.seekFromOffset;
    return this.pageQuery(fields, inListOrder, idsFirst).execute(this.executor, parameters);
  }

  /**
   * Where a deep page starts, placed with the day rows of `file_histogram` instead of skipping
   * `offset` matches one by one (on Postgres with 1,000,000 files, page 10,000 of 30 took 83 ms
   * skipping and 4 ms placed; the last page 343 and 4 ms: bench/postgres-list-files.md).
   * Only for the filters those rows count (none, visibility, content type, an upload-time range, in
   * any combination); `q` and size ranges skip as before.
   *
   * In list order (newest first): the matches uploaded after the last whole UTC day of the range
   * (those on the day `createdBefore` cuts, counted exactly, see {@link rangeTotal}), then whole
   * days, newest first, summed from their rows until the day that holds the `offset`-th match; the
   * page then is the same filter narrowed to files uploaded before the end of that day, at the
   * offset left within it (at most that day's matches, or those of the day `createdAfter` cuts).
   * When that offset is itself deep (a day of many uploads, such as an import), the day's `hour`
   * rows place the page the same way within it, so at most one hour's matches are skipped.
   * The result is the page that skipping gives, since days and hours split the list order: each
   * holds every file uploaded in it, and ties in `created_at` fall on one side of a boundary.
   * The statements are not one snapshot (nor are the page and total of `list`): a concurrent
   * upload or delete may shift the page by the files it adds or removes, as it would a moment later.
   *
   * @param offset matches to skip (≥ 0)
   * @returns the narrowed filter and the offset left under it, or undefined to skip as usual (a
   *          filter with `q` or a size range, an empty or sub-day range, bounds that are not safe
   *          integers (ms), an offset within the files after the last whole day, or no match at all)
   */
  private async seek(userId: string, filter: FileFilter, offset: number): Promise<{ filter: FileFilter; offset: number } | undefined> {
    if (filter.q !== undefined || filter.sizeMin !== undefined || filter.sizeMax !== undefined || filter.expiresBefore !== undefined) return undefined;
    const from = filter.createdAfter && toMillis(filter.createdAfter);
    const to = filter.createdBefore && toMillis(filter.createdBefore);
    if (![from, to].every((bound) => bound === undefined || Number.isSafeInteger(bound))) return undefined;
    // The whole UTC days in the range (each end open when the range is).
    const firstDay = from === undefined ? undefined : -floorDiv(-from, DAY_MS);
    const lastDay = to === undefined ? undefined : floorDiv(to + 1, DAY_MS) - 1;
    if (firstDay !== undefined && lastDay !== undefined && firstDay > lastDay) return undefined;
    const { type, isPublic } = filter;
    const afterLastDay = lastDay === undefined || (lastDay + 1) * DAY_MS > to! ? 0 : await this.rangeTotal(userId, { dimension: 'time', from: (lastDay + 1) * DAY_MS, to, type, isPublic });
    if (offset < afterLastDay) return undefined;
    const before = (end: number) => ({ ...filter, createdBefore: new Date(end - 1) });
    const days = await this.bucketsNewestFirst(userId, 'day', { from: firstDay, to: lastDay }, type, isPublic);
    const inDays = offset - afterLastDay;
    const { holding: day, newer } = bucketHolding(days, inDays);
    const left = inDays - newer;
    if (!day) {
      // Past every whole day: the page lies in the day `createdAfter` cuts, or past the last match
      // (then it is empty, found without skipping anything: no match is older than the oldest day).
      const end = firstDay ?? days.at(-1)?.bucket ?? (lastDay === undefined ? undefined : lastDay + 1);
      return end === undefined ? undefined : { filter: before(end * DAY_MS), offset: left };
    }
    if (left < this.seekFromOffset) return { filter: before((day.bucket + 1) * DAY_MS), offset: left };
    // Deep into one day (an import of many files that day): placed by its hours too.
    const hours = await this.bucketsNewestFirst(userId, 'hour', { from: day.bucket * HOURS_PER_DAY, to: (day.bucket + 1) * HOURS_PER_DAY - 1 }, type, isPublic);
    const { holding: hour, newer: newerInDay } = bucketHolding(hours, left);
    return hour ? { filter: before((hour.bucket + 1) * HOUR_MS), offset: left - newerInDay } : { filter: before((day.bucket + 1) * DAY_MS), offset: left };
  }

  /**
   * The account's `file_histogram` rows of `dimension` with buckets in `buckets` (inclusive, either
   * end open), of content type `type` (all types when undefined) and visibility `isPublic` (both
   * when undefined, summed per bucket), newest bucket first, without empty buckets.
   */
  private async bucketsNewestFirst(
    userId: string,
    dimension: 'day' | 'hour',
    buckets: InclusiveRange,
    type: string | undefined,
    isPublic: boolean | undefined,
  ): Promise<Array<{ bucket: number; files: number }>> {
    let query = this.db
      .selectFrom('file_histogram')
      .select((eb) => ['bucket', eb.fn.sum<number | string>('files').as('files')])
      .where('user_id', '=', userId)
      .where('content_type', '=', type ?? ALL_TYPES)
      .where('dimension', '=', dimension);
    if (buckets.from !== undefined) query = query.where('bucket', '>=', buckets.from);
    if (buckets.to !== undefined) query = query.where('bucket', '<=', buckets.to);
    if (isPublic !== undefined) query = query.where('is_public', '=', toFlag(isPublic));
    const rows = await query.groupBy('bucket').orderBy('bucket', 'desc').execute();
    return rows.map((row) => ({ bucket: toNumber(row.bucket), files: toNumber(row.files) })).filter((row) => row.files > 0);
  }

  /**
   * The page query for one filter shape (which of the filters are given), built and compiled by
   * Kysely once per shape (at most 2^7, times the two flags) and then bound per request: building and
   * compiling a query cost about as much as SQLite takes to find a page (bench/README.md, "list").
   * Parameters: the user id, limit, offset, and the given filters' SQL values by field name
   * (filterParameters). `idsFirst`: select the page's ids in a subquery and then their rows, so
   * that a walk that skips many files need not read their rows.
   */
  private pageQuery(fields: readonly FilterField[], inListOrder: boolean, idsFirst: boolean): PrecompiledQuery<FileRow, PageParameters> {
    const shape = `${fields.join(',')}${inListOrder ? ' in list order' : ''}${idsFirst ? ' ids first' : ''}`;
    let query = this.pages.get(shape);
    if (!query) {
      query = new PrecompiledQuery<FileRow, PageParameters>((db, p) => {
        const { limit, offset } = p;
        const filterValues = fields.map((field) => p[field]);
        const matching = db.selectFrom('files').where((eb) => eb.and(conditions(eb, p.userId, fields, filterValues, inListOrder ? IN_LIST_ORDER : [])));
        const newestFirst = <Q extends { orderBy: (column: 'created_at' | 'id', direction: 'desc') => Q }>(q: Q): Q =>
          q.orderBy('created_at', 'desc').orderBy('id', 'desc');
        return idsFirst
          ? newestFirst(db.selectFrom('files').select(FILE_COLUMNS).where('id', 'in', newestFirst(matching.select('id')).limit(limit).offset(offset)))
          : newestFirst(matching.select(FILE_COLUMNS)).limit(limit).offset(offset);
      }, { plannedPerExecution: true });
      this.pages.set(shape, query);
    }
    return query;
  }

  /**
   * How many files match: exactly, except that a count (below) stops at `countLimit` matches and
   * then answers that bound with `gte`. Read from `account_totals` when the filter is empty or only
   * about visibility (no rows counted, however many files the account holds). When the filter is
   * one range of upload time or of size and/or one content type, with or without visibility,
   * totalled from `file_histogram`
   * (see {@link rangeTotal}; not kept in {@link counted}: it costs about as much as reading the
   * `changes` counter, and ranges such as "the last 7 days" move with the clock). Otherwise counted
   * over the indexes that serve each filter, and the count kept in {@link counted} with the
   * account's `changes` counter: while that counter (read from the database, one indexed lookup)
   * has not moved, the same filter is answered without counting again. Counting is what makes a
   * listing slow on a large account (2,000 matches of 100,000 files: 9 ms on SQLite; see
   * bench/README.md, "list"), and a client paging through or polling one search repeats it.
   */
  private async total(userId: string, filter: FileFilter, countLimit: number | undefined): Promise<{ total: CountedTotal; changes?: number }> {
    const range = histogramRange(filter);
    if (range === 'empty') return { total: EXACTLY_NONE };
    if (range !== undefined) return { total: { total: await this.rangeTotal(userId, range) } };
    const row = await this.totalsRow.first(this.executor, { userId });
    if (!row) return { total: EXACTLY_NONE };
    const used = Object.entries(filter).filter(([, value]) => value !== undefined);
    if (used.length === 0 || (used.length === 1 && used[0]![0] === 'isPublic')) {
      const all = toNumber(row.files_count);
      const publicFiles = toNumber(row.public_files_count);
      return { total: { total: filter.isPublic === undefined ? all : filter.isPublic ? publicFiles : all - publicFiles } };
    }
    const changes = toNumber(row.changes);
    const key = countedKey(userId, filter, countLimit);
    const known = this.counted.get(key);
    if (known?.changes === changes) return { total: known.total, changes };
    const matching = this.db.selectFrom('files').where((eb) => matches(eb, userId, filter));
    // With a limit, the count stops at the first `countLimit + 1` matches: the database reads no further.
    const count = await (countLimit === undefined
      ? matching.select((eb) => eb.fn.countAll().as('total'))
      : this.db.selectFrom(matching.select(sql<number>`1`.as('one')).limit(countLimit + 1).as('capped')).select((eb) => eb.fn.countAll().as('total'))
    ).executeTakeFirstOrThrow();
    const counted = toNumber(count.total);
    const total: CountedTotal = countLimit !== undefined && counted > countLimit ? { total: countLimit, totalRelation: 'gte' } : { total: counted };
    // Counted after `changes` was read, so the count holds at least that version; a write between
    // the two moves the counter, and the next request counts again.
    this.counted.set(key, { changes, total });
    return { total, changes };
  }

  /**
   * The exact number of the account's files in `range`, in one statement (one snapshot): the
   * histogram rows of the buckets wholly inside the range, plus an exact count over the indexes of
   * `files` (`(user_id, created_at, id)`, `(user_id, is_public, created_at, id)`, `(user_id, size)`;
   * on SQLite the first and last also hold visibility and content type, so the count reads them
   * alone: migration 0035) of the part of the one or two edge buckets inside the range (file-histogram.ts).
   */
  private async rangeTotal(userId: string, range: HistogramRange): Promise<number> {
    const cover = range.dimension === 'time' ? coverTimeRange(range) : coverSizeRange(range);
    const parts = [
      ...cover.sums.map((sum) => {
        let query = this.db
          .selectFrom('file_histogram')
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('files'), sql.lit(0)).as('files'))
          .where('user_id', '=', userId)
          .where('content_type', '=', range.type ?? ALL_TYPES)
          .where('dimension', '=', sum.dimension);
        if (sum.from !== undefined) query = query.where('bucket', '>=', sum.from);
        if (sum.to !== undefined) query = query.where('bucket', '<=', sum.to);
        if (range.isPublic !== undefined) query = query.where('is_public', '=', toFlag(range.isPublic));
        return query;
      }),
      ...cover.exact.map((part) =>
        this.db
          .selectFrom('files')
          .select((eb) => eb.fn.countAll<number | string>().as('files'))
          .where((eb) => matches(eb, userId, exactFilter(range, part))),
      ),
    ];
    const { rows } = await sql<{ total: number | string }>`select ${sql.join(parts, sql` + `)} as total`.execute(this.db);
    return toNumber(rows[0]!.total);
  }

  async findExpired(options: { now: Date; limit: number }): Promise<StoredFile[]> {
    const rows = await this.db
      .selectFrom('files')
      .select(FILE_COLUMNS)
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', toMillis(options.now))
      .orderBy('expires_at', 'asc')
      .limit(options.limit)
      .execute();
    return rows.map(toStoredFile);
  }

  /**
   * One UPDATE per entry, in file id order (the order deletes lock rows in), in one transaction.
   * On Postgres the counted files' cached lookups are then dropped in this process (the UPDATE is
   * not one the write observer drops every entry for; other processes hear of it from the
   * `files` trigger), so a file's counts read here include the ones just written.
   */
  async addReadCounts(entries: readonly { fileId: string; views: number; downloads: number }[]): Promise<void> {
    if (entries.length === 0) return;
    const sorted = [...entries].sort((a, b) => (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : 0));
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const entry of sorted) {
          await trx
            .updateTable('files')
            .set({ view_count: sql<number>`view_count + ${entry.views}`, download_count: sql<number>`download_count + ${entry.downloads}` })
            .where('file_id', '=', entry.fileId)
            .execute();
        }
      });
    } finally {
      this.executor.lookups?.cache?.drop(sorted.map((entry) => `file:${entry.fileId}`));
    }
  }

  async findWithSigningKey(fileId: string): Promise<{ file: StoredFile; signingKey: string | null } | undefined> {
    const row = await this.withSigningKey.first(this.executor, { fileId });
    return row && { file: toStoredFile(row), signingKey: row.signing_key };
  }

  /**
   * One transaction: the row is read (locked `for update` on Postgres, before `account_totals`, the
   * order `deleteMany` locks in, so the two never deadlock), written, and the account's totals row
   * raised (`changes`, and `public_files_count` when the visibility changes); a change of visibility
   * also moves the file's six `file_histogram` rows from one flag to the other. On SQLite the direct
   * transaction is `BEGIN IMMEDIATE`, and the lookup cache is checked against every commit, so the
   * next lookup on any process sees the change.
   */
  async update(options: { userId: string; fileId: string; changes: FileChanges }): Promise<StoredFile | undefined> {
    const { db, postgres } = this;
    const { userId, fileId, changes } = options;
    return this.executor.transaction(function* () {
      const select = db.selectFrom('files').select(FILE_COLUMNS).where('user_id', '=', userId).where('file_id', '=', fileId);
      const [row] = (yield (postgres ? select.forUpdate() : select).compile()).rows as FileRow[];
      if (!row) return undefined;
      const before = toStoredFile(row);
      const after: StoredFile = { ...before };
      if (changes.name !== undefined) after.name = changes.name;
      if (changes.isPublic !== undefined) after.isPublic = changes.isPublic;
      if (changes.expiresAt !== undefined) after.expiresAt = changes.expiresAt;
      yield db
        .updateTable('files')
        .set({ name: after.name, search_text: fileSearchText(after), is_public: toFlag(after.isPublic), expires_at: toNullableMillis(after.expiresAt) })
        .where('id', '=', before.id)
        .compile();
      const moved = after.isPublic === before.isPublic ? 0 : after.isPublic ? 1 : -1;
      yield db
        .updateTable('account_totals')
        .set({ public_files_count: sql<number>`public_files_count + ${moved}`, changes: sql<number>`changes + 1` })
        .where('user_id', '=', userId)
        .compile();
      if (moved !== 0) yield moveInHistogram(db, before);
      return after;
    });
  }

  async deleteMany(options: { userId: string; fileIds: string[]; expiredBy?: Date; reason?: FileDeletionReason }): Promise<StoredFile[]> {
    // Sorted, so concurrent deletes lock rows in one order (no deadlock on Postgres).
    const fileIds = [...new Set(options.fileIds)].sort();
    if (fileIds.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      // Webhooks: the reason `file.deleted` events carry, read by the triggers of migration 0044.
      await declareFileDeletionReason(trx, options.reason);
      const deleted: StoredFile[] = [];
      let variantBytes = 0;
      for (let start = 0; start < fileIds.length; start += DELETE_CHUNK) {
        const chunk = fileIds.slice(start, start + DELETE_CHUNK);
        // The rows this chunk deletes: the user's, among the ids, and with `expiredBy` only those expired by then.
        const doomed = (eb: ExpressionBuilder<HangarDatabase, 'files'>) => {
          const mine = eb.and([eb('user_id', '=', options.userId), eb('file_id', 'in', chunk)]);
          return options.expiredBy === undefined ? mine : eb.and([mine, eb('expires_at', '<=', toMillis(options.expiredBy))]);
        };
        // The files' image variants (SqlImageVariantRepository) go with them, their bytes subtracted
        // below. Lock order: files rows, variant rows, account_totals (as claims and markStored).
        if (isPostgres(trx)) {
          await trx.selectFrom('files').select('id').where(doomed).orderBy('file_id').forUpdate().execute();
        }
        const variants = await trx
          .deleteFrom('image_variants')
          .where('file_record_id', 'in', (eb) => eb.selectFrom('files').select('id').where(doomed))
          .returning('size')
          .execute();
        for (const variant of variants) variantBytes += toNumber(variant.size);
        const rows = await trx.deleteFrom('files').where(doomed).returningAll().execute();
        deleted.push(...rows.map(toStoredFile));
      }
      if (deleted.length > 0) {
        const bytes = deleted.reduce((sum, file) => sum + file.size, variantBytes);
        const publicFiles = deleted.filter((file) => file.isPublic).length;
        await trx
          .updateTable('account_totals')
          .set({
            files_count: sql<number>`files_count - ${deleted.length}`,
            storage_bytes: sql<number>`storage_bytes - ${bytes}`,
            public_files_count: sql<number>`public_files_count - ${publicFiles}`,
            changes: sql<number>`changes + 1`,
          })
          .where('user_id', '=', options.userId)
          .execute();
        await subtractFromHistogram(trx, options.userId, deleted);
      }
      await clearFileDeletionReason(trx, options.reason);
      return deleted;
    });
  }
}

/**
 * Of `buckets` (newest first, each with its number of matches), the one that holds the match at
 * `offset` (0-based, in list order), and how many matches the newer buckets hold; `holding`
 * undefined when `offset` is past them all (`newer` is then all of their matches).
 */
function bucketHolding(buckets: ReadonlyArray<{ bucket: number; files: number }>, offset: number): { holding?: { bucket: number; files: number }; newer: number } {
  let newer = 0;
  for (const bucket of buckets) {
    if (newer + bucket.files > offset) return { holding: bucket, newer };
    newer += bucket.files;
  }
  return { newer };
}

/** Thrown inside {@link SqlFileRepository.insertFromUpload}'s transaction to roll it back when a limit refuses the file. */
class RefusedInsert extends Error {
  constructor(readonly result: Exclude<InsertResult, 'inserted'>) {
    super(result);
  }
}

/**
 * SQLite `q`: index entries walked in list order that cost about as much as one row read by rowid
 * and verified (sqliteSearchList chooses the page's way with it).
 */
const WALK_ENTRIES_PER_ROW = 20;

/** Filtered-listing totals a process keeps (a few hundred bytes each): the most recently used. */
const COUNTED_TOTALS_KEPT = 10_000;

/** The key of a filtered listing's total in `SqlFileRepository.counted`: the account, the bound and the given filters. */
function countedKey(userId: string, filter: FileFilter, countLimit: number | undefined): string {
  const used = Object.entries(filter).filter(([, value]) => value !== undefined);
  return `${userId}\n${countLimit ?? ''}\n${JSON.stringify(used.map(([name, value]) => [name, value instanceof Date ? value.getTime() : value]).sort())}`;
}

/** A list's total and how it relates to the number of matches (see {@link FileRepository.list}). */
type CountedTotal = { total: number; totalRelation?: 'gte' };
const EXACTLY_NONE: CountedTotal = { total: 0 };
/** A page as `SqlFileRepository.find` found it, with the account's `changes` counter read before it when there is one. */
type FoundPage = { items: StoredFile[]; total: CountedTotal; changes?: number };
/** A page `SqlFileRepository.list` keeps: its files in list order, its total, and the counter it was found at. */
type KeptPage = { changes: number; files: StoredFile[]; total: CountedTotal };

/** What `keptPageRows` answered: the `changes` counter by account, the owner and read counts by file row id. */
type KeptRows = { changes: Map<string, number>; counts: Map<string, { userId: string; views: number; downloads: number }> };

function keptRowsOf(rows: readonly { user_id: string; changes: IntegerColumn | null; id: string | null; view_count: IntegerColumn | null; download_count: IntegerColumn | null }[]): KeptRows {
  const found: KeptRows = { changes: new Map(), counts: new Map() };
  for (const row of rows) {
    if (row.id === null) found.changes.set(row.user_id, toNumber(row.changes ?? 0));
    else found.counts.set(row.id, { userId: row.user_id, views: toNumber(row.view_count ?? 0), downloads: toNumber(row.download_count ?? 0) });
  }
  return found;
}

/** `column` is one of `values`: an array on Postgres (`= any`), a JSON array on SQLite (`json_each`), so that one statement text serves any number. */
function inList(db: Kysely<HangarDatabase>, column: 'user_id' | 'id', values: unknown): Expression<SqlBool> {
  return isPostgres(db) ? sql<SqlBool>`${sql.ref(column)} = any(${values})` : sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${values}))`;
}

/** Filtered-listing pages a process keeps, the most recently used: at most this many pages … */
const KEPT_PAGES = 2_000;
/** … and files in them all (a few hundred bytes each). */
const KEPT_FILES = 20_000;

/** The listing filters (spec 4.9), in the order their values are bound. */
const FILTER_FIELDS = ['q', 'type', 'sizeMin', 'sizeMax', 'isPublic', 'createdAfter', 'createdBefore', 'expiresBefore'] as const;
type FilterField = (typeof FILTER_FIELDS)[number];

/** The named parameters of a page query (`pageQuery`): owner, window, and the SQL value of each given filter. */
type PageParameters = { userId: string; limit: number; offset: number } & Partial<Record<FilterField, unknown>>;

/**
 * The given filters of `filter` and their values as SQL binds them: `q` as a LIKE pattern of the
 * folded needle, `isPublic` as 0/1, dates as Unix ms. `nothing` when `q` cannot match any file (a
 * needle with a line feed, see fileSearchNeedle).
 */
function filterParameters(filter: FileFilter): { fields: FilterField[]; values: unknown[]; nothing: boolean } {
  const fields: FilterField[] = [];
  const values: unknown[] = [];
  let nothing = false;
  for (const field of FILTER_FIELDS) {
    const value = filter[field];
    if (value === undefined) continue;
    fields.push(field);
    if (field === 'q') {
      const needle = fileSearchNeedle(value as string);
      nothing = needle === undefined;
      values.push(needle === undefined ? null : containsPattern(needle));
    } else if (field === 'isPublic') values.push(toFlag(value as boolean));
    else if (value instanceof Date) values.push(toMillis(value));
    else values.push(value);
  }
  return { fields, values, nothing };
}

/**
 * Each filter but `q` as a comparison of one column of `files` with the filter's SQL value: a column
 * the Postgres probe keeps (PROBE_COLUMNS), which tests the newest files with these conditions.
 */
const FILTER_COMPARISONS = {
  type: ['content_type', '='],
  sizeMin: ['size', '>='],
  sizeMax: ['size', '<='],
  isPublic: ['is_public', '='],
  createdAfter: ['created_at', '>='],
  createdBefore: ['created_at', '<='],
  expiresBefore: ['expires_at', '<='],
} as const satisfies Record<Exclude<FilterField, 'q'>, readonly [(typeof PROBE_COLUMNS)[number], '=' | '>=' | '<=']>;

/** A column of `files` a listing condition can be kept from its indexes on (see {@link conditions}). */
type UnindexedColumn = 'content_type' | 'size' | 'is_public';

/** SQLite's page in list order (see {@link SqlFileRepository.inListOrder}): content type and size tested on each file walked. */
const IN_LIST_ORDER: readonly UnindexedColumn[] = ['content_type', 'size'];

/**
 * The conditions of a listing: the owner, then each of `fields` with its SQL value (see
 * filterParameters). A column in `unindexed` is written `+column`, which keeps the database from
 * answering its condition with an index that holds the column: SQLite then finds the page in list
 * order (content type and size, {@link IN_LIST_ORDER}); Postgres tests visibility on each file the
 * needle's trigram index yields rather than in that index (see SqlFileRepository.searchList).
 */
function conditions(
  eb: ExpressionBuilder<HangarDatabase, 'files'>,
  userId: string,
  fields: readonly FilterField[],
  values: readonly unknown[],
  unindexed: readonly UnindexedColumn[] = [],
): Expression<SqlBool>[] {
  return [
    eb('user_id', '=', userId),
    ...fields.map((field, i) => {
      const value = values[i] as never;
      if (field === 'q') return value === null ? sql<SqlBool>`1 = 0` : sql<SqlBool>`search_text like ${value} escape '\\'`;
      const [column, operator] = FILTER_COMPARISONS[field];
      if ((unindexed as readonly string[]).includes(column)) return sql<SqlBool>`+${sql.ref(column)} ${sql.raw(operator)} ${value}`;
      return eb(column, operator, value);
    }),
  ];
}

/** The WHERE of a listing: the owner, then every given filter (spec 4.9), combined with AND. */
function matches(eb: ExpressionBuilder<HangarDatabase, 'files'>, userId: string, filter: FileFilter): Expression<SqlBool> {
  const { fields, values } = filterParameters(filter);
  return eb.and(conditions(eb, userId, fields, values));
}

/**
 * A listing filter that `file_histogram` can total: one range of one dimension (open at both ends
 * for a content type alone), perhaps with visibility, of all content types or of one.
 */
type HistogramRange = { dimension: 'time' | 'size'; isPublic?: boolean; type?: string } & InclusiveRange;

/**
 * The filter as a histogram range, when it is one: only `createdAfter`/`createdBefore` (Unix ms), or
 * only `sizeMin`/`sizeMax` (bytes, safe integers), or neither, each optionally with `type` and/or
 * `isPublic` (neither range nor type: undefined, `account_totals` answers). `empty` when the range
 * holds nothing (after > before, min > max); undefined for every other filter, which is counted.
 */
function histogramRange(filter: FileFilter): HistogramRange | 'empty' | undefined {
  const used = new Set(Object.entries(filter).flatMap(([name, value]) => (value === undefined || name === 'isPublic' || name === 'type' ? [] : [name])));
  let range: HistogramRange;
  if (used.size > 0 && [...used].every((name) => name === 'createdAfter' || name === 'createdBefore')) {
    range = { dimension: 'time', from: filter.createdAfter && toMillis(filter.createdAfter), to: filter.createdBefore && toMillis(filter.createdBefore) };
  } else if (used.size > 0 && [...used].every((name) => name === 'sizeMin' || name === 'sizeMax')) {
    range = { dimension: 'size', from: filter.sizeMin, to: filter.sizeMax };
  } else if (used.size === 0 && filter.type !== undefined) {
    range = { dimension: 'time' };
  } else {
    return undefined;
  }
  if (filter.type !== undefined) range.type = filter.type;
  // Bounds the bucket arithmetic cannot take exactly (an invalid date, a size beyond 2^53) are counted as before.
  if (![range.from, range.to].every((bound) => bound === undefined || Number.isSafeInteger(bound))) return undefined;
  if (range.dimension === 'size' && range.from !== undefined && range.from < 0) return undefined;
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) return 'empty';
  if (filter.isPublic !== undefined) range.isPublic = filter.isPublic;
  return range;
}

/** The listing filter that selects exactly the files of `range`'s dimension with a value in `part`. */
function exactFilter(range: HistogramRange, part: InclusiveRange): FileFilter {
  const bounds: FileFilter =
    range.dimension === 'time'
      ? { createdAfter: part.from === undefined ? undefined : new Date(part.from), createdBefore: part.to === undefined ? undefined : new Date(part.to) }
      : { sizeMin: part.from, sizeMax: part.to };
  return { ...bounds, isPublic: range.isPublic, type: range.type };
}

/**
 * The statement that moves `file` (as it was: its old visibility) to the other visibility in
 * `file_histogram`: −1 on its six rows under the old flag, +1 under the new one, keys sorted so
 * concurrent statements lock rows in one order.
 */
function moveInHistogram(db: Kysely<HangarDatabase>, file: StoredFile) {
  const from = toFlag(file.isPublic);
  const to = toFlag(!file.isPublic);
  const rows = histogramKeysOf({ createdAtMs: toMillis(file.createdAt), size: file.size }).flatMap(({ dimension, bucket }) =>
    [ALL_TYPES, file.contentType].flatMap((contentType) => [
      { user_id: file.userId, content_type: contentType, dimension, bucket, is_public: from, files: -1 },
      { user_id: file.userId, content_type: contentType, dimension, bucket, is_public: to, files: 1 },
    ]),
  );
  const order = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  rows.sort((a, b) => order(a.content_type, b.content_type) || order(a.dimension, b.dimension) || a.bucket - b.bucket || a.is_public - b.is_public);
  return db.insertInto('file_histogram').values(rows).onConflict(addToExistingRow).compile();
}

/**
 * Subtracts the deleted files from `file_histogram`, in the caller's transaction (after
 * `account_totals`, whose row lock orders the account's writers): one upsert of negative counts per
 * {@link HISTOGRAM_CHUNK} distinct rows, keys sorted so concurrent statements lock rows in one order.
 */
async function subtractFromHistogram(trx: Kysely<HangarDatabase>, userId: string, deleted: StoredFile[]): Promise<void> {
  const counts = new Map<string, { content_type: string; dimension: HistogramDimension; bucket: number; is_public: 0 | 1; files: number }>();
  for (const file of deleted) {
    const flag = toFlag(file.isPublic);
    for (const { dimension, bucket } of histogramKeysOf({ createdAtMs: toMillis(file.createdAt), size: file.size })) {
      for (const contentType of [ALL_TYPES, file.contentType]) {
        const key = `${contentType} ${dimension} ${bucket} ${flag}`;
        const row = counts.get(key);
        if (row) row.files -= 1;
        else counts.set(key, { content_type: contentType, dimension, bucket, is_public: flag, files: -1 });
      }
    }
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const rows = [...counts.values()].sort((a, b) => order(a.content_type, b.content_type) || order(a.dimension, b.dimension) || a.bucket - b.bucket || a.is_public - b.is_public);
  for (let start = 0; start < rows.length; start += HISTOGRAM_CHUNK) {
    await trx
      .insertInto('file_histogram')
      .values(rows.slice(start, start + HISTOGRAM_CHUNK).map((row) => ({ user_id: userId, ...row })))
      .onConflict(addToExistingRow)
      .execute();
  }
}
