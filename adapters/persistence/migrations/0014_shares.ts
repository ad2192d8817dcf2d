import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0014 (docs/private-files.md): `shares`, the share links of files, removed with their file (by record id) and
 * their user; looked up by id (the primary key), listed by user and file.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shares')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('file_record_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('password_hash', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('max_downloads', 'bigint')
    .addColumn('downloads', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shares_user_id_file_id').on('shares').columns(['user_id', 'file_id', 'created_at']).execute();
  await db.schema.createIndex('shares_file_record_id').on('shares').column('file_record_id').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
