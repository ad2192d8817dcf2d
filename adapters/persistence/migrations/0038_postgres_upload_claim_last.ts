import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0038, Postgres only (SQLite gets nothing): `hangar_upload_claimed(claimed)`, which the one-statement
 * upload (POSTGRES_INSERT_SQL, sql-file-repository.ts) calls with the number of quota claims it made: it answers 1
 * for 1 and otherwise raises SQLSTATE `HG001` (UPLOAD_REFUSED_SQLSTATE), which undoes the whole statement.
 *
 * Why: the statement now inserts the record before it claims the file's place in the account's
 * totals, so that the row lock on `account_totals`, which every upload of the account waits for, is
 * held for the claim and the histogram rows only, not for the record's index entries (the GIN
 * indexes' pending list, and its merge when full, during which every other upload of the account
 * waited). A refused claim then has to undo an insert already made, which only an error can.
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await sql`
      create function hangar_upload_claimed(claimed bigint) returns integer
      language plpgsql
      as $$
      begin
        if claimed = 1 then
          return 1;
        end if;
        raise exception 'hangar: the upload does not fit the account''s limits' using errcode = 'HG001';
      end
      $$
    `.execute(db);
}
