import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * The schema that migrations 0001 to {@link SNAPSHOT_THROUGH} give a fresh database, in one step:
 * a fresh database runs this instead of those migrations, which Kysely then records as applied
 * (sql/migrate.ts); a database that has run any migration gets the history. Written by
 * scripts/migration-snapshot.mjs from a database migrated through the history (SQLite's
 * sqlite_master, Postgres's pg_dump); test/contracts/migration-files.test.ts checks that both
 * paths give the same schema. Like a migration it imports nothing from the application and never
 * changes: a later snapshot is a new file.
 */
export const SNAPSHOT_THROUGH = "0041_postgres_size_covering_index";

/** Every table, index and trigger, as SQLite stores their CREATE statements. */
export async function sqlite(db: Kysely<any>): Promise<void> {
  for (const statement of SQLITE) await sql.raw(statement).execute(db);
}

/**
 * Every table, sequence, function, constraint, index and trigger, then the trigram index of `q`
 * where pg_trgm is installed or can be (with content type and visibility where btree_gin is too),
 * as migrations 0003 and 0040 leave it.
 */
export async function postgres(db: Kysely<any>): Promise<void> {
  for (const statement of POSTGRES) await sql.raw(statement).execute(db);
  if ((await trigramSchema(db)) === undefined && !(await createExtension(db, 'pg_trgm'))) return;
  const schema = sql.id((await trigramSchema(db))!);
  if (await createExtension(db, 'btree_gin')) {
    await sql`create index files_search_text_trgm on files using gin (search_text ${schema}.gin_trgm_ops, content_type, is_public)`.execute(db);
  } else {
    await sql`create index files_search_text_trgm on files using gin (search_text ${schema}.gin_trgm_ops)`.execute(db);
  }
}

/** The name of the schema holding the pg_trgm extension, or undefined when it is not installed. */
async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'
  `.execute(db);
  return rows[0]?.schema;
}

/**
 * Creates the Postgres extension `name` in the current schema unless it is installed already,
 * undoing a failed CREATE EXTENSION to a savepoint (inside the migration's transaction).
 * @returns whether the extension is installed now
 */
async function createExtension(db: Kysely<any>, name: 'pg_trgm' | 'btree_gin'): Promise<boolean> {
  const savepoint = sql.id(`create_${name}`);
  await sql`savepoint ${savepoint}`.execute(db);
  try {
    await sql`create extension if not exists ${sql.id(name)}`.execute(db);
    await sql`release savepoint ${savepoint}`.execute(db);
    return true;
  } catch {
    await sql`rollback to savepoint ${savepoint}`.execute(db);
    return false;
  }
}

const SQLITE: readonly string[] = [
  `CREATE TABLE "users" ("id" text not null primary key, "email" text not null, "password_hash" text not null, "email_confirmed_at" bigint, "max_upload_size_bytes" bigint, "last_email_sent_at" bigint, "created_at" bigint not null, "updated_at" bigint not null, "plan_name" text default '' not null, "trial_ends_at" bigint, "access_until" bigint, "subscription_canceled_at" bigint, "signing_key" text, "last_reset_email_sent_at" bigint)`,
  `CREATE TABLE "one_time_tokens" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "purpose" text not null check (purpose in ('email_confirmation', 'password_reset')), "token_hash" text not null, "redirect_to" text, "expires_at" bigint not null, "created_at" bigint not null)`,
  `CREATE TABLE "sessions" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "created_at" bigint not null, "revoked_at" bigint, "last_used_at" bigint, "user_agent" text, "ip" text)`,
  `CREATE TABLE "refresh_tokens" ("token_hash" text not null primary key, "session_id" text not null references "sessions" ("id") on delete cascade, "created_at" bigint not null, "rotated_at" bigint)`,
  `CREATE TABLE "api_keys" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "name" text not null, "key_prefix" text not null, "key_hash" text not null, "created_at" bigint not null, "last_used_at" bigint, "scopes" text default 'files:read files:write files:delete account:read' not null, "expires_at" bigint)`,
  `CREATE TABLE "files" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "file_id" text not null, "name" text, "content_type" text not null, "size" bigint not null, "sha256" text not null, "is_public" integer not null check (is_public in (0, 1)), "created_at" bigint not null, "blob_key" text not null, "search_text" text not null, "expires_at" bigint, "view_count" bigint default 0 not null, "download_count" bigint default 0 not null)`,
  `CREATE TABLE "account_totals" ("user_id" text not null primary key references "users" ("id") on delete cascade, "storage_bytes" bigint not null, "files_count" bigint not null, "public_files_count" bigint default 0 not null, "changes" bigint default 0 not null, "reserved_bytes" bigint default 0 not null, "reserved_files" bigint default 0 not null)`,
  `CREATE TABLE "usage_periods" ("user_id" text not null references "users" ("id") on delete cascade, "period_start" bigint not null, "origin_reads" bigint not null, "image_ops" bigint not null, constraint "usage_periods_pkey" primary key ("user_id", "period_start"))`,
  `CREATE TABLE "activity_logs" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "method" text not null, "path" text not null, "status_code" integer not null, "request_size_bytes" bigint, "created_at" bigint not null, "metadata" text not null)`,
  `CREATE TABLE "custom_domains" ("user_id" text not null primary key references "users" ("id") on delete cascade, "hostname" text not null, "provider_id" text not null, "verification_status" text not null, "ssl_status" text not null, "dns_records" text not null, "errors" text not null, "created_at" bigint not null, "updated_at" bigint not null)`,
  `CREATE TABLE "file_histogram" ("user_id" text not null references "users" ("id") on delete cascade, "content_type" text not null, "dimension" text not null check (dimension in ('day', 'hour', 'size')), "bucket" bigint not null, "is_public" integer not null check (is_public in (0, 1)), "files" bigint not null, constraint "file_histogram_0007_pkey" primary key ("user_id", "content_type", "dimension", "bucket", "is_public")) without rowid`,
  `CREATE TABLE "activity_log_totals" ("user_id" text not null primary key references "users" ("id") on delete cascade, "entries" bigint not null)`,
  `CREATE TABLE "service_secrets" ("name" text not null primary key, "value" text not null, "created_at" bigint not null)`,
  `CREATE TABLE "image_variants" ("file_record_id" text not null references "files" ("id") on delete cascade, "variant" text not null, "user_id" text not null, "state" text not null check (state in ('computing', 'stored')), "claim_token" text, "claimed_until" bigint not null, "size" bigint not null, "created_at" bigint not null, constraint "image_variants_pkey" primary key ("file_record_id", "variant"))`,
  `CREATE TABLE "shares" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "file_id" text not null, "file_record_id" text not null references "files" ("id") on delete cascade, "password_hash" text, "expires_at" bigint, "max_downloads" bigint, "downloads" bigint default 0 not null, "created_at" bigint not null)`,
  `CREATE TABLE "mail_outbox" ("id" text not null primary key, "recipient" text not null, "subject" text not null, "text_body" text not null, "html_body" text not null, "created_at" bigint not null, "attempts" integer default 0 not null, "next_attempt_at" bigint not null, "claimed_by" text, "claimed_until" bigint, "last_error" text, "sent_at" bigint, "failed_at" bigint)`,
  `CREATE TABLE "resumable_uploads" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "file_id" text not null unique, "length" bigint not null, "upload_offset" bigint default 0 not null, "content_type" text not null, "name" text, "is_public" integer not null, "file_expires_at" bigint, "expires_at" bigint not null, "partial_state" text not null, "status" text not null, "lease_owner" text, "leased_until" bigint, "created_at" bigint not null)`,
  `CREATE TABLE "totp_factors" ("user_id" text not null primary key references "users" ("id") on delete cascade, "sealed_secret" text not null, "confirmed_at" bigint, "last_time_step" bigint, "created_at" bigint not null)`,
  `CREATE TABLE "recovery_codes" ("user_id" text not null references "users" ("id") on delete cascade, "code_hash" text not null, "used_at" bigint, constraint "recovery_codes_pkey" primary key ("user_id", "code_hash"))`,
  `CREATE TABLE "mfa_challenges" ("token_hash" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "created_at" bigint not null, "expires_at" bigint not null)`,
  `CREATE TABLE "passkeys" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "name" text not null, "credential_id" text not null unique, "public_key" text not null, "counter" bigint not null, "transports" text not null, "created_at" bigint not null, "last_used_at" bigint)`,
  `CREATE TABLE "passkey_challenges" ("challenge" text not null primary key, "ceremony" text not null, "user_id" text references "users" ("id") on delete cascade, "expires_at" bigint not null, "created_at" bigint not null)`,
  `CREATE TABLE "oidc_identities" ("issuer" text not null, "subject" text not null, "user_id" text not null references "users" ("id") on delete cascade, "email" text, "created_at" bigint not null, constraint "oidc_identities_pkey" primary key ("issuer", "subject"))`,
  `CREATE TABLE "oidc_flows" ("state_hash" text not null primary key, "nonce" text not null, "code_verifier" text not null, "invite_hash" text, "expires_at" bigint not null)`,
  `CREATE TABLE "oidc_sign_in_codes" ("code_hash" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "expires_at" bigint not null)`,
  `CREATE TABLE "invites" ("id" text not null primary key, "token_hash" text not null unique, "plan_name" text, "created_at" bigint not null, "expires_at" bigint, "used_at" bigint, "used_by" text, "revoked_at" bigint)`,
  `CREATE VIRTUAL TABLE files_search using fts5(document, content='', contentless_delete=1, detail=none, tokenize='ascii')`,
  `CREATE TABLE files_search_pending (file_rowid integer primary key)`,
  `CREATE UNIQUE INDEX "users_email_unique" on "users" ("email")`,
  `CREATE UNIQUE INDEX "one_time_tokens_token_hash_unique" on "one_time_tokens" ("token_hash")`,
  `CREATE INDEX "one_time_tokens_user_id_purpose" on "one_time_tokens" ("user_id", "purpose")`,
  `CREATE INDEX "sessions_user_id" on "sessions" ("user_id")`,
  `CREATE INDEX "refresh_tokens_session_id" on "refresh_tokens" ("session_id")`,
  `CREATE UNIQUE INDEX "api_keys_key_hash_unique" on "api_keys" ("key_hash")`,
  `CREATE INDEX "api_keys_user_id_created_at_id" on "api_keys" ("user_id", "created_at", "id")`,
  `CREATE UNIQUE INDEX "files_file_id_unique" on "files" ("file_id")`,
  `CREATE INDEX "files_user_id_content_type" on "files" ("user_id", "content_type")`,
  `CREATE INDEX "users_created_at_id" on "users" ("created_at", "id")`,
  `CREATE INDEX "activity_logs_user_id_created_at_id" on "activity_logs" ("user_id", "created_at", "id")`,
  `CREATE INDEX "activity_logs_created_at" on "activity_logs" ("created_at")`,
  `CREATE INDEX "files_user_id_is_public_created_at_id" on "files" ("user_id", "is_public", "created_at", "id")`,
  `CREATE UNIQUE INDEX "custom_domains_hostname_unique" on "custom_domains" ("hostname")`,
  `CREATE INDEX "one_time_tokens_expires_at" on "one_time_tokens" ("expires_at")`,
  `CREATE INDEX "sessions_revoked_at" on "sessions" ("revoked_at")`,
  `CREATE INDEX "refresh_tokens_rotated_at" on "refresh_tokens" ("rotated_at")`,
  `CREATE INDEX "files_expires_at" on "files" ("expires_at") where "expires_at" is not null`,
  `CREATE INDEX "shares_user_id_file_id" on "shares" ("user_id", "file_id", "created_at")`,
  `CREATE INDEX "shares_file_record_id" on "shares" ("file_record_id")`,
  `CREATE INDEX activity_logs_actions on activity_logs (user_id, created_at, id) where method not in ('GET', 'HEAD', 'OPTIONS')`,
  `CREATE INDEX "mail_outbox_due" on "mail_outbox" ("sent_at", "failed_at", "next_attempt_at")`,
  `CREATE INDEX "resumable_uploads_expiry" on "resumable_uploads" ("expires_at")`,
  `CREATE INDEX "resumable_uploads_user" on "resumable_uploads" ("user_id")`,
  `CREATE INDEX "mfa_challenges_expires_at" on "mfa_challenges" ("expires_at")`,
  `CREATE INDEX "mfa_challenges_user_id" on "mfa_challenges" ("user_id")`,
  `CREATE INDEX "sessions_live_last_used_at" on "sessions" ("last_used_at") where "revoked_at" is null`,
  `CREATE INDEX "passkeys_user" on "passkeys" ("user_id", "created_at")`,
  `CREATE INDEX "passkey_challenges_expires_at" on "passkey_challenges" ("expires_at")`,
  `CREATE INDEX "oidc_identities_user_id" on "oidc_identities" ("user_id")`,
  `CREATE INDEX "oidc_flows_expires_at" on "oidc_flows" ("expires_at")`,
  `CREATE INDEX "oidc_sign_in_codes_expires_at" on "oidc_sign_in_codes" ("expires_at")`,
  `CREATE INDEX "invites_created_at" on "invites" ("created_at", "id")`,
  `CREATE INDEX "files_user_id_created_at_id_is_public_size_content_type_search_text" on "files" ("user_id", "created_at", "id", "is_public", "size", "content_type", "search_text")`,
  `CREATE INDEX "files_user_id_size_is_public_content_type" on "files" ("user_id", "size", "is_public", "content_type")`,
  `CREATE TRIGGER files_search_insert after insert on files begin
    insert or ignore into files_search_pending (file_rowid) values (new.rowid);
  end`,
  `CREATE TRIGGER files_search_delete after delete on files begin
    delete from files_search where rowid = old.rowid;
    delete from files_search_pending where file_rowid = old.rowid;
  end`,
  `CREATE TRIGGER files_search_update after update of search_text, content_type, is_public, size, created_at, user_id on files
  when old.search_text is not new.search_text or old.content_type is not new.content_type or old.is_public is not new.is_public or old.size is not new.size
    or old.created_at is not new.created_at or old.user_id is not new.user_id begin
    delete from files_search where rowid = old.rowid;
    insert or ignore into files_search_pending (file_rowid) values (new.rowid);
  end`,
];

const POSTGRES: readonly string[] = [
  `CREATE FUNCTION hangar_file_grams_deleted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  begin
    insert into file_gram_pending (user_id, created_at, search_text, content_type, is_public, delta)
      select user_id, created_at, search_text, content_type, is_public, -1 from hangar_removed;
    return null;
  end $$`,
  `CREATE FUNCTION hangar_file_grams_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  begin
    insert into file_gram_pending (user_id, created_at, search_text, content_type, is_public, delta)
      select user_id, created_at, search_text, content_type, is_public, 1 from hangar_added;
    return null;
  end $$`,
  `CREATE FUNCTION hangar_file_grams_updated() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  begin
    insert into file_gram_pending (user_id, created_at, search_text, content_type, is_public, delta)
      values (old.user_id, old.created_at, old.search_text, old.content_type, old.is_public, -1),
             (new.user_id, new.created_at, new.search_text, new.content_type, new.is_public, 1);
    return null;
  end $$`,
  `CREATE FUNCTION hangar_notify_files() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
      $$`,
  `CREATE FUNCTION hangar_notify_row() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
      $$`,
  `CREATE FUNCTION hangar_search_grams(search_text text) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
      declare
        c text[] := regexp_split_to_array(search_text, '');
        grams text[] := c;
      begin
        if search_text = '' then
          return '{}'::text[];
        end if;
        for i in 1 .. cardinality(c) - 1 loop
          grams := grams || (c[i] || c[i + 1]);
        end loop;
        return grams;
      end
      $$`,
  `CREATE FUNCTION hangar_upload_claimed(claimed bigint) RETURNS integer
    LANGUAGE plpgsql
    AS $$
      begin
        if claimed = 1 then
          return 1;
        end if;
        raise exception 'hangar: the upload does not fit the account''s limits' using errcode = 'HG001';
      end
      $$`,
  `CREATE TABLE account_totals (
    user_id text NOT NULL,
    storage_bytes bigint NOT NULL,
    files_count bigint NOT NULL,
    public_files_count bigint DEFAULT 0 NOT NULL,
    changes bigint DEFAULT 0 NOT NULL,
    reserved_bytes bigint DEFAULT 0 NOT NULL,
    reserved_files bigint DEFAULT 0 NOT NULL
)`,
  `CREATE TABLE activity_log_totals (
    user_id text NOT NULL,
    entries bigint NOT NULL
)`,
  `CREATE TABLE activity_logs (
    id text NOT NULL,
    user_id text NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    status_code integer NOT NULL,
    request_size_bytes bigint,
    created_at bigint NOT NULL,
    metadata text NOT NULL
)`,
  `CREATE TABLE api_keys (
    id text NOT NULL,
    user_id text NOT NULL,
    name text NOT NULL,
    key_prefix text NOT NULL,
    key_hash text NOT NULL,
    created_at bigint NOT NULL,
    last_used_at bigint,
    scopes text DEFAULT 'files:read files:write files:delete account:read'::text NOT NULL,
    expires_at bigint
)`,
  `CREATE TABLE custom_domains (
    user_id text NOT NULL,
    hostname text NOT NULL,
    provider_id text NOT NULL,
    verification_status text NOT NULL,
    ssl_status text NOT NULL,
    dns_records text NOT NULL,
    errors text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
)`,
  `CREATE TABLE file_gram_days (
    user_id text NOT NULL,
    gram text NOT NULL,
    day bigint NOT NULL,
    files bigint NOT NULL,
    content_type text DEFAULT ''::text NOT NULL
)`,
  `CREATE TABLE file_gram_pending (
    seq bigint NOT NULL,
    user_id text NOT NULL,
    created_at bigint NOT NULL,
    search_text text NOT NULL,
    content_type text NOT NULL,
    is_public integer NOT NULL,
    delta integer NOT NULL
)`,
  `CREATE SEQUENCE file_gram_pending_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1`,
  `ALTER SEQUENCE file_gram_pending_seq_seq OWNED BY file_gram_pending.seq`,
  `CREATE TABLE file_gram_types_tracked (
    user_id text NOT NULL,
    gram text NOT NULL,
    content_type text NOT NULL
)`,
  `CREATE TABLE file_grams (
    user_id text NOT NULL,
    gram text NOT NULL,
    content_type text NOT NULL,
    is_public integer NOT NULL,
    files bigint NOT NULL
)`,
  `CREATE TABLE file_grams_tracked (
    user_id text NOT NULL,
    gram text NOT NULL
)`,
  `CREATE TABLE file_histogram (
    user_id text NOT NULL,
    content_type text NOT NULL,
    dimension text NOT NULL,
    bucket bigint NOT NULL,
    is_public integer NOT NULL,
    files bigint NOT NULL,
    CONSTRAINT file_histogram_0007_dimension_check CHECK ((dimension = ANY (ARRAY['day'::text, 'hour'::text, 'size'::text]))),
    CONSTRAINT file_histogram_0007_is_public_check CHECK ((is_public = ANY (ARRAY[0, 1])))
)`,
  `CREATE TABLE files (
    id text NOT NULL,
    user_id text NOT NULL,
    file_id text NOT NULL,
    name text,
    content_type text NOT NULL,
    size bigint NOT NULL,
    sha256 text NOT NULL,
    is_public integer NOT NULL,
    created_at bigint NOT NULL,
    blob_key text NOT NULL,
    search_text text NOT NULL,
    expires_at bigint,
    view_count bigint DEFAULT 0 NOT NULL,
    download_count bigint DEFAULT 0 NOT NULL,
    CONSTRAINT files_is_public_check CHECK ((is_public = ANY (ARRAY[0, 1])))
)`,
  `CREATE TABLE image_variants (
    file_record_id text NOT NULL,
    variant text NOT NULL,
    user_id text NOT NULL,
    state text NOT NULL,
    claim_token text,
    claimed_until bigint NOT NULL,
    size bigint NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT image_variants_state_check CHECK ((state = ANY (ARRAY['computing'::text, 'stored'::text])))
)`,
  `CREATE TABLE invites (
    id text NOT NULL,
    token_hash text NOT NULL,
    plan_name text,
    created_at bigint NOT NULL,
    expires_at bigint,
    used_at bigint,
    used_by text,
    revoked_at bigint
)`,
  `CREATE TABLE mail_outbox (
    id text NOT NULL,
    recipient text NOT NULL,
    subject text NOT NULL,
    text_body text NOT NULL,
    html_body text NOT NULL,
    created_at bigint NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at bigint NOT NULL,
    claimed_by text,
    claimed_until bigint,
    last_error text,
    sent_at bigint,
    failed_at bigint
)`,
  `CREATE TABLE mfa_challenges (
    token_hash text NOT NULL,
    user_id text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
)`,
  `CREATE TABLE oidc_flows (
    state_hash text NOT NULL,
    nonce text NOT NULL,
    code_verifier text NOT NULL,
    invite_hash text,
    expires_at bigint NOT NULL
)`,
  `CREATE TABLE oidc_identities (
    issuer text NOT NULL,
    subject text NOT NULL,
    user_id text NOT NULL,
    email text,
    created_at bigint NOT NULL
)`,
  `CREATE TABLE oidc_sign_in_codes (
    code_hash text NOT NULL,
    user_id text NOT NULL,
    expires_at bigint NOT NULL
)`,
  `CREATE TABLE one_time_tokens (
    id text NOT NULL,
    user_id text NOT NULL,
    purpose text NOT NULL,
    token_hash text NOT NULL,
    redirect_to text,
    expires_at bigint NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT one_time_tokens_purpose_check CHECK ((purpose = ANY (ARRAY['email_confirmation'::text, 'password_reset'::text])))
)`,
  `CREATE TABLE passkey_challenges (
    challenge text NOT NULL,
    ceremony text NOT NULL,
    user_id text,
    expires_at bigint NOT NULL,
    created_at bigint NOT NULL
)`,
  `CREATE TABLE passkeys (
    id text NOT NULL,
    user_id text NOT NULL,
    name text NOT NULL,
    credential_id text NOT NULL,
    public_key text NOT NULL,
    counter bigint NOT NULL,
    transports text NOT NULL,
    created_at bigint NOT NULL,
    last_used_at bigint
)`,
  `CREATE TABLE recovery_codes (
    user_id text NOT NULL,
    code_hash text NOT NULL,
    used_at bigint
)`,
  `CREATE TABLE refresh_tokens (
    token_hash text NOT NULL,
    session_id text NOT NULL,
    created_at bigint NOT NULL,
    rotated_at bigint
)`,
  `CREATE TABLE resumable_uploads (
    id text NOT NULL,
    user_id text NOT NULL,
    file_id text NOT NULL,
    length bigint NOT NULL,
    upload_offset bigint DEFAULT 0 NOT NULL,
    content_type text NOT NULL,
    name text,
    is_public integer NOT NULL,
    file_expires_at bigint,
    expires_at bigint NOT NULL,
    partial_state text NOT NULL,
    status text NOT NULL,
    lease_owner text,
    leased_until bigint,
    created_at bigint NOT NULL
)`,
  `CREATE TABLE service_secrets (
    name text NOT NULL,
    value text NOT NULL,
    created_at bigint NOT NULL
)`,
  `CREATE TABLE sessions (
    id text NOT NULL,
    user_id text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint,
    last_used_at bigint,
    user_agent text,
    ip text
)`,
  `CREATE TABLE shares (
    id text NOT NULL,
    user_id text NOT NULL,
    file_id text NOT NULL,
    file_record_id text NOT NULL,
    password_hash text,
    expires_at bigint,
    max_downloads bigint,
    downloads bigint DEFAULT 0 NOT NULL,
    created_at bigint NOT NULL
)`,
  `CREATE TABLE totp_factors (
    user_id text NOT NULL,
    sealed_secret text NOT NULL,
    confirmed_at bigint,
    last_time_step bigint,
    created_at bigint NOT NULL
)`,
  `CREATE TABLE usage_periods (
    user_id text NOT NULL,
    period_start bigint NOT NULL,
    origin_reads bigint NOT NULL,
    image_ops bigint NOT NULL
)`,
  `CREATE TABLE users (
    id text NOT NULL,
    email text NOT NULL,
    password_hash text NOT NULL,
    email_confirmed_at bigint,
    max_upload_size_bytes bigint,
    last_email_sent_at bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    plan_name text DEFAULT ''::text NOT NULL,
    trial_ends_at bigint,
    access_until bigint,
    subscription_canceled_at bigint,
    signing_key text,
    last_reset_email_sent_at bigint
)`,
  `ALTER TABLE ONLY file_gram_pending ALTER COLUMN seq SET DEFAULT nextval('file_gram_pending_seq_seq'::regclass)`,
  `ALTER TABLE ONLY account_totals
    ADD CONSTRAINT account_totals_pkey PRIMARY KEY (user_id)`,
  `ALTER TABLE ONLY activity_log_totals
    ADD CONSTRAINT activity_log_totals_pkey PRIMARY KEY (user_id)`,
  `ALTER TABLE ONLY activity_logs
    ADD CONSTRAINT activity_logs_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY custom_domains
    ADD CONSTRAINT custom_domains_pkey PRIMARY KEY (user_id)`,
  `ALTER TABLE ONLY file_gram_days
    ADD CONSTRAINT file_gram_days_pkey PRIMARY KEY (user_id, gram, content_type, day) INCLUDE (files)`,
  `ALTER TABLE ONLY file_gram_pending
    ADD CONSTRAINT file_gram_pending_pkey PRIMARY KEY (seq)`,
  `ALTER TABLE ONLY file_gram_types_tracked
    ADD CONSTRAINT file_gram_types_tracked_pkey PRIMARY KEY (user_id, gram, content_type)`,
  `ALTER TABLE ONLY file_grams
    ADD CONSTRAINT file_grams_pkey PRIMARY KEY (user_id, gram, content_type, is_public)`,
  `ALTER TABLE ONLY file_grams_tracked
    ADD CONSTRAINT file_grams_tracked_pkey PRIMARY KEY (user_id, gram)`,
  `ALTER TABLE ONLY file_histogram
    ADD CONSTRAINT file_histogram_pkey PRIMARY KEY (user_id, content_type, dimension, bucket, is_public)`,
  `ALTER TABLE ONLY files
    ADD CONSTRAINT files_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY image_variants
    ADD CONSTRAINT image_variants_pkey PRIMARY KEY (file_record_id, variant)`,
  `ALTER TABLE ONLY invites
    ADD CONSTRAINT invites_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY invites
    ADD CONSTRAINT invites_token_hash_key UNIQUE (token_hash)`,
  `ALTER TABLE ONLY mail_outbox
    ADD CONSTRAINT mail_outbox_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY mfa_challenges
    ADD CONSTRAINT mfa_challenges_pkey PRIMARY KEY (token_hash)`,
  `ALTER TABLE ONLY oidc_flows
    ADD CONSTRAINT oidc_flows_pkey PRIMARY KEY (state_hash)`,
  `ALTER TABLE ONLY oidc_identities
    ADD CONSTRAINT oidc_identities_pkey PRIMARY KEY (issuer, subject)`,
  `ALTER TABLE ONLY oidc_sign_in_codes
    ADD CONSTRAINT oidc_sign_in_codes_pkey PRIMARY KEY (code_hash)`,
  `ALTER TABLE ONLY one_time_tokens
    ADD CONSTRAINT one_time_tokens_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY passkey_challenges
    ADD CONSTRAINT passkey_challenges_pkey PRIMARY KEY (challenge)`,
  `ALTER TABLE ONLY passkeys
    ADD CONSTRAINT passkeys_credential_id_key UNIQUE (credential_id)`,
  `ALTER TABLE ONLY passkeys
    ADD CONSTRAINT passkeys_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY recovery_codes
    ADD CONSTRAINT recovery_codes_pkey PRIMARY KEY (user_id, code_hash)`,
  `ALTER TABLE ONLY refresh_tokens
    ADD CONSTRAINT refresh_tokens_pkey PRIMARY KEY (token_hash)`,
  `ALTER TABLE ONLY resumable_uploads
    ADD CONSTRAINT resumable_uploads_file_id_key UNIQUE (file_id)`,
  `ALTER TABLE ONLY resumable_uploads
    ADD CONSTRAINT resumable_uploads_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY service_secrets
    ADD CONSTRAINT service_secrets_pkey PRIMARY KEY (name)`,
  `ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY shares
    ADD CONSTRAINT shares_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY totp_factors
    ADD CONSTRAINT totp_factors_pkey PRIMARY KEY (user_id)`,
  `ALTER TABLE ONLY usage_periods
    ADD CONSTRAINT usage_periods_pkey PRIMARY KEY (user_id, period_start)`,
  `ALTER TABLE ONLY users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id)`,
  `CREATE INDEX activity_logs_actions ON activity_logs USING btree (user_id, created_at, id) WHERE (method <> ALL (ARRAY['GET'::text, 'HEAD'::text, 'OPTIONS'::text]))`,
  `CREATE INDEX activity_logs_created_at ON activity_logs USING btree (created_at)`,
  `CREATE INDEX activity_logs_user_id_created_at_id ON activity_logs USING btree (user_id, created_at, id)`,
  `CREATE UNIQUE INDEX api_keys_key_hash_unique ON api_keys USING btree (key_hash)`,
  `CREATE INDEX api_keys_user_id_created_at_id ON api_keys USING btree (user_id, created_at, id)`,
  `CREATE UNIQUE INDEX custom_domains_hostname_unique ON custom_domains USING btree (hostname)`,
  `CREATE INDEX file_gram_pending_user_id ON file_gram_pending USING btree (user_id)`,
  `CREATE INDEX files_expires_at ON files USING btree (expires_at) WHERE (expires_at IS NOT NULL)`,
  `CREATE UNIQUE INDEX files_file_id_unique ON files USING btree (file_id)`,
  `CREATE INDEX files_search_grams ON files USING gin (hangar_search_grams(search_text))`,
  `CREATE INDEX files_user_id_content_type ON files USING btree (user_id, content_type)`,
  `CREATE INDEX files_user_id_created_at_id_covering ON files USING btree (user_id, created_at, id) INCLUDE (is_public, size, content_type)`,
  `CREATE INDEX files_user_id_is_public_created_at_id ON files USING btree (user_id, is_public, created_at, id)`,
  `CREATE INDEX files_user_id_size_covering ON files USING btree (user_id, size) INCLUDE (created_at, id, is_public, content_type, search_text)`,
  `CREATE INDEX invites_created_at ON invites USING btree (created_at, id)`,
  `CREATE INDEX mail_outbox_due ON mail_outbox USING btree (sent_at, failed_at, next_attempt_at)`,
  `CREATE INDEX mfa_challenges_expires_at ON mfa_challenges USING btree (expires_at)`,
  `CREATE INDEX mfa_challenges_user_id ON mfa_challenges USING btree (user_id)`,
  `CREATE INDEX oidc_flows_expires_at ON oidc_flows USING btree (expires_at)`,
  `CREATE INDEX oidc_identities_user_id ON oidc_identities USING btree (user_id)`,
  `CREATE INDEX oidc_sign_in_codes_expires_at ON oidc_sign_in_codes USING btree (expires_at)`,
  `CREATE INDEX one_time_tokens_expires_at ON one_time_tokens USING btree (expires_at)`,
  `CREATE UNIQUE INDEX one_time_tokens_token_hash_unique ON one_time_tokens USING btree (token_hash)`,
  `CREATE INDEX one_time_tokens_user_id_purpose ON one_time_tokens USING btree (user_id, purpose)`,
  `CREATE INDEX passkey_challenges_expires_at ON passkey_challenges USING btree (expires_at)`,
  `CREATE INDEX passkeys_user ON passkeys USING btree (user_id, created_at)`,
  `CREATE INDEX refresh_tokens_rotated_at ON refresh_tokens USING btree (rotated_at)`,
  `CREATE INDEX refresh_tokens_session_id ON refresh_tokens USING btree (session_id)`,
  `CREATE INDEX resumable_uploads_expiry ON resumable_uploads USING btree (expires_at)`,
  `CREATE INDEX resumable_uploads_user ON resumable_uploads USING btree (user_id)`,
  `CREATE INDEX sessions_live_last_used_at ON sessions USING btree (last_used_at) WHERE (revoked_at IS NULL)`,
  `CREATE INDEX sessions_revoked_at ON sessions USING btree (revoked_at)`,
  `CREATE INDEX sessions_user_id ON sessions USING btree (user_id)`,
  `CREATE INDEX shares_file_record_id ON shares USING btree (file_record_id)`,
  `CREATE INDEX shares_user_id_file_id ON shares USING btree (user_id, file_id, created_at)`,
  `CREATE INDEX users_created_at_id ON users USING btree (created_at, id)`,
  `CREATE UNIQUE INDEX users_email_unique ON users USING btree (email)`,
  `CREATE TRIGGER api_keys_changes AFTER DELETE OR UPDATE ON api_keys FOR EACH ROW EXECUTE FUNCTION hangar_notify_row()`,
  `CREATE TRIGGER custom_domains_changes AFTER INSERT OR DELETE OR UPDATE ON custom_domains FOR EACH ROW EXECUTE FUNCTION hangar_notify_row()`,
  `CREATE TRIGGER file_grams_delete AFTER DELETE ON files REFERENCING OLD TABLE AS hangar_removed FOR EACH STATEMENT EXECUTE FUNCTION hangar_file_grams_deleted()`,
  `CREATE TRIGGER file_grams_insert AFTER INSERT ON files REFERENCING NEW TABLE AS hangar_added FOR EACH STATEMENT EXECUTE FUNCTION hangar_file_grams_inserted()`,
  `CREATE TRIGGER file_grams_update AFTER UPDATE OF search_text, content_type, is_public, created_at, user_id ON files FOR EACH ROW WHEN (((old.search_text IS DISTINCT FROM new.search_text) OR (old.content_type IS DISTINCT FROM new.content_type) OR (old.is_public IS DISTINCT FROM new.is_public) OR (old.created_at IS DISTINCT FROM new.created_at) OR (old.user_id IS DISTINCT FROM new.user_id))) EXECUTE FUNCTION hangar_file_grams_updated()`,
  `CREATE TRIGGER files_changes_deleted AFTER DELETE ON files REFERENCING OLD TABLE AS changed_files FOR EACH STATEMENT EXECUTE FUNCTION hangar_notify_files()`,
  `CREATE TRIGGER files_changes_updated AFTER UPDATE ON files REFERENCING OLD TABLE AS changed_files FOR EACH STATEMENT EXECUTE FUNCTION hangar_notify_files()`,
  `CREATE TRIGGER sessions_changes AFTER DELETE OR UPDATE ON sessions FOR EACH ROW EXECUTE FUNCTION hangar_notify_row()`,
  `CREATE TRIGGER users_changes AFTER DELETE OR UPDATE ON users FOR EACH ROW EXECUTE FUNCTION hangar_notify_row()`,
  `ALTER TABLE ONLY account_totals
    ADD CONSTRAINT account_totals_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY activity_log_totals
    ADD CONSTRAINT activity_log_totals_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY activity_logs
    ADD CONSTRAINT activity_logs_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY custom_domains
    ADD CONSTRAINT custom_domains_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY file_gram_days
    ADD CONSTRAINT file_gram_days_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY file_gram_types_tracked
    ADD CONSTRAINT file_gram_types_tracked_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY file_grams_tracked
    ADD CONSTRAINT file_grams_tracked_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY file_grams
    ADD CONSTRAINT file_grams_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY file_histogram
    ADD CONSTRAINT file_histogram_0007_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY files
    ADD CONSTRAINT files_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY image_variants
    ADD CONSTRAINT image_variants_file_record_id_fkey FOREIGN KEY (file_record_id) REFERENCES files(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY mfa_challenges
    ADD CONSTRAINT mfa_challenges_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY oidc_identities
    ADD CONSTRAINT oidc_identities_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY oidc_sign_in_codes
    ADD CONSTRAINT oidc_sign_in_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY one_time_tokens
    ADD CONSTRAINT one_time_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY passkey_challenges
    ADD CONSTRAINT passkey_challenges_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY passkeys
    ADD CONSTRAINT passkeys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY recovery_codes
    ADD CONSTRAINT recovery_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY refresh_tokens
    ADD CONSTRAINT refresh_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES sessions(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY resumable_uploads
    ADD CONSTRAINT resumable_uploads_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY shares
    ADD CONSTRAINT shares_file_record_id_fkey FOREIGN KEY (file_record_id) REFERENCES files(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY shares
    ADD CONSTRAINT shares_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY totp_factors
    ADD CONSTRAINT totp_factors_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY usage_periods
    ADD CONSTRAINT usage_periods_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
];
