import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0011: `service_secrets`, secrets the service generates once for every process sharing the
 * database: the HS256 key of session tokens when JWT_SECRET is not set (apps/server/jwt-secret.ts),
 * inserted by whichever process comes first (`on conflict do nothing`) and read by all.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('service_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey().notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
