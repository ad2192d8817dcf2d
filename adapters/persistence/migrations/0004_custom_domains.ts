import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0004: custom domains (spec 2.5, 4.14), one row per account. `hostname` is unique across accounts
 * (`custom_domains_hostname_unique`), so of two accounts racing for one hostname only one row is
 * written. DNS records and provider errors are JSON text, the same on both dialects; timestamps are
 * `bigint` Unix ms as in 0001.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('custom_domains')
    .addColumn('user_id', 'text', (c) => c.primaryKey().notNull().references('users.id').onDelete('cascade'))
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('verification_status', 'text', (c) => c.notNull())
    .addColumn('ssl_status', 'text', (c) => c.notNull())
    .addColumn('dns_records', 'text', (c) => c.notNull())
    .addColumn('errors', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_domains_hostname_unique').unique().on('custom_domains').column('hostname').execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
