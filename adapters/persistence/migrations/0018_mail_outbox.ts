import { type Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0018: `mail_outbox`, e-mails accepted for sending and not yet sent (SqlMailOutbox): a message is
 * a row from the moment `send` resolves, so a crash loses none; any process sending mail claims a
 * due row (`claimed_by`, a lease until `claimed_until`, Unix ms) with a conditional update before
 * delivering it, so two processes never send one message at once. `attempts` counts deliveries
 * tried; a failed one is retried at `next_attempt_at` with backoff; `sent_at` / `failed_at` (given
 * up) end it. Due rows are found through `mail_outbox_due`.
 */

export async function sqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'bigint')
    .addColumn('failed_at', 'bigint')
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['sent_at', 'failed_at', 'next_attempt_at']).execute();
}

/** The same statements as on SQLite. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sqlite(db);
}
