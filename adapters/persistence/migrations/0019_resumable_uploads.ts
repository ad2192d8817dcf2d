import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0019: resumable (tus) uploads. `resumable_uploads` holds each upload's offset, partial-blob state
 * and write lease (`lease_owner` until `leased_until`, Unix ms: one PATCH at a time across
 * processes); `account_totals.reserved_bytes` / `reserved_files` sum the unfinished ones, and every
 * quota check counts them, so parallel resumable and plain uploads never exceed a plan together.
 * The expiry sweep finds due uploads through `resumable_uploads_expiry`.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('account_totals').addColumn('reserved_bytes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('account_totals').addColumn('reserved_files', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('resumable_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('file_id', 'text', (c) => c.notNull().unique())
    .addColumn('length', 'bigint', (c) => c.notNull())
    .addColumn('upload_offset', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('is_public', 'integer', (c) => c.notNull())
    .addColumn('file_expires_at', 'bigint')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('partial_state', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('leased_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('resumable_uploads_expiry').on('resumable_uploads').columns(['expires_at']).execute();
  await db.schema.createIndex('resumable_uploads_user').on('resumable_uploads').columns(['user_id']).execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
