import { type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import type { FileFilter, FileRepository } from '../../../core/files/file-repository.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { fileSearchNeedle, fileSearchText } from '../file-search.js';
import { toDate, toFlag, toMillis, toNumber } from './rows.js';
import type { FilesTable, HangarDatabase } from './schema.js';

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
 * {@link FileRepository} over `files`. `q` is a LIKE (with `ESCAPE '\'`) on `search_text`, the
 * name and file id folded once at insert by JavaScript (see file-search.ts), so matching is
 * Unicode case-insensitive on every database without relying on its collation or `lower()`.
 * `deleteMany` runs its DELETE … RETURNING statements in one transaction.
 */
export class SqlFileRepository implements FileRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  /** @throws the driver's unique-violation error when `id` or `fileId` exists, or a foreign-key error for an unknown user */
  async insert(file: StoredFile): Promise<void> {
    await this.db
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
  }

  async findByFileId(fileId: string): Promise<StoredFile | undefined> {
    const row = await this.db.selectFrom('files').selectAll().where('file_id', '=', fileId).executeTakeFirst();
    return row && toStoredFile(row);
  }

  async list(options: { userId: string; filter: FileFilter; window: Window }): Promise<Paged<StoredFile>> {
    const matching = this.db.selectFrom('files').where((eb) => matches(eb, options.userId, options.filter));
    const [count, rows] = await Promise.all([
      matching.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow(),
      matching
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(options.window.limit)
        .offset(options.window.offset)
        .execute(),
    ]);
    return { items: rows.map(toStoredFile), total: toNumber(count.total) };
  }

  async deleteMany(options: { userId: string; fileIds: string[] }): Promise<StoredFile[]> {
    const fileIds = [...new Set(options.fileIds)];
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
      return deleted;
    });
  }
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
