import { CompiledQuery, type Kysely } from 'kysely';
import type { InsertResult, QuotaLimits } from '../../../core/files/file-repository.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import { fileSearchText } from '../file-search.js';
import { ALL_TYPES, histogramKeysOf } from './file-histogram.js';
import { repeatedStatement } from './precompiled-query.js';
import { toFlag, toMillis, toNullableMillis } from './rows.js';
import type { HangarDatabase } from './schema.js';

/**
 * Several uploads of one account on Postgres in one statement (one round trip, one transaction):
 * the single upload's statement (POSTGRES_INSERT_SQL, sql-file-repository.ts) for a list of files.
 * The records are inserted first, then the account's totals claim all of them at once (an upsert
 * whose insert and update both check the limits for the whole batch, re-checked by Postgres on the
 * row version it locks), then the batch's histogram rows are added, one upsert per distinct row. A
 * claim the limits refuse makes `hangar_upload_claimed` (migration 0038) raise UPLOAD_REFUSED_SQLSTATE
 * and nothing of the batch is written; so does a unique or foreign-key violation of any record.
 *
 * Parameters: $1 user id, $2 file count limit, $3 storage limit (bytes), $4 the all-types marker
 * (ALL_TYPES); then one array per column, one element per file, in the same order: $5 record ids,
 * $6 file ids, $7 names, $8 content types, $9 sizes (bytes), $10 SHA-256 digests, $11 public flags
 * (0/1), $12 created at (Unix ms), $13 blob keys, $14 search texts, $15 expires at (Unix ms or
 * null), $16 day, $17 hour and $18 size buckets (histogramKeysOf). Answers one row, `inserted` 1.
 */
export const POSTGRES_BATCH_INSERT_SQL = repeatedStatement(`with batch as (
  select * from unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::integer[], $12::bigint[], $13::text[], $14::text[], $15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[])
    as b (id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text, expires_at, day, hour, size_bucket)
), inserted as (
  insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text, expires_at)
  select id, $1::text, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text, expires_at from batch
  returning user_id, size, is_public
), added as (
  select $1::text as user_id, count(*) as files, sum(size)::bigint as bytes, sum(is_public)::bigint as public_files from inserted
), claimed as (
  insert into account_totals as t (user_id, storage_bytes, files_count, public_files_count, changes)
  select user_id, bytes, files, public_files, files from added where files <= $2::bigint and bytes <= $3::bigint
  on conflict (user_id) do update set
    files_count = t.files_count + excluded.files_count,
    storage_bytes = t.storage_bytes + excluded.storage_bytes,
    public_files_count = t.public_files_count + excluded.public_files_count,
    changes = t.changes + excluded.changes
  where t.files_count + t.reserved_files + excluded.files_count <= $2::bigint and t.storage_bytes + t.reserved_bytes + excluded.storage_bytes <= $3::bigint
  returning t.user_id
), histogram as (
  insert into file_histogram as h (user_id, content_type, dimension, bucket, is_public, files)
  select claimed.user_id, k.content_type, k.dimension, k.bucket, batch.is_public, count(*)
  from claimed cross join batch cross join lateral (values
    ($4::text, 'day', batch.day), ($4::text, 'hour', batch.hour), ($4::text, 'size', batch.size_bucket),
    (batch.content_type, 'day', batch.day), (batch.content_type, 'hour', batch.hour), (batch.content_type, 'size', batch.size_bucket)
  ) as k (content_type, dimension, bucket)
  group by claimed.user_id, k.content_type, k.dimension, k.bucket, batch.is_public
  on conflict (user_id, content_type, dimension, bucket, is_public) do update set files = h.files + excluded.files
  returning 1
)
select hangar_upload_claimed((select count(*) from claimed)) as inserted, (select count(*) from histogram)::integer as histogram_rows`);

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
 * limits) that wait at the same time are written by one {@link POSTGRES_BATCH_INSERT_SQL}, as group
 * commit shares one WAL flush. An upload is sent once the current turn of the event loop has run
 * (the requests received together join it) when fewer than `maxInFlight` statements of its account
 * are running, otherwise as soon as one ends, with every upload that waited meanwhile (up to
 * `maxBatch`). A lone upload is sent alone, by the single upload's statement, with no delay beyond
 * that turn. A batch that fails with one of the SQLSTATEs after which each upload's own answer may
 * differ (a limit reached partway, a taken file id, a deadlock) wrote nothing, and is sent again one
 * upload at a time; any other failure is every upload's answer.
 *
 * Why: a statement's fixed costs on Postgres (executor start-up, the statement-level triggers, the
 * commit and its WAL flush, the round trip) and the account's totals and histogram upserts are then
 * paid once per batch instead of once per upload (bench/README.md, thirteenth session). One account
 * per statement keeps the order in which rows are locked that of a single upload (files, then the
 * account's totals, then its histogram rows), so batches of different accounts cannot deadlock.
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
      await this.alone(batch[0]!, lane.limits);
      return;
    }
    try {
      await this.db.executeQuery(CompiledQuery.raw(POSTGRES_BATCH_INSERT_SQL, batchParameters(lane.userId, lane.limits, batch.map((waiting) => waiting.file))));
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

/** The parameters of {@link POSTGRES_BATCH_INSERT_SQL} for `files`, all of `userId`. */
function batchParameters(userId: string, limits: QuotaLimits, files: readonly StoredFile[]): unknown[] {
  const columns: unknown[][] = Array.from({ length: 14 }, () => new Array<unknown>(files.length));
  files.forEach((file, i) => {
    const [day, hour, size] = histogramKeysOf({ createdAtMs: toMillis(file.createdAt), size: file.size });
    const values = [
      file.id, file.fileId, file.name, file.contentType, file.size, file.sha256, toFlag(file.isPublic), toMillis(file.createdAt), file.blobKey,
      fileSearchText(file), toNullableMillis(file.expiresAt), day.bucket, hour.bucket, size.bucket,
    ];
    for (let column = 0; column < values.length; column++) columns[column]![i] = values[column];
  });
  return [userId, limits.fileCountLimit, limits.storageLimitBytes, ALL_TYPES, ...columns];
}
