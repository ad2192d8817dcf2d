/**
 * 0046: signed upload URLs (docs/media.md). `upload_urls` holds each minted URL's grant (the account,
 * its lifetime, size and media type limits, the stored file's name, visibility and expiry) and
 * `used_at`, set by the one upload that claims it: a conditional update, so a URL uploads one file
 * across every process; `resumable_upload_id`, the tus upload started through it (the only one its later
 * PATCH and HEAD requests reach); `api_key_id`, the API key that minted it, if any. Rows go with their
 * account and with that key (`on delete cascade`: revoking the key revokes its URLs); `upload_urls_expires_at`
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
    .addColumn('api_key_id', 'text', (c) => c.references('api_keys.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('upload_urls_user_id').on('upload_urls').column('user_id').execute();
  await db.schema.createIndex('upload_urls_expires_at').on('upload_urls').column('expires_at').execute();
  await db.schema.createIndex('upload_urls_api_key_id').on('upload_urls').column('api_key_id').execute();
}

export async function sqlite(db: Kysely<any>): Promise<void> {
  await createUploadUrls(db);
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await createUploadUrls(db);
}
