import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0012: `image_variants`, one row per derived image of a file (core/images/image-variant-repository.ts):
 * the claim that lets one process compute a new variant and count it once (`state` 'computing',
 * `claim_token`, `claimed_until` in Unix ms: the lease after which another process may take it
 * over), then the stored variant and its size in bytes (`state` 'stored'), counted in the owner's
 * `account_totals.storage_bytes`. Rows go with their file (`on delete cascade`; the file delete
 * subtracts their bytes first).
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('image_variants')
    .addColumn('file_record_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('computing', 'stored')`))
    .addColumn('claim_token', 'text')
    .addColumn('claimed_until', 'bigint', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('image_variants_pkey', ['file_record_id', 'variant'])
    .execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
