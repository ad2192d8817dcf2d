import { type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import type { AccountTotals, FileFilter, FileRepository, InsertResult, QuotaLimits } from '../../../core/files/file-repository.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { fileSearchNeedle, fileSearchText } from '../file-search.js';
import { toDate, toFlag, toMillis, toNumber } from './rows.js';
import type { FilesTable, HangarDatabase } from './schema.js';
import { PrecompiledQuery } from './precompiled-query.js';
import { isPostgres } from './dialect.js';

/** Ids per DELETE statement, well under every driver's bound-parameter limit. */
const DELETE_CHUNK = 500;

function toStoredFile(row: Selectable<FilesTable>): StoredFile {
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
  };
}

/** `text` as a LIKE pattern that matches it literally anywhere: `\`, `%` and `_` escaped with `\`. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
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
 */
export class SqlFileRepository implements FileRepository {
  /** Totals of filtered listings counted by this process, by account and filter (see `total`). */
  private readonly counted = new BoundedMap<string, { changes: number; total: number }>(COUNTED_TOTALS_KEPT);

  /** On every content read: compiled once. */
  private readonly byFileId = new PrecompiledQuery((db, fileId: string) => db.selectFrom('files').selectAll().where('file_id', '=', fileId));
  /** On every listing. */
  private readonly totalsRow = new PrecompiledQuery((db, userId: string) =>
    db.selectFrom('account_totals').select(['files_count', 'public_files_count', 'changes']).where('user_id', '=', userId),
  );

  /** Whether the database is Postgres (see `list`). */
  private readonly postgres: boolean;

  constructor(private readonly db: Kysely<HangarDatabase>) {
    this.postgres = isPostgres(db);
  }

  /**
   * @throws the driver's unique-violation error when `id` or `fileId` exists, or a foreign-key error for an
   *         unknown user; the totals are then unchanged (the transaction rolls back)
   */
  async insert(file: StoredFile, limits: QuotaLimits): Promise<InsertResult> {
    return this.db.transaction().execute(async (trx): Promise<InsertResult> => {
      await trx
        .insertInto('account_totals')
        .values({ user_id: file.userId, storage_bytes: 0, files_count: 0 })
        .onConflict((conflict) => conflict.column('user_id').doNothing())
        .execute();
      const claimed = await trx
        .updateTable('account_totals')
        .set({
          files_count: sql<number>`files_count + 1`,
          storage_bytes: sql<number>`storage_bytes + ${file.size}`,
          public_files_count: sql<number>`public_files_count + ${file.isPublic ? 1 : 0}`,
          changes: sql<number>`changes + 1`,
        })
        .where('user_id', '=', file.userId)
        .where(sql<SqlBool>`files_count + 1 <= ${limits.fileCountLimit}`)
        .where(sql<SqlBool>`storage_bytes + ${file.size} <= ${limits.storageLimitBytes}`)
        .executeTakeFirst();
      if (claimed.numUpdatedRows === 0n) {
        // The row is ours until commit: the totals read here are the ones the UPDATE refused.
        const totals = await totalsOf(trx, file.userId);
        return totals.filesCount + 1 > limits.fileCountLimit ? 'file_count_limit_reached' : 'storage_limit_reached';
      }
      await trx
        .insertInto('files')
        .values({
          id: file.id,
          user_id: file.userId,
          file_id: file.fileId,
          name: file.name,
          content_type: file.contentType,
          size: file.size,
          sha256: file.sha256,
          is_public: toFlag(file.isPublic),
          created_at: toMillis(file.createdAt),
          blob_key: file.blobKey,
          search_text: fileSearchText(file),
        })
        .execute();
      return 'inserted';
    });
  }

  async totals(userId: string): Promise<AccountTotals> {
    return totalsOf(this.db, userId);
  }

  async scan(options: { afterId?: string; limit: number }): Promise<StoredFile[]> {
    let query = this.db.selectFrom('files').selectAll();
    if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
    const rows = await query.orderBy('id', 'asc').limit(options.limit).execute();
    return rows.map(toStoredFile);
  }

  async findByFileId(fileId: string): Promise<StoredFile | undefined> {
    const row = await this.byFileId.first(this.db, fileId);
    return row && toStoredFile(row);
  }

  /**
   * One page, newest first, with the exact total. On SQLite a `q` search picks the page's ids
   * first, walking the covering index `files (user_id, created_at, id, search_text)` (migration
   * 0005) without reading a row, then reads only those rows: half the time of testing `search_text`
   * row by row, when matches are rare and many index entries are passed over (bench/README.md, "list").
   * Postgres keeps the plain form, which its planner serves with the trigram index.
   */
  async list(options: { userId: string; filter: FileFilter; window: Window }): Promise<Paged<StoredFile>> {
    const matching = this.db.selectFrom('files').where((eb) => matches(eb, options.userId, options.filter));
    const newestFirst = <Q extends { orderBy: (column: 'created_at' | 'id', direction: 'desc') => Q }>(query: Q): Q =>
      query.orderBy('created_at', 'desc').orderBy('id', 'desc');
    const page =
      options.filter.q !== undefined && !this.postgres
        ? newestFirst(
            this.db
              .selectFrom('files')
              .selectAll()
              .where('id', 'in', newestFirst(matching.select('id')).limit(options.window.limit).offset(options.window.offset)),
          )
        : newestFirst(matching.selectAll()).limit(options.window.limit).offset(options.window.offset);
    const [total, rows] = await Promise.all([this.total(options.userId, options.filter), page.execute()]);
    return { items: rows.map(toStoredFile), total };
  }

  /**
   * How many files match, exactly. Read from `account_totals` when the filter is empty or only
   * about visibility (no rows counted, however many files the account holds). Otherwise counted
   * over the indexes that serve each filter, and the count kept in {@link counted} with the
   * account's `changes` counter: while that counter (read from the database, one indexed lookup)
   * has not moved, the same filter is answered without counting again. Counting is what makes a
   * listing slow on a large account (2,000 matches of 100,000 files: 9 ms on SQLite; see
   * bench/README.md, "list"), and a client paging through or polling one search repeats it.
   */
  private async total(userId: string, filter: FileFilter): Promise<number> {
    const row = await this.totalsRow.first(this.db, userId);
    if (!row) return 0;
    const used = Object.entries(filter).filter(([, value]) => value !== undefined);
    if (used.length === 0 || (used.length === 1 && used[0]![0] === 'isPublic')) {
      const all = toNumber(row.files_count);
      const publicFiles = toNumber(row.public_files_count);
      return filter.isPublic === undefined ? all : filter.isPublic ? publicFiles : all - publicFiles;
    }
    const changes = toNumber(row.changes);
    const key = `${userId}\n${JSON.stringify(used.map(([name, value]) => [name, value instanceof Date ? value.getTime() : value]).sort())}`;
    const known = this.counted.get(key);
    if (known?.changes === changes) return known.total;
    const count = await this.db
      .selectFrom('files')
      .where((eb) => matches(eb, userId, filter))
      .select((eb) => eb.fn.countAll().as('total'))
      .executeTakeFirstOrThrow();
    const total = toNumber(count.total);
    // Counted after `changes` was read, so the count holds at least that version; a write between
    // the two moves the counter, and the next request counts again.
    this.counted.set(key, { changes, total });
    return total;
  }

  async deleteMany(options: { userId: string; fileIds: string[] }): Promise<StoredFile[]> {
    // Sorted, so concurrent deletes lock rows in one order (no deadlock on Postgres).
    const fileIds = [...new Set(options.fileIds)].sort();
    if (fileIds.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      const deleted: StoredFile[] = [];
      for (let start = 0; start < fileIds.length; start += DELETE_CHUNK) {
        const rows = await trx
          .deleteFrom('files')
          .where('user_id', '=', options.userId)
          .where('file_id', 'in', fileIds.slice(start, start + DELETE_CHUNK))
          .returningAll()
          .execute();
        deleted.push(...rows.map(toStoredFile));
      }
      if (deleted.length > 0) {
        const bytes = deleted.reduce((sum, file) => sum + file.size, 0);
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
      return deleted;
    });
  }
}

/** Filtered-listing totals a process keeps (a few hundred bytes each): the most recently used. */
const COUNTED_TOTALS_KEPT = 10_000;

/** A Map that forgets its least recently used entry beyond `capacity` entries. */
class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-inserted, so the Map's insertion order is the recency order.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }
}

/** The account's totals as `db` (a connection or a transaction) sees them; zeros without a row. */
async function totalsOf(db: Kysely<HangarDatabase>, userId: string): Promise<AccountTotals> {
  const row = await db.selectFrom('account_totals').select(['storage_bytes', 'files_count']).where('user_id', '=', userId).executeTakeFirst();
  return row ? { storageBytes: toNumber(row.storage_bytes), filesCount: toNumber(row.files_count) } : { storageBytes: 0, filesCount: 0 };
}

/** The WHERE of a listing: the owner, then every given filter (spec 4.9), combined with AND. */
function matches(eb: ExpressionBuilder<HangarDatabase, 'files'>, userId: string, filter: FileFilter): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [eb('user_id', '=', userId)];
  if (filter.q !== undefined) {
    const needle = fileSearchNeedle(filter.q);
    conditions.push(needle === undefined ? sql<SqlBool>`1 = 0` : sql<SqlBool>`search_text like ${containsPattern(needle)} escape '\\'`);
  }
  if (filter.type !== undefined) conditions.push(eb('content_type', '=', filter.type));
  if (filter.sizeMin !== undefined) conditions.push(eb('size', '>=', filter.sizeMin));
  if (filter.sizeMax !== undefined) conditions.push(eb('size', '<=', filter.sizeMax));
  if (filter.isPublic !== undefined) conditions.push(eb('is_public', '=', toFlag(filter.isPublic)));
  if (filter.createdAfter !== undefined) conditions.push(eb('created_at', '>=', toMillis(filter.createdAfter)));
  if (filter.createdBefore !== undefined) conditions.push(eb('created_at', '<=', toMillis(filter.createdBefore)));
  return eb.and(conditions);
}
