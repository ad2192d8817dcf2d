import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0032, SQLite only: the substring index of `q`: the contentless FTS5 table `files_search`, the
 * triggers on `files` that keep it, and a document for every file already stored, computed here in
 * JavaScript in batches of rowids. Postgres has its trigram (0003) and gram (0031) indexes.
 *
 * A document is a list of alphanumeric tokens (FTS5's `ascii` tokenizer splits on everything
 * else), each prefixed with the owner's account key (16 hex digits of SHA-256 of the user id):
 * one per distinct 1-, 2- and 3-code-point gram of `search_text` (grams across the name/file-id
 * line feed left out), one for the content type, one for the visibility, and one per level of a
 * base-4 hierarchy of buckets for the upload day and the size class. The insert and update
 * triggers call the SQL function `hangar_file_search_document`, which the application registers on
 * its connections; 0033 replaces them by triggers that only note the file as pending.
 *
 * The token scheme below is a frozen copy of what the application computed when this migration
 * was written (node:crypto's SHA-256 is the only thing it takes from outside this file).
 */

/** The FTS table, the triggers that keep it, then a document for every stored file. */
export async function sqlite(db: Kysely<any>): Promise<void> {
  for (const statement of SCHEMA) await sql.raw(statement).execute(db);
  await buildDocuments(db);
}

/** Nothing to do on Postgres (see above). */
export async function postgres(_db: Kysely<any>): Promise<void> {
  // Nothing on Postgres.
}

const SCHEMA: readonly string[] = [
  `create virtual table files_search using fts5(document, content='', contentless_delete=1, detail=none, tokenize='ascii')`,
  `create trigger files_search_insert after insert on files begin
    insert into files_search (rowid, document) values (new.rowid, hangar_file_search_document(new.user_id, new.search_text, new.content_type, new.is_public, new.size, new.created_at));
  end`,
  `create trigger files_search_delete after delete on files begin
    delete from files_search where rowid = old.rowid;
  end`,
  `create trigger files_search_update after update of search_text, content_type, is_public, size, created_at, user_id on files
  when old.search_text is not new.search_text or old.content_type is not new.content_type or old.is_public is not new.is_public or old.size is not new.size
    or old.created_at is not new.created_at or old.user_id is not new.user_id begin
    delete from files_search where rowid = old.rowid;
    insert into files_search (rowid, document) values (new.rowid, hangar_file_search_document(new.user_id, new.search_text, new.content_type, new.is_public, new.size, new.created_at));
  end`,
];

/** Rows of `files` per batch of {@link buildDocuments}. */
const BATCH = 2_000;

/** Writes `files_search` from every row of `files`, in batches of {@link BATCH} rows in rowid order. */
async function buildDocuments(db: Kysely<any>): Promise<void> {
  let last = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const { rows } = await sql<{ r: number; user_id: string; search_text: string; content_type: string; is_public: number; size: number; created_at: number }>`
      select rowid as r, user_id, search_text, content_type, is_public, size, created_at from files where rowid > ${last} order by rowid limit ${BATCH}
    `.execute(db);
    if (rows.length === 0) break;
    const values = rows.map(
      (row) => sql`(${row.r}, ${fileSearchDocument({
          userId: row.user_id, searchText: row.search_text, contentType: row.content_type, isPublic: Number(row.is_public), size: Number(row.size), createdAtMs: Number(row.created_at),
        })})`,
    );
    // 2 parameters per row: a few hundred rows per statement stay far under SQLite's parameter limit.
    for (let start = 0; start < values.length; start += 500) {
      await sql`insert into files_search (rowid, document) values ${sql.join(values.slice(start, start + 500))}`.execute(db);
    }
    last = rows[rows.length - 1].r;
    if (rows.length < BATCH) break;
  }
}

/** The line feed that separates name and file id in `search_text`. */
const SEPARATOR_CODE_POINT = 0x0a;

/** The account's key in every token: 16 hex digits (64 bits) of SHA-256 of the user id. */
function accountKey(userId: string): string {
  return createHash('sha256').update(userId).digest('hex').slice(0, 16);
}

/** The token of a content type in the account with key `key`. */
function typeToken(key: string, contentType: string): string {
  return `${key}t${createHash('sha256').update(contentType).digest('hex').slice(0, 16)}`;
}

/** The token of a visibility (1 public, 0 private) in the account with key `key`. */
function visibilityToken(key: string, flag: 0 | 1): string {
  return `${key}v${flag}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The code points of `text` as SQLite stores it: a lone surrogate becomes U+FFFD. */
function codePointsOf(text: string): number[] {
  return Array.from(text.replace(LONE_SURROGATE, '\uFFFD'), (character) => character.codePointAt(0)!);
}

/** The document of one file: its tokens, each once, separated by spaces. */
function fileSearchDocument(file: { userId: string; searchText: string; contentType: string; isPublic: number; size: number; createdAtMs: number }): string {
  const key = accountKey(file.userId);
  const tokens = new Set<string>([typeToken(key, file.contentType), visibilityToken(key, file.isPublic === 1 ? 1 : 0)]);
  for (const [dimension, value] of [['day', file.createdAtMs], ['size', file.size]] as const) {
    let bucket = clampedBucket(dimension, Number.isFinite(value) ? value : 0);
    for (let level = 0; level < RANGE_DIMENSIONS[dimension].levels; level++, bucket = Math.floor(bucket / 4)) tokens.add(rangeToken(key, dimension, level, bucket));
  }
  // Each code point's digits once; a gram's token is the key, `g` and its code points' digits (4 base-36 digits each).
  const points = codePointsOf(file.searchText);
  const digits = points.map((codePoint) => codePoint.toString(36).padStart(4, '0'));
  for (let start = 0; start < points.length; start++) {
    let token = `${key}g`;
    for (let end = start; end < start + 3 && end < points.length; end++) {
      if (points[end] === SEPARATOR_CODE_POINT) break;
      token += digits[end];
      tokens.add(token);
    }
  }
  return [...tokens].join(' ');
}

/** A UTC day in milliseconds. */
const DAY_MS = 86_400_000;

/** Added to a UTC day's number (days since the epoch) to give its `day` bucket. */
const DAY_BUCKET_SHIFT = 2 ** 21;

/** `Math.floor(value / width)` exactly for any safe integer `value`. */
function floorDiv(value: number, width: number): number {
  return (value - (((value % width) + width) % width)) / width;
}

/** The number of bits of a non-negative safe integer (0 for 0): 1 + floor(log2(value)). */
function bitLength(value: number): number {
  if (value < 2 ** 32) return 32 - Math.clz32(value);
  return 64 - Math.clz32(Math.floor(value / 2 ** 32));
}

/**
 * The size class of `size` bytes (a non-negative safe integer): the size itself below 64, else
 * `32·(e − 5) + ⌊size / 2^(e − 5)⌋` with `e = ⌊log2 size⌋`.
 * @throws RangeError when `size` is negative or not a safe integer
 */
function sizeBucket(size: number): number {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`A file size must be a non-negative safe integer, got ${size}.`);
  if (size < 64) return size;
  const shift = bitLength(size) - 1 - 5;
  return 32 * shift + Math.floor(size / 2 ** shift);
}

/** The two range dimensions: token letter, base-4 levels, and the bucket of a value. */
const RANGE_DIMENSIONS = {
  day: { letter: 'd', levels: 11, bucket: (ms: number) => floorDiv(Math.trunc(ms), DAY_MS) + DAY_BUCKET_SHIFT },
  size: { letter: 's', levels: 6, bucket: (bytes: number) => (bytes <= 0 ? 0 : Number.isSafeInteger(bytes) ? sizeBucket(bytes) : Number.MAX_SAFE_INTEGER) },
} as const;
type RangeDimension = keyof typeof RANGE_DIMENSIONS;

/** `value`'s bucket in `dimension` (ms for `day`, bytes for `size`), clamped to [0, 4^levels). */
function clampedBucket(dimension: RangeDimension, value: number): number {
  const { levels, bucket } = RANGE_DIMENSIONS[dimension];
  const b = bucket(value);
  return Math.min(Math.max(b, 0), 4 ** levels - 1);
}

/** The token of bucket `index` at `level` of `dimension`. */
function rangeToken(key: string, dimension: RangeDimension, level: number, index: number): string {
  return `${key}${RANGE_DIMENSIONS[dimension].letter}${level.toString(36)}${index.toString(36)}`;
}
