import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * 0010 (Postgres only; nothing on SQLite, whose processes see commits through the WAL index): the
 * change notifications of the lookups cached on every request's path (docs/scale-out.md). Triggers
 * send `pg_notify('hangar:<schema>', <JSON>)` in the transaction of the change, so a notification
 * goes out exactly when the change commits, whichever statement made it (a route, the admin CLI, a
 * cascade from a deleted account, a route added later):
 * - `users` updated or deleted → `{ kind: 'account', accountId }`;
 * - `api_keys` updated or deleted → `{ kind: 'api_key', keyHash }`;
 * - `sessions` updated or deleted → `{ kind: 'session', sessionId }`;
 * - `custom_domains` inserted, updated or deleted → `{ kind: 'hostname', hostname, accountId }`, for
 *   the hostname before and after;
 * - `files` updated or deleted → `[{ kind: 'file', fileId }, …]`: one statement-level trigger per
 *   statement (transition table), in notifications of at most ~7 KB each (the limit is 8,000 bytes).
 * Inserts of the others are not announced: nobody has looked up a row before it exists (the caches
 * keep no "not found" answer for them; see PostgresLookupCache). Identical notifications within one
 * transaction are sent once (Postgres folds them). The channel is `left('hangar:' || schema, 63)`.
 */

/** Nothing to do on SQLite (see above). */
export async function sqlite(_db: Kysely<any>): Promise<void> {
  // Nothing on SQLite.
}

export async function postgres(db: Kysely<any>): Promise<void> {
  await sql`
      create function hangar_notify_row() returns trigger language plpgsql as $$
      declare
        channel text := left('hangar:' || tg_table_schema, 63);
        rows_changed jsonb[];
        changed jsonb;
      begin
        if tg_op = 'INSERT' then rows_changed := array[to_jsonb(new)];
        elsif tg_op = 'DELETE' then rows_changed := array[to_jsonb(old)];
        else rows_changed := array[to_jsonb(old), to_jsonb(new)];
        end if;
        foreach changed in array rows_changed loop
          perform pg_notify(channel, case tg_table_name
            when 'users' then json_build_object('kind', 'account', 'accountId', changed->>'id')::text
            when 'api_keys' then json_build_object('kind', 'api_key', 'keyHash', changed->>'key_hash')::text
            when 'sessions' then json_build_object('kind', 'session', 'sessionId', changed->>'id')::text
            when 'custom_domains' then json_build_object('kind', 'hostname', 'hostname', changed->>'hostname', 'accountId', changed->>'user_id')::text
            else '{"kind":"everything"}'
          end);
        end loop;
        return null;
      end
      $$
    `.execute(db);
  await sql`
      create function hangar_notify_files() returns trigger language plpgsql as $$
      declare
        channel text := left('hangar:' || tg_table_schema, 63);
        buffer text := '';
        item text;
      begin
        for item in select json_build_object('kind', 'file', 'fileId', file_id)::text from changed_files loop
          if octet_length(buffer) + octet_length(item) > 7000 then
            perform pg_notify(channel, '[' || buffer || ']');
            buffer := '';
          end if;
          buffer := case when buffer = '' then item else buffer || ',' || item end;
        end loop;
        if buffer <> '' then perform pg_notify(channel, '[' || buffer || ']'); end if;
        return null;
      end
      $$
    `.execute(db);
  for (const table of ['users', 'api_keys', 'sessions']) {
    await sql`create trigger ${sql.id(`${table}_changes`)} after update or delete on ${sql.table(table)} for each row execute function hangar_notify_row()`.execute(db);
  }
  await sql`create trigger custom_domains_changes after insert or update or delete on custom_domains for each row execute function hangar_notify_row()`.execute(db);
  await sql`create trigger files_changes_deleted after delete on files referencing old table as changed_files for each statement execute function hangar_notify_files()`.execute(db);
  await sql`create trigger files_changes_updated after update on files referencing old table as changed_files for each statement execute function hangar_notify_files()`.execute(db);
}
