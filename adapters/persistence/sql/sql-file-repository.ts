import { type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import {
  accountTotals,
  type AccountTotals,
  type FileChanges,
  type FileRepository,
  type InsertResult,
  type QuotaLimits,
} from '../../../core/files/file-repository.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import type { Paged } from '../../../core/shared/pagination.js';
import { fileSearchText } from '../file-search.js';
import { FILE_COLUMNS, type FileRow, fileRow, type NewFileRow } from './file-rows.js';
import { batchInsert, PostgresUploadBatches, type PostgresUploadBatchesOptions, UPLOAD_REFUSED_SQLSTATE } from './postgres-upload-batches.js';
import { type IntegerColumn, toFlag, toMillis, toNullableMillis, toNumber } from './rows.js';
import type { HangarDatabase } from './schema.js';
import { PrecompiledQuery } from './precompiled-query.js';
import type { SqlExecutor } from './sql-executor.js';
import { isPostgres } from './dialect.js';
import { listFiles } from './sql-file-listing.js';
import { KeptListings, type ListingRequest } from './kept-listings.js';
import type { ListingWay } from './listing-plan.js';
import type { FileDeletionReason } from '../../../core/webhooks/webhook.js';
import { clearFileDeletionReason, declareFileDeletionReason } from './file-deletion-reason.js';

/** Ids per DELETE statement, well under every driver's bound-parameter limit. */
const DELETE_CHUNK = 500;

/** Options of {@link SqlFileRepository}. */
export interface SqlFileRepositoryOptions {
  /**
   * Postgres: an upload's quota claim and record in one statement, one round trip (batchInsert,
   * postgres-upload-batches.ts); default true. Off, the transaction script of every database
   * (five round trips with BEGIN and COMMIT). Ignored on SQLite, whose statements cost no round trip.
   */
  singleStatementInsert?: boolean;
  /**
   * Postgres, with `singleStatementInsert`: the uploads of one account that wait at the same time
   * are written by one statement (PostgresUploadBatches); default on. `false`: one statement each.
   */
  uploadBatches?: false | PostgresUploadBatchesOptions;
  /**
   * SQLite: count and page every filtered listing this way (listing-plan.ts) instead of the way
   * chosen for it; the same answers, at another speed. For the contract suite, which runs each way,
   * and for diagnosis. Ignored on Postgres.
   */
  sqliteListingWay?: ListingWay;
}

/** An account's totals from its `account_totals` row; zeros without one (no row, or a left join's nulls). */
function totalsOf(
  row:
    | { storage_bytes: IntegerColumn | null; files_count: IntegerColumn | null; reserved_bytes: IntegerColumn | null; reserved_files: IntegerColumn | null }
    | undefined,
): AccountTotals {
  if (row?.files_count === null || row?.files_count === undefined) return { storageBytes: 0, filesCount: 0 };
  return accountTotals({
    storageBytes: toNumber(row.storage_bytes ?? 0),
    filesCount: toNumber(row.files_count),
    reservedBytes: toNumber(row.reserved_bytes ?? 0),
    reservedFiles: toNumber(row.reserved_files ?? 0),
  });
}

/**
 * {@link FileRepository} over `files` and `account_totals`, on SQLite and Postgres. Listing and
 * `q` are sql-file-listing.ts (docs/search.md).
 *
 * Quotas: `insert` is one transaction whose first statements write the account's `account_totals`
 * row (ensure it exists, then a conditional UPDATE that adds the file only if the limits still hold).
 * That row lock orders concurrent inserts of one account, in one process or many (SQLite's write
 * lock; Postgres re-checks the WHERE on the latest row version), so exactly as many succeed as fit.
 * On Postgres the same claim and the record are one statement by default (batchInsert).
 * `deleteMany` deletes and subtracts in one transaction. `account_totals` also counts public
 * files, so that a listing's total without filters, or filtered by visibility alone, is read rather
 * than counted, and holds the account's `changes` counter, which every insert, update and delete
 * of its files moves in the same transaction, so that a listing kept by {@link KeptListings} is
 * answered again only while it is still true.
 */
export class SqlFileRepository implements FileRepository {
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
          'files.id',
          'files.user_id',
          'files.file_id',
          'files.name',
          'files.content_type',
          'files.size',
          'files.sha256',
          'files.is_public',
          'files.created_at',
          'files.blob_key',
          'files.expires_at',
          'files.view_count',
          'files.download_count',
          'files.metadata_removed',
          'users.signing_key',
        ])
        .where('files.file_id', '=', p.fileId),
    { cacheable: true },
  );
  /** On every upload, first in its transaction: the account's totals row, if it has none yet. */
  private readonly ensureTotals = new PrecompiledQuery((db, p: { userId: string }) =>
    db
      .insertInto('account_totals')
      .values({ user_id: p.userId, storage_bytes: 0, files_count: 0 })
      .onConflict((conflict) => conflict.column('user_id').doNothing()),
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
  /** On every upload, after its quota claim: the row, as {@link fileRow} writes it, when nothing was removed from it (see {@link insertFile}). */
  private readonly insertPlainFile = new PrecompiledQuery((db, p: Omit<NewFileRow, 'metadata_removed'>) =>
    db.insertInto('files').values({
      id: p.id,
      user_id: p.user_id,
      file_id: p.file_id,
      name: p.name,
      content_type: p.content_type,
      size: p.size,
      sha256: p.sha256,
      is_public: p.is_public,
      created_at: p.created_at,
      blob_key: p.blob_key,
      search_text: p.search_text,
      expires_at: p.expires_at,
    }),
  );
  /** The same with `metadata_removed` (migration 0048). */
  private readonly insertStrippedFile = new PrecompiledQuery((db, p: NewFileRow) =>
    db.insertInto('files').values({
      id: p.id,
      user_id: p.user_id,
      file_id: p.file_id,
      name: p.name,
      content_type: p.content_type,
      size: p.size,
      sha256: p.sha256,
      is_public: p.is_public,
      created_at: p.created_at,
      blob_key: p.blob_key,
      search_text: p.search_text,
      expires_at: p.expires_at,
      metadata_removed: p.metadata_removed,
    }),
  );
  /**
   * The insert of a file's row: `metadata_removed` is written only when it is not null (its default),
   * so that a file is inserted the same way on a schema that predates migration 0048 (the upgrade
   * tests insert files on earlier schemas, then migrate).
   */
  private readonly insertFile = {
    compiled: (db: Kysely<HangarDatabase>, row: NewFileRow) => {
      const { metadata_removed: removed, ...plain } = row;
      return removed === null ? this.insertPlainFile.compiled(db, plain) : this.insertStrippedFile.compiled(db, row);
    },
  };
  /** On every upload, before its body is read (the quota's early refusal), and in a refused claim. */
  private readonly storageTotals = new PrecompiledQuery(
    (db, p: { userId: string }) =>
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
  /** Whether the database is Postgres. */
  private readonly postgres: boolean;

  /** See {@link SqlFileRepositoryOptions.singleStatementInsert}: true only on Postgres. */
  private readonly singleStatementInsert: boolean;

  /** See {@link SqlFileRepositoryOptions.uploadBatches}: defined only on Postgres with the single-statement insert, unless switched off. */
  private readonly uploadBatches: PostgresUploadBatches | undefined;

  /** See {@link SqlFileRepositoryOptions.sqliteListingWay}. */
  private readonly sqliteListingWay: ListingWay | undefined;

  /** Listings answered before, kept while their account is unchanged. */
  private readonly keptListings: KeptListings;

  private readonly db: Kysely<HangarDatabase>;

  /** @param executor the database, with the fast paths its adapter offers (SqlExecutor) */
  constructor(
    private readonly executor: SqlExecutor,
    options: SqlFileRepositoryOptions = {},
  ) {
    const { db } = executor;
    this.db = db;
    this.postgres = isPostgres(db);
    this.sqliteListingWay = options.sqliteListingWay;
    this.keptListings = new KeptListings(executor);
    this.singleStatementInsert = this.postgres && (options.singleStatementInsert ?? true);
    this.uploadBatches =
      this.singleStatementInsert && options.uploadBatches !== false
        ? new PostgresUploadBatches(db, (file, limits) => this.insertAlone(file, limits), options.uploadBatches)
        : undefined;
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
    const { ensureTotals, claimQuota, storageTotals, insertFile } = this;
    const { userId } = file;
    return this.executor.transaction(function* () {
      yield ensureTotals.compiled(db, { userId });
      const claimed = yield claimQuota.compiled(db, {
        userId,
        size: file.size,
        publicFlag: toFlag(file.isPublic),
        fileCountLimit: limits.fileCountLimit,
        storageLimitBytes: limits.storageLimitBytes,
      });
      if (claimed.numAffectedRows === 0n) {
        // The row is ours until commit: the totals read here are the ones the UPDATE refused.
        const [row] = (yield storageTotals.compiled(db, { userId })).rows as { files_count: number | string; reserved_files: number | string }[];
        return toNumber(row?.files_count ?? 0) + toNumber(row?.reserved_files ?? 0) + 1 > limits.fileCountLimit
          ? 'file_count_limit_reached'
          : 'storage_limit_reached';
      }
      yield insertFile.compiled(db, fileRow.write(file));
      return 'inserted' as const;
    });
  }

  /**
   * One upload's record on Postgres in one statement (batchInsert of one file): the claim and the record.
   * @throws the driver's unique-violation or foreign-key error, as {@link insert}
   */
  private async insertAlone(file: StoredFile, limits: QuotaLimits): Promise<InsertResult> {
    try {
      await this.db.executeQuery(batchInsert(file.userId, limits, [file]));
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
   * claims the file's place while releasing the upload's reservation, and inserts the record. The upload row is updated first, so on Postgres it is locked before
   * `account_totals`, the order the upload repository's delete takes them in.
   */
  private async insertFromUpload(file: StoredFile, limits: QuotaLimits, uploadId: string): Promise<InsertResult> {
    const { insertFile } = this;
    const flag = toFlag(file.isPublic);
    return this.db
      .transaction()
      .execute(async (trx) => {
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
            reserved_files: sql<number>`reserved_files - 1`,
            reserved_bytes: sql<number>`reserved_bytes - ${reserved}`,
            changes: sql<number>`changes + 1`,
          })
          .where('user_id', '=', file.userId)
          .where(sql<SqlBool>`files_count + reserved_files <= ${limits.fileCountLimit}`)
          .where(sql<SqlBool>`storage_bytes + reserved_bytes - ${reserved} + ${file.size} <= ${limits.storageLimitBytes}`)
          .executeTakeFirst();
        if (claimed.numUpdatedRows === 0n) {
          const row = await trx.selectFrom('account_totals').select(['files_count', 'reserved_files']).where('user_id', '=', file.userId).executeTakeFirst();
          const result: InsertResult =
            toNumber(row?.files_count ?? 0) + toNumber(row?.reserved_files ?? 0) > limits.fileCountLimit ? 'file_count_limit_reached' : 'storage_limit_reached';
          // Rolls the upload's status back: the caller decides what becomes of the upload.
          throw new RefusedInsert(result);
        }
        await trx.executeQuery(insertFile.compiled(trx, fileRow.write(file)));
        return 'inserted' as const;
      })
      .catch((error: unknown) => {
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
    return rows.map(fileRow.read);
  }

  async findByFileId(fileId: string): Promise<StoredFile | undefined> {
    const row = await this.byFileId.first(this.executor, { fileId });
    return row && fileRow.read(row);
  }

  /**
   * One page of the user's files, newest first, with a bounded total: sql-file-listing.ts
   * (docs/search.md). A listing asked again while the account is unchanged is answered by
   * {@link KeptListings} in one statement.
   */
  async list(options: ListingRequest): Promise<Paged<StoredFile>> {
    const key = KeptListings.keyOf(options);
    const again = await this.keptListings.answer(key, options.userId);
    if (again) return again;
    const { page, changes } = await listFiles(this.db, options, this.sqliteListingWay);
    if (changes !== undefined) this.keptListings.keep(key, changes, page);
    return page;
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
    return rows.map(fileRow.read);
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
    return row && { file: fileRow.read(row), signingKey: row.signing_key };
  }

  /**
   * One transaction: the row is read (locked `for update` on Postgres, before `account_totals`, the
   * order `deleteMany` locks in, so the two never deadlock), written, and the account's totals row
   * changed (`changes`, and `public_files_count` when the visibility changes). On SQLite the direct
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
      const before = fileRow.read(row);
      const after: StoredFile = { ...before };
      if (changes.name !== undefined) after.name = changes.name;
      if (changes.isPublic !== undefined) after.isPublic = changes.isPublic;
      if (changes.expiresAt !== undefined) after.expiresAt = changes.expiresAt;
      yield db
        .updateTable('files')
        .set({ name: after.name, search_text: fileSearchText(after), is_public: toFlag(after.isPublic), expires_at: toNullableMillis(after.expiresAt) })
        .where('id', '=', before.id)
        .compile();
      yield db
        .updateTable('account_totals')
        .set({ public_files_count: sql<number>`public_files_count + ${Number(after.isPublic) - Number(before.isPublic)}`, changes: sql<number>`changes + 1` })
        .where('user_id', '=', userId)
        .compile();
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
        deleted.push(...rows.map(fileRow.read));
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
      }
      await clearFileDeletionReason(trx, options.reason);
      return deleted;
    });
  }
}

/** Thrown inside {@link SqlFileRepository.insertFromUpload}'s transaction to roll it back when a limit refuses the file. */
class RefusedInsert extends Error {
  constructor(readonly result: Exclude<InsertResult, 'inserted'>) {
    super(result);
  }
}
