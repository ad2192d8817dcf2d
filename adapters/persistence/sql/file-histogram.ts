/**
 * Bucket schemes of `file_histogram` (migration 0006): per account, how many files fall into each
 * bucket of upload time and of size, kept in the transaction that inserts or deletes the files.
 * A listing filtered by one range (`createdAfter`/`createdBefore`, or `sizeMin`/`sizeMax`, with or
 * without `isPublic`) then totals the buckets that lie wholly inside the range and counts exactly,
 * with the indexes of `files`, only the matching rows of the one or two buckets the range cuts
 * (SqlFileRepository; bench/postgres-list-files.md).
 *
 * Why these buckets (measured in bench/postgres-list-files.md):
 * - **Size**: a log scale of 32 classes per octave (each class ~2.2 % wide): the bit length of the
 *   size and the 5 bits after its leading one, computed exactly with integer arithmetic, so the
 *   JavaScript here and the SQL of the migration's backfill agree on every size. Sizes 0–63 have one
 *   class each. Every size up to 2^53 − 1 has one of 1,568 classes, so a range sums at most that
 *   many rows (in practice a few hundred: a real account spans a few decades of sizes). Files
 *   concentrated in a narrow band, e.g. a million photos of 2–5 MB, fill ~42 classes (~24,000 files
 *   each), so the cut class costs at most an index range of that many entries (~4 ms), and only its
 *   matching part is read.
 * - **Upload time**: two levels, UTC days and hours. Summing whole days costs 365 rows per year of
 *   history (hours alone would be 8,760), the ≤ 23 whole hours on either side of them a few rows
 *   more, and the exact count reads at most the matching part of one hour at each end. A burst (an
 *   import of 100,000 files in one hour) costs at most that hour's entries (~15 ms), where a
 *   one-level day scheme would read the whole burst day. Each upload writes three rows (day, hour,
 *   size) in one statement.
 * - Visibility is part of every key, so `isPublic` together with a range is served too (files
 *   never change visibility, so a file stays in its rows); the rows to sum at most double.
 * - The content type too (migration 0007): every file is counted in the rows of all types
 *   ({@link ALL_TYPES}) and in those of its own type, so `type` (exact match) alone or with one
 *   range and visibility is totalled from the rows of that type. Six rows per upload, one statement.
 */

/**
 * The `content_type` of the rows that count files of every content type (migration 0007). Each file
 * counts in its three buckets twice: in the rows of all types and in the rows of its own content
 * type, so that `type`, alone or with one range and visibility, is totalled the same way.
 */
export const ALL_TYPES = '';

/** Which property a histogram row counts files by. */
export type HistogramDimension = 'day' | 'hour' | 'size';

/** Width of a `day` bucket: a UTC day in milliseconds (buckets start at multiples of it from the Unix epoch). */
export const DAY_MS = 86_400_000;
/** Width of an `hour` bucket, in milliseconds. */
export const HOUR_MS = 3_600_000;

/** Classes per octave of the size scale: 2^5 = 32. */
const SUB_OCTAVE_BITS = 5;
const CLASSES_PER_OCTAVE = 2 ** SUB_OCTAVE_BITS;
/** Below this size (64 bytes) every size has its own class. */
const EXACT_BELOW = 2 * CLASSES_PER_OCTAVE;

/** `Math.floor(value / width)` exactly for any safe integer `value` (floating division can round up across an integer). */
export function floorDiv(value: number, width: number): number {
  return (value - (((value % width) + width) % width)) / width;
}

/** The number of bits of a non-negative safe integer (0 for 0): 1 + floor(log2(value)). */
function bitLength(value: number): number {
  if (value < 2 ** 32) return 32 - Math.clz32(value);
  return 64 - Math.clz32(Math.floor(value / 2 ** 32));
}

/**
 * The size class of `size` bytes (a non-negative safe integer): the size itself below 64, else
 * `32·(e − 5) + ⌊size / 2^(e − 5)⌋` with `e = ⌊log2 size⌋`, i.e. the octave and the 5 bits after
 * the leading one. Increasing with `size`; 0 ≤ class ≤ 1,567.
 * @throws RangeError when `size` is negative or not a safe integer
 */
export function sizeBucket(size: number): number {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`A file size must be a non-negative safe integer, got ${size}.`);
  if (size < EXACT_BELOW) return size;
  const shift = bitLength(size) - 1 - SUB_OCTAVE_BITS;
  return CLASSES_PER_OCTAVE * shift + Math.floor(size / 2 ** shift);
}

/** The smallest size (bytes) in class `bucket`; `sizeBucketStart(b + 1) − 1` is the largest. Inverse of {@link sizeBucket} on class starts. */
export function sizeBucketStart(bucket: number): number {
  if (bucket < EXACT_BELOW) return bucket;
  const shift = Math.floor(bucket / CLASSES_PER_OCTAVE) - 1;
  return (bucket - CLASSES_PER_OCTAVE * shift) * 2 ** shift;
}

/** One row of a file in the histogram: its dimension and bucket (visibility is the file's own). */
export interface HistogramKey {
  dimension: HistogramDimension;
  bucket: number;
}

/** The three histogram rows a file counts in: its upload day, its upload hour (Unix ms, UTC) and its size class. */
export function histogramKeysOf(file: { createdAtMs: number; size: number }): [HistogramKey, HistogramKey, HistogramKey] {
  return [
    { dimension: 'day', bucket: floorDiv(file.createdAtMs, DAY_MS) },
    { dimension: 'hour', bucket: floorDiv(file.createdAtMs, HOUR_MS) },
    { dimension: 'size', bucket: sizeBucket(file.size) },
  ];
}

/** An inclusive range; an absent end is open. */
export interface InclusiveRange {
  from?: number;
  to?: number;
}

/**
 * How to total a range: the sum of the histogram rows in `sums` (each an inclusive range of buckets
 * of one dimension) plus the exact count of the files whose value lies in one of `exact` (disjoint
 * inclusive ranges of the value itself: ms or bytes, each inside one or two buckets of the finest level).
 */
export interface RangeCover {
  sums: Array<{ dimension: HistogramDimension } & InclusiveRange>;
  exact: InclusiveRange[];
}

/**
 * The cover of the upload-time range [`from`, `to`] (Unix ms, inclusive; either end may be open,
 * `from` ≤ `to` when both are given): whole days, then whole hours on either side, then the rest exactly.
 */
export function coverTimeRange(range: InclusiveRange): RangeCover {
  const cover: RangeCover = { sums: [], exact: [] };
  coverUniform(range, [{ dimension: 'day', width: DAY_MS }, { dimension: 'hour', width: HOUR_MS }], cover);
  return cover;
}

/** Levels of equal-width buckets, coarsest first: what is not covered by whole buckets of one level goes to the next. */
function coverUniform(range: InclusiveRange, levels: Array<{ dimension: HistogramDimension; width: number }>, cover: RangeCover): void {
  const [level, ...finer] = levels;
  if (level === undefined) {
    cover.exact.push(range);
    return;
  }
  const { from, to } = range;
  // The first bucket starting at or after `from`, the last one ending at or before `to`.
  const first = from === undefined ? undefined : -floorDiv(-from, level.width);
  const last = to === undefined ? undefined : floorDiv(to + 1, level.width) - 1;
  if (first !== undefined && last !== undefined && first > last) {
    coverUniform(range, finer, cover);
    return;
  }
  cover.sums.push({ dimension: level.dimension, from: first, to: last });
  if (first !== undefined && from! < first * level.width) coverUniform({ from, to: first * level.width - 1 }, finer, cover);
  if (last !== undefined && (last + 1) * level.width <= to!) coverUniform({ from: (last + 1) * level.width, to }, finer, cover);
}

/**
 * The cover of the size range [`from`, `to`] (bytes, inclusive, non-negative safe integers; either
 * end may be open, `from` ≤ `to` when both are given): the whole size classes inside it, and exactly
 * the part of the one or two classes it cuts.
 */
export function coverSizeRange(range: InclusiveRange): RangeCover {
  const { from, to } = range;
  let first: number | undefined;
  let last: number | undefined;
  if (from !== undefined) {
    const bucket = sizeBucket(from);
    first = sizeBucketStart(bucket) === from ? bucket : bucket + 1;
  }
  if (to !== undefined) {
    const bucket = sizeBucket(to);
    last = sizeBucketStart(bucket + 1) - 1 === to ? bucket : bucket - 1;
  }
  if (first !== undefined && last !== undefined && first > last) return { sums: [], exact: [range] };
  const cover: RangeCover = { sums: [{ dimension: 'size', from: first, to: last }], exact: [] };
  if (first !== undefined && from! < sizeBucketStart(first)) cover.exact.push({ from, to: sizeBucketStart(first) - 1 });
  if (last !== undefined && sizeBucketStart(last + 1) <= to!) cover.exact.push({ from: sizeBucketStart(last + 1), to });
  return cover;
}
