import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0030: `invites` for `REGISTRATION=invite`, by the SHA-256 of their token (unique). Used once:
 * `used_at`/`used_by` are set by a conditional update. `used_by` is the new account's id without a
 * foreign key: the invite is claimed just before the account is inserted, and the record outlives
 * the account.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('invites')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('plan_name', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('used_at', 'bigint')
    .addColumn('used_by', 'text')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('invites_created_at').on('invites').columns(['created_at', 'id']).execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
