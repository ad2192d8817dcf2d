import { LRUCache } from 'lru-cache';
import { sql, type SqlBool } from 'kysely';
import type { FileFilter, FileRepository } from '../../../core/files/file-repository.js';
import { copyStoredFile, type StoredFile } from '../../../core/files/stored-file.js';
import type { Paged } from '../../../core/shared/pagination.js';
import { isPostgres } from './dialect.js';
import { PrecompiledQuery } from './precompiled-query.js';
import { type IntegerColumn, toNumber } from './rows.js';
import { TurnBatch } from './turn-batch.js';
import type { SqlExecutor } from './sql-executor.js';

/** Most listings a {@link KeptListings} keeps, and most files in them all (least recently asked go first). */
export const KEPT_LISTINGS = { pages: 1_000, files: 10_000 } as const;

/** The fields of {@link FileFilter} in one fixed order, so that one filter is one key however its object was built. */
const FILTER_FIELDS = [
  'q',
  'type',
  'sizeMin',
  'sizeMax',
  'isPublic',
  'createdAfter',
  'createdBefore',
  'expiresBefore',
] as const satisfies readonly (keyof FileFilter)[];

/** A listing as {@link FileRepository.list} is asked it: owner, filter, window and count bound. */
export type ListingRequest = Parameters<FileRepository['list']>[0];

/** A listing's answer as found, with the account's `changes` counter read before it was found. */
interface KeptPage {
  changes: number;
  files: StoredFile[];
  total: Omit<Paged<StoredFile>, 'items'>;
}

/** What the recheck statement found: each asked account's counter, and the read counts of the asked files still stored. */
interface Rechecked {
  changes: Map<string, number>;
  counts: Map<string, { viewCount: number; downloadCount: number }>;
}

/**
 * Listings (`GET /files`, spec 4.9) this process answered, kept so that the same listing asked again
 * costs one indexed statement instead of a count and a page: a dashboard polling, a client paging
 * back, many clients on one account, the same search repeated (docs/search.md, "A listing asked again").
 *
 * Correct across processes without any message between them: a listing is kept with the account's
 * `account_totals.changes` counter as read before the listing was found, and every write that can
 * change what a listing answers moves that counter in its own transaction (SqlFileRepository:
 * insert, update of name, visibility or expiry, delete). A kept listing is answered again only
 * when one statement finds the counter where it was, and then with the files' read counts as they
 * are now (they change without the counter). A write between the counter's read and the listing's
 * statements leaves the kept counter behind, so that listing is found afresh next time. On Postgres
 * the rechecks of the requests received together share that one statement (see `rechecked`).
 *
 * The counter only ever grows: a restore fills an empty database with the servers stopped
 * (docs/operations.md), so no running process holds a listing found at a counter seen again.
 */
export class KeptListings {
  private readonly pages = new LRUCache<string, KeptPage>({
    max: KEPT_LISTINGS.pages,
    maxSize: KEPT_LISTINGS.files,
    sizeCalculation: (page) => Math.max(1, page.files.length),
  });

  /**
   * The `changes` counters of the accounts `userIds` and the read counts of the files `ids` (row
   * ids), one statement (one snapshot): a row per account with a totals row (`id` null), a row per
   * file still stored. Both lists are one parameter each, an array (Postgres) or JSON text (SQLite),
   * so the SQL text is fixed: a named prepared statement on Postgres, and on SQLite a cacheable
   * lookup, answered without SQLite while no connection has written since (a read count is a write).
   */
  private readonly recheck = new PrecompiledQuery(
    (db, p: { userIds: unknown; ids: unknown }) => {
      const among = (column: string, values: unknown) =>
        isPostgres(db) ? sql<SqlBool>`${sql.ref(column)} = any(${values})` : sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${values}))`;
      return db
        .selectFrom('account_totals')
        .select([
          'user_id',
          sql<IntegerColumn | null>`changes`.as('changes'),
          sql<string | null>`null`.as('id'),
          sql<IntegerColumn | null>`null`.as('view_count'),
          sql<IntegerColumn | null>`null`.as('download_count'),
        ])
        .where(among('user_id', p.userIds))
        .unionAll(
          db
            .selectFrom('files')
            .select(['user_id', sql<IntegerColumn | null>`null`.as('changes'), 'id', 'view_count', 'download_count'])
            .where(among('id', p.ids)),
        );
    },
    { cacheable: true },
  );

  /** Postgres: the rechecks of one turn of the event loop, one statement (see {@link rechecked}). */
  private readonly batch = new TurnBatch((keys) => this.read({ userIds: [...keys[0]], ids: [...keys[1]] }), 2);

  private readonly postgres: boolean;

  /** @param executor the database the listings are read from */
  constructor(private readonly executor: SqlExecutor) {
    this.postgres = isPostgres(executor.db);
  }

  /** The key of a listing: owner, each filter field in a fixed order, window and count bound. */
  static keyOf(request: ListingRequest): string {
    const filter = FILTER_FIELDS.map((field) => request.filter[field]);
    return JSON.stringify([request.userId, filter, request.window.offset, request.window.limit, request.countLimit ?? null]);
  }

  /**
   * The listing under `key` as it is now, when it is kept and the account's counter has not moved
   * since; undefined otherwise (the caller then finds it). Returned files are copies.
   * @throws the driver's error
   */
  async answer(key: string, userId: string): Promise<Paged<StoredFile> | undefined> {
    const kept = this.pages.get(key);
    if (!kept) return undefined;
    const { changes, counts } = await this.rechecked(userId, kept.files);
    if (changes.get(userId) !== kept.changes) return undefined;
    const items: StoredFile[] = [];
    for (const file of kept.files) {
      const now = counts.get(file.id);
      // Every removal moves the counter; a file missing without it means the listing is found afresh.
      if (!now) return undefined;
      const copy = copyStoredFile(file);
      copy.viewCount = now.viewCount;
      copy.downloadCount = now.downloadCount;
      items.push(copy);
    }
    return { items, ...kept.total };
  }

  /**
   * Keeps `page` as the answer of the listing under `key`, found after the account's counter was
   * read as `changes`. The files are copied.
   */
  keep(key: string, changes: number, page: Paged<StoredFile>): void {
    const { items, ...total } = page;
    this.pages.set(key, { changes, files: items.map(copyStoredFile), total });
  }

  /**
   * The counter of `userId` and the read counts of `files`, as they are now. On SQLite one
   * statement, answered at once; on Postgres the rechecks of one turn of the event loop are one
   * statement ({@link TurnBatch}).
   */
  private rechecked(userId: string, files: readonly StoredFile[]): Promise<Rechecked> {
    if (!this.postgres) {
      return this.read({ userIds: JSON.stringify([userId]), ids: JSON.stringify(files.map((file) => file.id)) });
    }
    return this.batch.ask(
      [userId],
      files.map((file) => file.id),
    );
  }

  /** Runs the recheck statement. */
  private async read(params: { userIds: unknown; ids: unknown }): Promise<Rechecked> {
    const found: Rechecked = { changes: new Map(), counts: new Map() };
    for (const row of await this.recheck.execute(this.executor, params)) {
      if (row.id === null) found.changes.set(row.user_id, toNumber(row.changes ?? 0));
      else found.counts.set(row.id, { viewCount: toNumber(row.view_count ?? 0), downloadCount: toNumber(row.download_count ?? 0) });
    }
    return found;
  }
}
