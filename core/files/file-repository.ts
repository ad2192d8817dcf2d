import type { FileDeletionReason } from '../webhooks/webhook.js';
import type { Paged, Window } from '../shared/pagination.js';
import type { StoredFile } from './stored-file.js';

/** Filters of `GET /files` (spec 4.9), already validated; all optional, combined with AND. */
export interface FileFilter {
  /** Case-insensitive substring of `name` or `file_id`. */
  q?: string;
  /** Exact content type. */
  type?: string;
  /** Bytes, inclusive. */
  sizeMin?: number;
  sizeMax?: number;
  isPublic?: boolean;
  /** Inclusive bounds on `created_at`. */
  createdAfter?: Date;
  createdBefore?: Date;
  /** Only files with an expiry at or before this time (files without one never match). */
  expiresBefore?: Date;
}

/** What an account stores: exact totals kept with every insert and delete. */
export interface AccountTotals {
  /** Sum of the sizes of its files, in bytes. */
  storageBytes: number;
  filesCount: number;
  /** Bytes reserved by unfinished resumable uploads (ResumableUploadRepository); quotas count them. Absent means 0. */
  reservedBytes?: number;
  /** Unfinished resumable uploads, each counted as a file by quotas. Absent means 0. */
  reservedFiles?: number;
}

/**
 * {@link AccountTotals} as adapters answer them: the reservation members only when there is a
 * reservation, so an account without resumable uploads has the two members it always had.
 */
export function accountTotals(counts: { storageBytes: number; filesCount: number; reservedBytes?: number; reservedFiles?: number }): AccountTotals {
  const { storageBytes, filesCount, reservedBytes = 0, reservedFiles = 0 } = counts;
  return reservedBytes === 0 && reservedFiles === 0 ? { storageBytes, filesCount } : { storageBytes, filesCount, reservedBytes, reservedFiles };
}

/** The limits an insert must stay within (from the account's plan). */
export interface QuotaLimits {
  storageLimitBytes: number;
  fileCountLimit: number;
}

/** What {@link FileRepository.update} changes; an absent member stays as it is. */
export interface FileChanges {
  /** Already cleaned (`parseFileName` rules); null removes the name. */
  name?: string | null;
  isPublic?: boolean;
  /** Null removes the expiry. */
  expiresAt?: Date | null;
}

/** Outcome of {@link FileRepository.insert}. */
export type InsertResult = 'inserted' | 'storage_limit_reached' | 'file_count_limit_reached';

/** Port: persistence of file records and of each account's totals. */
export interface FileRepository {
  /**
   * Stores a new record and adds it to the account's totals in one transaction, only when the totals
   * stay within `limits` afterwards (count + reserved files + 1 ≤ fileCountLimit and bytes + reserved
   * bytes + size ≤ storageLimitBytes; reservations are those of unfinished resumable uploads).
   * Atomic under concurrency: of many inserts racing for the last slot, exactly as many succeed as fit.
   * With `options.fromUpload` (a resumable upload's id), the same transaction marks that `uploading`
   * upload `complete` and releases its reservation (its length and one file), which the check then
   * does not count: completing a reserved upload never fails for lack of room unless the plan shrank.
   * @returns `inserted`, or which limit refused it (nothing stored then; the file-count limit is reported first)
   * @throws when `fileId` or `id` already exists (UploadFile answers FILE_ID_COLLISION then); Error when
   *         `fromUpload` is not an `uploading` upload of the same account (nothing stored then)
   */
  insert(file: StoredFile, limits: QuotaLimits, options?: { fromUpload?: string }): Promise<InsertResult>;
  /** The account's current totals (zeros for an account without files). */
  totals(userId: string): Promise<AccountTotals>;
  /** Looks up by public file id (unique, indexed), whoever owns it. */
  findByFileId(fileId: string): Promise<StoredFile | undefined>;
  /**
   * What a new file's checks read before any byte is written, in one read (one round trip on a
   * database across the network): the account's {@link totals}, and whether any record (of any
   * account) already uses `fileId`, as {@link findByFileId} would find it.
   */
  totalsAndFileIdTaken(userId: string, fileId: string): Promise<{ totals: AccountTotals; fileIdTaken: boolean }>;
  /**
   * One page of the user's files matching `filter`, newest first (created_at, then id, descending).
   * `total` is exact when the adapter knows it without counting rows (kept totals). When it must
   * count and `countLimit` is given, it counts at most `countLimit` matches: more than that answer
   * `{ total: countLimit, totalRelation: 'gte' }`, so a search over a million files never counts
   * them all. Without `countLimit` every total is exact. An exact total has no `totalRelation`.
   */
  list(options: { userId: string; filter: FileFilter; window: Window; countLimit?: number }): Promise<Paged<StoredFile>>;
  /**
   * Deletes the user's records among `fileIds` and subtracts them from its totals, in one transaction.
   * With `expiredBy`, only those whose expiry is at or before it (the expiry sweep: a file whose
   * expiry was moved or removed meanwhile is kept).
   * `reason` (default `deleted`) is declared to the transaction, where the webhook triggers of an SQL
   * adapter read it for `file.deleted` events (docs/webhooks.md); an adapter without events ignores it.
   * @returns the records that were deleted (ids of other accounts and unknown ids are skipped)
   */
  deleteMany(options: { userId: string; fileIds: string[]; expiredBy?: Date; reason?: FileDeletionReason }): Promise<StoredFile[]>;
  /**
   * Changes one of the user's records in one transaction, together with what is kept from it: a
   * rename changes what `q` finds it by; a change of visibility moves the file between the public
   * and private counts of the account's totals. The change is seen by every process's next lookup
   * and listing, as a delete is (no process keeps a record it could serve after the commit).
   * @returns the record as it is after the change, or undefined when the user has no file with this id (nothing changed)
   */
  update(options: { userId: string; fileId: string; changes: FileChanges }): Promise<StoredFile | undefined>;
  /**
   * Up to `limit` records of any account whose `expiresAt` is at or before `now`, soonest first
   * (an index serves it: only due records are read). The expiry sweep deletes them.
   */
  findExpired(options: { now: Date; limit: number }): Promise<StoredFile[]>;
  /**
   * {@link findByFileId} with the owner's signing key (see SigningKeyRepository), in the same one
   * lookup: verifying a signed URL costs no database round trip beyond the file's.
   * `signingKey` is null while the account has never signed a URL.
   */
  findWithSigningKey(fileId: string): Promise<{ file: StoredFile; signingKey: string | null } | undefined>;
  /**
   * Adds read counts to files' `viewCount` and `downloadCount` (each entry: counts since the last
   * flush, by public file id), in one transaction. Ids of files that no longer exist are skipped.
   */
  addReadCounts(entries: readonly { fileId: string; views: number; downloads: number }[]): Promise<void>;
  /**
   * Every record of every account, `limit` at a time, in ascending order of `id` (the primary key),
   * starting after `afterId` (from the start when absent): the reconciler (`fsck`) walks the whole
   * table with it in bounded memory.
   */
  scan(options: { afterId?: string; limit: number }): Promise<StoredFile[]>;
}

/** File ids drawn before giving up; ids are random, so a second draw is already rarer than one in 10^17. */
const FILE_ID_ATTEMPTS = 5;

/**
 * The account's totals and a file id no record uses yet (UploadFile when it reads before the body,
 * CreateResumableUpload): the first draw is checked in the same read as the totals, later ones (a
 * collision) one by one. The blob stores refuse a taken key anyway; the check lets the upload draw
 * again instead of failing.
 * @param draw a new random file id (`ids.base62(FILE_ID_LENGTH)`)
 * @throws Error when {@link FILE_ID_ATTEMPTS} draws were all taken (the generator is not random)
 */
export async function totalsAndNewFileId(files: FileRepository, userId: string, draw: () => string): Promise<{ totals: AccountTotals; fileId: string }> {
  const first = draw();
  const { totals, fileIdTaken } = await files.totalsAndFileIdTaken(userId, first);
  if (!fileIdTaken) return { totals, fileId: first };
  for (let attempt = 1; attempt < FILE_ID_ATTEMPTS; attempt++) {
    const fileId = draw();
    if (!(await files.findByFileId(fileId))) return { totals, fileId };
  }
  throw new Error(`No free file id after ${FILE_ID_ATTEMPTS} draws: the id generator is not random.`);
}
