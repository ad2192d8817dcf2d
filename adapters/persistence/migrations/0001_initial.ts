import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0001: every table of the first release. Types are chosen to mean the same on SQLite and
 * Postgres: `text`, `bigint` (SQLite gives it INTEGER affinity) for Unix-ms timestamps and byte
 * counts, `integer` 0/1 for booleans.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('email_confirmed_at', 'bigint')
    .addColumn('max_upload_size_bytes', 'bigint')
    .addColumn('last_email_sent_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_email_unique').unique().on('users').column('email').execute();

  await db.schema
    .createTable('one_time_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('email_confirmation', 'password_reset')`))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('redirect_to', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('one_time_tokens_token_hash_unique').unique().on('one_time_tokens').column('token_hash').execute();
  await db.schema.createIndex('one_time_tokens_user_id_purpose').on('one_time_tokens').columns(['user_id', 'purpose']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey().notNull())
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('rotated_at', 'bigint')
    .execute();
  await db.schema.createIndex('refresh_tokens_session_id').on('refresh_tokens').column('session_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_key_hash_unique').unique().on('api_keys').column('key_hash').execute();
  await db.schema.createIndex('api_keys_user_id_created_at_id').on('api_keys').columns(['user_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('is_public', 'integer', (c) => c.notNull().check(sql`is_public in (0, 1)`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('search_text', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('files_file_id_unique').unique().on('files').column('file_id').execute();
  await db.schema.createIndex('files_user_id_created_at_id').on('files').columns(['user_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('files_user_id_content_type').on('files').columns(['user_id', 'content_type']).execute();
  await db.schema.createIndex('files_user_id_size').on('files').columns(['user_id', 'size']).execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
