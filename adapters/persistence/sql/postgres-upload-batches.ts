import { type CompiledQuery, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import type { InsertResult, QuotaLimits } from '../../../core/files/file-repository.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import { fileRow } from './file-rows.js';
import { repeatedStatement } from './precompiled-query.js';
import type { HangarDatabase } from './schema.js';

/**
 * Several uploads of one account on Postgres in one statement (one round trip, its own transaction),
 * data-modifying CTEs in this order: the records are inserted, then the account's totals claim all
 * of them at once, an upsert whose insert (the account's first files) and update (`where` the limits
 * still hold for the whole batch) both check the limits. Postgres re-checks the update's `where` on
 * the latest version of the row it locked, so concurrent uploads of one account, in any process,
 * succeed exactly as many as fit. A refused claim makes `hangar_upload_claimed` (migration 0038)
 * raise {@link UPLOAD_REFUSED_SQLSTATE}, which undoes the records' insert with the rest; a unique or
 * foreign-key violation fails the whole statement too. So nothing is written unless all of it is.
 *
 * Why the records come first: the claim locks the account's `account_totals` row until the
 * statement ends, and every upload of the account waits for that lock; inserted first, the records'
 * heap rows and index entries (the trigram index among them) are written before the lock is taken.
 *
 * Every value is bound by name below, each column of the files' rows (fileRow.write) as one array
 * with one element per file; the statement's text ({@link POSTGRES_BATCH_INSERT_SQL}) is the same
 * for any number of files, so it is prepared once per connection.
 * @param files the uploads, all of `userId`, at least one
 */
export function batchInsert(userId: string, limits: QuotaLimits, files: readonly StoredFile[]): CompiledQuery<{ inserted: number }> {
  const rows = files.map(fileRow.write);
  const column = <K extends keyof (typeof rows)[number]>(name: K) => rows.map((row) => row[name]);
  const query = sql<{ inserted: number }>`with batch as (
  select * from unnest(
    ${column('id')}::text[], ${column('file_id')}::text[], ${column('name')}::text[], ${column('content_type')}::text[],
    ${column('size')}::bigint[], ${column('sha256')}::text[], ${column('is_public')}::integer[], ${column('created_at')}::bigint[],
    ${column('blob_key')}::text[], ${column('search_text')}::text[], ${column('expires_at')}::bigint[], ${column('metadata_removed')}::text[]
  ) as b (id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text, expires_at, metadata_removed)
), inserted as (
  insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text, expires_at, metadata_removed)
  select id, ${userId}::text, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text, expires_at, metadata_removed from batch
  returning user_id, size, is_public
), added as (
  select ${userId}::text as user_id, count(*) as files, sum(size)::bigint as bytes, sum(is_public)::bigint as public_files from inserted
), claimed as (
  insert into account_totals as t (user_id, storage_bytes, files_count, public_files_count)
  select user_id, bytes, files, public_files from added where files <= ${limits.fileCountLimit}::bigint and bytes <= ${limits.storageLimitBytes}::bigint
  on conflict (user_id) do update set
    files_count = t.files_count + excluded.files_count,
    storage_bytes = t.storage_bytes + excluded.storage_bytes,
    public_files_count = t.public_files_count + excluded.public_files_count,
    changes = t.changes + 1
  where t.files_count + t.reserved_files + excluded.files_count <= ${limits.fileCountLimit}::bigint
    and t.storage_bytes + t.reserved_bytes + excluded.storage_bytes <= ${limits.storageLimitBytes}::bigint
  returning t.user_id
)
select hangar_upload_claimed((select count(*) from claimed)) as inserted`;
  return query.compile(POSTGRES_COMPILER);
}

/** Compiles Postgres SQL without a connection (Kysely's documented "cold" instance). */
const POSTGRES_COMPILER = new Kysely<HangarDatabase>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** The text of every {@link batchInsert} statement, whatever its values (one of the REPEATED_STATEMENTS). */
export const POSTGRES_BATCH_INSERT_SQL = repeatedStatement(batchInsert('', { fileCountLimit: 0, storageLimitBytes: 0 }, []).sql);

/**
 * The SQLSTATE with which {@link batchInsert} fails when the account's limits refuse the files
 * (raised by `hangar_upload_claimed`, migration 0038): nothing of the statement was written.
 */
export const UPLOAD_REFUSED_SQLSTATE = 'HG001';

/**
 * SQLSTATEs after which a failed batch is sent again one upload at a time, so that each upload gets
 * its own answer: a refused claim (UPLOAD_REFUSED_SQLSTATE, `HG001`: maybe only the last files do not
 * fit), a unique violation (`23505`: one file id taken), a foreign-key violation (`23503`: the account
 * was deleted), a deadlock or serialization failure (`40P01`, `40001`). Any other failure (the
 * database unreachable, a timeout) is every upload's answer.
 */
const SEND_ALONE_AFTER = new Set(['HG001', '23505', '23503', '40P01', '40001']);

/** Options of {@link PostgresUploadBatches}. */
export interface PostgresUploadBatchesOptions {
  /** Uploads per statement at most; default {@link UPLOAD_BATCH_MAX}. */
  maxBatch?: number;
  /** Statements of one account (and limits) in flight at once per process; default {@link UPLOAD_BATCHES_IN_FLIGHT}. */
  maxInFlight?: number;
}

/** Default {@link PostgresUploadBatchesOptions.maxBatch}. */
export const UPLOAD_BATCH_MAX = 64;
/** Default {@link PostgresUploadBatchesOptions.maxInFlight}. */
export const UPLOAD_BATCHES_IN_FLIGHT = 2;

/** One upload waiting for its statement. */
interface Waiting {
  file: StoredFile;
  resolve(result: InsertResult): void;
  reject(error: unknown): void;
}

/** The uploads of one account and limits: those waiting, and how many statements are in flight. */
interface Lane {
  userId: string;
  limits: QuotaLimits;
  waiting: Waiting[];
  inFlight: number;
  scheduled: boolean;
}

/**
 * Group insert of uploads on Postgres: the records of uploads of one account (with the same quota
 * limits) that wait at the same time are written by one {@link batchInsert}, as group
 * commit shares one WAL flush. An upload is sent once the current turn of the event loop has run
 * (the requests received together join it) when fewer than `maxInFlight` statements of its account
 * are running, otherwise as soon as one ends, with every upload that waited meanwhile (up to
 * `maxBatch`). A lone upload is sent alone, by the single upload's statement, with no delay beyond
 * that turn. A batch that fails with one of the SQLSTATEs after which each upload's own answer may
 * differ (a limit reached partway, a taken file id, a deadlock) wrote nothing, and is sent again one
 * upload at a time; any other failure is every upload's answer.
 *
 * Why: a statement's fixed costs on Postgres (executor start-up, the statement-level triggers, the
 * commit and its WAL flush, the round trip) and the account's totals upsert are then
 * paid once per batch instead of once per upload (bench/README.md, thirteenth session). One account
 * per statement keeps the order in which rows are locked that of a single upload (files, then the
 * account's totals), so batches of different accounts cannot deadlock.
 *
 * Per process: processes batch their own uploads, and their statements meet on the account's totals
 * row as single uploads do.
 */
export class PostgresUploadBatches {
  private readonly lanes = new Map<string, Lane>();
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  /**
   * @param db the database (its executor answers a write after its commit is durable)
   * @param insertAlone the single upload's insert, for a lone upload and for a failed batch's uploads
   */
  constructor(
    private readonly db: Kysely<HangarDatabase>,
    private readonly insertAlone: (file: StoredFile, limits: QuotaLimits) => Promise<InsertResult>,
    options: PostgresUploadBatchesOptions = {},
  ) {
    this.maxBatch = Math.max(1, options.maxBatch ?? UPLOAD_BATCH_MAX);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? UPLOAD_BATCHES_IN_FLIGHT);
  }

  /**
   * Inserts `file` (a new upload's record) within `limits`, with the uploads of its account waiting
   * at the same time. Answers as the single insert does: `'inserted'`, or which limit refused it.
   * @throws what the single insert throws (a unique violation, a foreign-key violation, the database unavailable)
   */
  insert(file: StoredFile, limits: QuotaLimits): Promise<InsertResult> {
    const key = `${file.userId}\u0000${limits.fileCountLimit}\u0000${limits.storageLimitBytes}`;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { userId: file.userId, limits, waiting: [], inFlight: 0, scheduled: false };
      this.lanes.set(key, lane);
    }
    const waiting = lane.waiting;
    const answer = new Promise<InsertResult>((resolve, reject) => waiting.push({ file, resolve, reject }));
    if (!lane.scheduled && lane.inFlight < this.maxInFlight) {
      lane.scheduled = true;
      const scheduledLane = lane;
      setImmediate(() => {
        scheduledLane.scheduled = false;
        this.send(key, scheduledLane);
      });
    }
    return answer;
  }

  /** Sends what waits in `lane`, in statements of at most `maxBatch`, while fewer than `maxInFlight` run. */
  private send(key: string, lane: Lane): void {
    while (lane.waiting.length > 0 && lane.inFlight < this.maxInFlight) {
      const batch = lane.waiting.splice(0, this.maxBatch);
      lane.inFlight += 1;
      void this.write(lane, batch).finally(() => {
        lane.inFlight -= 1;
        this.send(key, lane);
      });
    }
    if (lane.waiting.length === 0 && lane.inFlight === 0 && !lane.scheduled && this.lanes.get(key) === lane) this.lanes.delete(key);
  }

  /** Writes `batch` and answers each of its uploads; never rejects. */
  private async write(lane: Lane, batch: Waiting[]): Promise<void> {
    if (batch.length === 1) {
      await this.alone(batch[0], lane.limits);
      return;
    }
    try {
      await this.db.executeQuery(
        batchInsert(
          lane.userId,
          lane.limits,
          batch.map((waiting) => waiting.file),
        ),
      );
    } catch (error) {
      if (SEND_ALONE_AFTER.has((error as { code?: unknown } | null)?.code as string)) {
        await Promise.all(batch.map((waiting) => this.alone(waiting, lane.limits)));
      } else {
        for (const waiting of batch) waiting.reject(error);
      }
      return;
    }
    for (const waiting of batch) waiting.resolve('inserted');
  }

  /** One upload by the single statement, answered with its own result or error. */
  private async alone(waiting: Waiting, limits: QuotaLimits): Promise<void> {
    try {
      waiting.resolve(await this.insertAlone(waiting.file, limits));
    } catch (error) {
      waiting.reject(error);
    }
  }
}
