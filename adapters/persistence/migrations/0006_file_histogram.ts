import { type Kysely, type RawBuilder, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0006: `file_histogram`, per account the number of files in each bucket of upload time (UTC `day`
 * and `hour`) and of size (`size`, 32 classes per octave), by visibility; the bucket schemes and why
 * are in file-histogram.ts. SqlFileRepository totals a listing filtered by one range from it
 * (the listing measurements of the time, kept in git history) and keeps it in the transactions that insert and delete files.
 * Primary key `(user_id, dimension, bucket, is_public)`: a range of buckets of one dimension is one
 * index range. Rows go with their account (`on delete cascade`, as `account_totals`); a bucket
 * whose files are all deleted keeps a row with 0. SQLite stores the table `WITHOUT ROWID`, in key order.
 *
 * The backfill computes the buckets of the files already stored in SQL, the same on both dialects
 * (integer arithmetic only, no log functions, which SQLite may lack): the day and hour by floor
 * division, the size class from `e = ⌊log2 size⌋` summed from 62 comparisons. The SQL is written
 * out here, not derived from file-histogram.ts, so that this released migration never changes;
 * test/contracts/sql-migrations.test.ts checks it against the JavaScript.
 */

/** SQLite stores the table `WITHOUT ROWID`. */
export async function sqlite(db: Kysely<any>): Promise<void> {
  await up(db, 'sqlite');
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await up(db, 'postgres');
}

async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('file_histogram')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull().check(sql`dimension in ('day', 'hour', 'size')`))
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('is_public', 'integer', (c) => c.notNull().check(sql`is_public in (0, 1)`))
    .addColumn('files', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_histogram_pkey', ['user_id', 'dimension', 'bucket', 'is_public'])
    .$call((table) => (dialect === 'postgres' ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  for (const { dimension, bucket } of bucketedFiles('user_id, is_public')) {
    await sql`
        insert into file_histogram (user_id, dimension, bucket, is_public, files)
        select user_id, ${sql.lit(dimension)}, bucket, is_public, count(*) from (${bucket}) bucketed group by user_id, bucket, is_public
      `.execute(db);
  }
}

/**
 * For each dimension of `file_histogram`, a query of the stored files' buckets: one row per file
 * with `columns` (SQL, e.g. `user_id, is_public`) and its `bucket` (see above for the
 * arithmetic). 0006 and 0007 each hold a copy; the SQL it produces must never change.
 */
function bucketedFiles(columns: string): Array<{ dimension: 'day' | 'hour' | 'size'; bucket: RawBuilder<unknown> }> {
  const selected = sql.raw(columns);
  const floorDiv = (width: number) => sql`(created_at - (((created_at % ${sql.lit(width)}) + ${sql.lit(width)}) % ${sql.lit(width)})) / ${sql.lit(width)}`;
  const log2 = sql.join(
    Array.from({ length: 62 }, (_, i) => sql`case when size >= ${sql.lit(2n ** BigInt(i + 1))} then 1 else 0 end`),
    sql` + `,
  );
  const sizeClass = sql`case when size < 64 then size else 32 * (e - 5) + (size >> (e - 5)) end`;
  return [
    { dimension: 'day', bucket: sql`select ${selected}, ${floorDiv(86_400_000)} as bucket from files` },
    { dimension: 'hour', bucket: sql`select ${selected}, ${floorDiv(3_600_000)} as bucket from files` },
    { dimension: 'size', bucket: sql`select ${selected}, ${sizeClass} as bucket from (select ${selected}, size, ${log2} as e from files) sized` },
  ];
}
