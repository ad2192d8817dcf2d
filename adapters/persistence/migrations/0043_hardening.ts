import { type Kysely, sql } from 'kysely';

/**
 * 0043 (issue #60, hardening), two columns:
 *
 * `refresh_tokens.sealed_successor`: once a refresh token is rotated, the token that replaced it,
 * sealed with the service's secret box (never in plain text), so that a second refresh with the
 * same token within the reuse interval (two tabs refreshing at once) is answered with the same new
 * token instead of a refusal; after the interval a reuse revokes the session. Null for tokens
 * rotated before (such a reuse is refused, as it was).
 *
 * `shares.api_key_id`, the API key that made a share link (null when
 * a session made it, and for every share made before). It references `api_keys(id)` with
 * `on delete cascade`, so revoking (deleting) a key removes the share links it made in the same
 * statement, on any number of processes, and a key deleted with its account or by a password reset
 * takes its links along too. `shares_api_key_id` keeps that cascade an index lookup.
 *
 * The column is added with `ALTER TABLE … ADD COLUMN … REFERENCES`, which SQLite allows for a
 * column whose default is null (its foreign keys are on: `foreign_keys=ON`).
 */
export async function sqlite(db: Kysely<any>): Promise<void> {
  await sql`alter table refresh_tokens add column sealed_successor text`.execute(db);
  await sql`alter table shares add column api_key_id text references api_keys(id) on delete cascade`.execute(db);
  await sql`create index shares_api_key_id on shares (api_key_id)`.execute(db);
}

/** The same columns, foreign key and index on Postgres. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await sql`alter table refresh_tokens add column sealed_successor text`.execute(db);
  await sql`alter table shares add column api_key_id text references api_keys(id) on delete cascade`.execute(db);
  await sql`create index shares_api_key_id on shares (api_key_id)`.execute(db);
}
