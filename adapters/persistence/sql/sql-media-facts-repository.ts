import { type Kysely, sql, type SqlBool } from 'kysely';
import type { MediaFacts, MediaFactsRepository, MediaFactsState, MediaSubject } from '../../../core/media/media-facts.js';
import { isPostgres } from './dialect.js';
import { PrecompiledQuery } from './precompiled-query.js';
import { toMillis, toNumber } from './rows.js';
import type { HangarDatabase } from './schema.js';
import type { SqlExecutor } from './sql-executor.js';
import { TurnBatch } from './turn-batch.js';

/**
 * {@link MediaFactsRepository} over `file_media` (migration 0047), on SQLite and Postgres.
 * `save` is one upsert that inserts only while the file exists (`insert … select … where exists`);
 * a file deleted at the same moment (its row lock taken by the delete on Postgres) fails the
 * foreign key, which also answers false. The backfill's walk reads `files` by its primary key with
 * a `not exists` on `file_media`'s: each batch reads only the files it returns and those it skips.
 */
export class SqlMediaFactsRepository implements MediaFactsRepository {
  /**
   * On every listing page: the facts of the given file records, by primary key. The ids are one
   * parameter (a text array on Postgres, JSON text on SQLite), so the SQL text is the same for
   * every page: compiled once, a named prepared statement on Postgres, and on SQLite a cacheable
   * lookup, answered without SQLite while no connection has written since (a fact saved is a write).
   */
  private readonly byRecordIds = new PrecompiledQuery(
    (db, p: { ids: unknown }) =>
      db
        .selectFrom('file_media')
        .select(['file_record_id', 'width', 'height', 'duration_seconds', 'thumbhash'])
        .where(isPostgres(db) ? sql<SqlBool>`file_record_id = any(${p.ids})` : sql<SqlBool>`file_record_id in (select value from json_each(${p.ids}))`),
    { cacheable: true },
  );

  /** Postgres: the reads of one turn of the event loop (listing pages asked together), one statement (TurnBatch). */
  private readonly batch = new TurnBatch((keys) => this.read([...keys[0]]), 1);

  private readonly db: Kysely<HangarDatabase>;

  /** @param executor the database, with the fast paths its adapter offers (SqlExecutor) */
  constructor(private readonly executor: SqlExecutor) {
    this.db = executor.db;
  }

  async save(options: { fileRecordId: string; facts: MediaFacts; state: MediaFactsState; computedAt: Date }): Promise<boolean> {
    const { facts } = options;
    try {
      const result = await sql`
        insert into file_media (file_record_id, width, height, duration_seconds, thumbhash, state, computed_at)
        select ${options.fileRecordId}, ${facts.width}, ${facts.height}, ${facts.durationSeconds}, ${facts.thumbhash}, ${options.state}, ${toMillis(options.computedAt)}
        where exists (select 1 from files where id = ${options.fileRecordId})
        on conflict (file_record_id) do update set
          width = excluded.width, height = excluded.height, duration_seconds = excluded.duration_seconds,
          thumbhash = excluded.thumbhash, state = excluded.state, computed_at = excluded.computed_at`.execute(this.db);
      return Number(result.numAffectedRows ?? 0n) > 0;
    } catch (error) {
      if (isForeignKeyViolation(error)) return false;
      throw error;
    }
  }

  async findMany(fileRecordIds: readonly string[]): Promise<Map<string, MediaFacts>> {
    if (fileRecordIds.length === 0) return new Map();
    if (!isPostgres(this.db)) return this.read(JSON.stringify(fileRecordIds));
    // The batch's facts are shared by its askers: each gets its own copies of its own files'.
    const all = await this.batch.ask(fileRecordIds);
    const found = new Map<string, MediaFacts>();
    for (const id of fileRecordIds) {
      const facts = all.get(id);
      if (facts) found.set(id, { width: facts.width, height: facts.height, durationSeconds: facts.durationSeconds, thumbhash: facts.thumbhash });
    }
    return found;
  }

  /** Runs {@link byRecordIds} for `ids` (an array on Postgres, JSON text on SQLite). */
  private async read(ids: unknown): Promise<Map<string, MediaFacts>> {
    const found = new Map<string, MediaFacts>();
    for (const row of await this.byRecordIds.execute(this.executor, { ids })) {
      found.set(row.file_record_id, {
        width: row.width === null ? null : Number(row.width),
        height: row.height === null ? null : Number(row.height),
        durationSeconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
        thumbhash: row.thumbhash,
      });
    }
    return found;
  }

  async filesWithout(options: { afterId?: string; limit: number; createdBefore?: Date }): Promise<MediaSubject[]> {
    const rows = await this.db
      .selectFrom('files')
      .select(['id', 'blob_key', 'content_type', 'size'])
      .where((eb) => eb.not(eb.exists(eb.selectFrom('file_media').select(sql.lit(1).as('one')).whereRef('file_media.file_record_id', '=', 'files.id'))))
      .$if(options.afterId !== undefined, (query) => query.where('id', '>', options.afterId!))
      .$if(options.createdBefore !== undefined, (query) => query.where('created_at', '<', toMillis(options.createdBefore!)))
      .orderBy('id')
      .limit(options.limit)
      .execute();
    return rows.map((row) => ({ id: row.id, blobKey: row.blob_key, contentType: row.content_type, size: toNumber(row.size) }));
  }

  async countWithout(): Promise<number> {
    const row = await this.db
      .selectFrom('files')
      .select((eb) => eb.fn.countAll<number | string>().as('missing'))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('file_media').select(sql.lit(1).as('one')).whereRef('file_media.file_record_id', '=', 'files.id'))))
      .executeTakeFirstOrThrow();
    return toNumber(row.missing);
  }
}

/** True for a foreign key failure: Postgres SQLSTATE 23503, SQLite SQLITE_CONSTRAINT_FOREIGNKEY. */
function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
