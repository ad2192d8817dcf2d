import { type Kysely, type RawBuilder, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0007: `file_histogram` also by content type. The table is rebuilt with `content_type` in its key,
 * `(user_id, content_type, dimension, bucket, is_public)`: the rows of 0006 are kept as the rows of
 * all types (`content_type` '', ALL_TYPES in file-histogram.ts), and the rows of each content type
 * are backfilled from the stored files with the buckets of 0006. Each upload then adds six rows
 * (its three buckets for all types and for its own type) in one statement, and a listing filtered
 * by `type`, alone or with one range and visibility, is totalled from the rows of that type instead
 * of counted (the listing measurements of the time, kept in git history: `type=image/png&sizeMin=1000000` on 1,000,000 files took
 * 178–277 ms counted). Same rules as 0006: `on delete cascade`, `WITHOUT ROWID` on SQLite.
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
    .createTable('file_histogram_0007')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull().check(sql`dimension in ('day', 'hour', 'size')`))
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('is_public', 'integer', (c) => c.notNull().check(sql`is_public in (0, 1)`))
    .addColumn('files', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_histogram_0007_pkey', ['user_id', 'content_type', 'dimension', 'bucket', 'is_public'])
    .$call((table) => (dialect === 'postgres' ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  await sql`
      insert into file_histogram_0007 (user_id, content_type, dimension, bucket, is_public, files)
      select user_id, '', dimension, bucket, is_public, files from file_histogram
    `.execute(db);
  for (const { dimension, bucket } of bucketedFiles('user_id, content_type, is_public')) {
    await sql`
        insert into file_histogram_0007 (user_id, content_type, dimension, bucket, is_public, files)
        select user_id, content_type, ${sql.lit(dimension)}, bucket, is_public, count(*) from (${bucket}) bucketed
        group by user_id, content_type, bucket, is_public
      `.execute(db);
  }
  await db.schema.dropTable('file_histogram').execute();
  await db.schema.alterTable('file_histogram_0007').renameTo('file_histogram').execute();
  if (dialect === 'postgres') await sql`alter table file_histogram rename constraint file_histogram_0007_pkey to file_histogram_pkey`.execute(db);
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
