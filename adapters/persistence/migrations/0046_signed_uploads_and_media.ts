/**
 * 0046: signed upload URLs (docs/media.md). `upload_urls` holds each minted URL's grant (the account,
 * its lifetime, size and media type limits, the stored file's name, visibility and expiry) and
 * `used_at`, set by the one upload that claims it: a conditional update, so a URL uploads one file
 * across every process; `resumable_upload_id`, the tus upload started through it (the only one its later
 * PATCH and HEAD requests reach). Rows go with their account (`on delete cascade`); `upload_urls_expires_at`
 * serves the purge of expired URLs.
 */
import type { Kysely } from 'kysely';

async function createUploadUrls(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upload_urls')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('max_size_bytes', 'bigint')
    .addColumn('content_types', 'text')
    .addColumn('name', 'text')
    .addColumn('is_public', 'integer', (c) => c.notNull())
    .addColumn('file_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('resumable_upload_id', 'text')
    .execute();
  await db.schema.createIndex('upload_urls_user_id').on('upload_urls').column('user_id').execute();
  await db.schema.createIndex('upload_urls_expires_at').on('upload_urls').column('expires_at').execute();
}

export async function sqlite(db: Kysely<any>): Promise<void> {
  await createUploadUrls(db);
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await createUploadUrls(db);
}
