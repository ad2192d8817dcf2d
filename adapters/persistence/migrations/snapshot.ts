import { type Kysely, sql } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.

/**
 * The schema that migrations 0001 to {@link SNAPSHOT_THROUGH} give a fresh database, in one step:
 * a fresh database runs this instead of those migrations, which Kysely then records as applied
 * (sql/migrate.ts); a database that has run any migration gets the history. Written by
 * scripts/migration-snapshot.mjs from a database migrated through the history (SQLite's
 * sqlite_master, Postgres's pg_dump); test/contracts/migration-files.test.ts checks that both
 * paths give the same schema. Like a migration it imports nothing from the application; it is
 * rewritten only by that script, to move it forward to a later migration (docs/migrations.md).
 */
export const SNAPSHOT_THROUGH = "0050_sqlite_covering_filter_indexes";

/** Every table, index and trigger, as SQLite stores their CREATE statements. */
export async function sqlite(db: Kysely<any>): Promise<void> {
  for (const statement of SQLITE) await sql.raw(statement).execute(db);
}

/**
 * Every table, sequence, function, constraint, index and trigger, then the trigram index of `q`
 * (`files_search_text_trgm`, a GIN index on `search_text`) where pg_trgm is installed or can be
 * created in the current schema, as migration 0042 leaves it; without pg_trgm, no such index.
 */
export async function postgres(db: Kysely<any>): Promise<void> {
  // One round trip: a query without parameters goes as Postgres's simple query, which may hold many statements.
  await sql.raw(POSTGRES.join(';\n')).execute(db);
  const schema = await trigramSchema(db);
  if (schema === undefined) return;
  // The operator class is qualified: the extension may live in a schema outside the search_path.
  await sql`create index files_search_text_trgm on files using gin (search_text ${sql.id(schema)}.gin_trgm_ops)`.execute(db);
}

/**
 * The schema that holds pg_trgm, created in the current schema first when it is not installed
 * (undone to a savepoint when that fails, inside the migration's transaction); undefined when it cannot be had.
 */
async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  const installed = async () =>
    (await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)).rows[0]?.schema;
  const found = await installed();
  if (found !== undefined) return found;
  await sql`savepoint create_pg_trgm`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`release savepoint create_pg_trgm`.execute(db);
  } catch {
    await sql`rollback to savepoint create_pg_trgm`.execute(db);
    return undefined;
  }
  return installed();
}

const SQLITE: readonly string[] = [
  `CREATE TABLE "users" ("id" text not null primary key, "email" text not null, "password_hash" text not null, "email_confirmed_at" bigint, "max_upload_size_bytes" bigint, "last_email_sent_at" bigint, "created_at" bigint not null, "updated_at" bigint not null, "plan_name" text default '' not null, "trial_ends_at" bigint, "access_until" bigint, "subscription_canceled_at" bigint, "signing_key" text, "last_reset_email_sent_at" bigint, "role" text default 'user' not null, "suspended_at" bigint, "storage_limit_bytes" bigint, "file_count_limit" bigint, "image_metadata" text default 'strip_location' not null)`,
  `CREATE TABLE "one_time_tokens" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "purpose" text not null check (purpose in ('email_confirmation', 'password_reset')), "token_hash" text not null, "redirect_to" text, "expires_at" bigint not null, "created_at" bigint not null)`,
  `CREATE TABLE "sessions" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "created_at" bigint not null, "revoked_at" bigint, "last_used_at" bigint, "user_agent" text, "ip" text, "second_factor_at" bigint)`,
  `CREATE TABLE "refresh_tokens" ("token_hash" text not null primary key, "session_id" text not null references "sessions" ("id") on delete cascade, "created_at" bigint not null, "rotated_at" bigint, sealed_successor text)`,
  `CREATE TABLE "api_keys" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "name" text not null, "key_prefix" text not null, "key_hash" text not null, "created_at" bigint not null, "last_used_at" bigint, "scopes" text default 'files:read files:write files:delete account:read' not null, "expires_at" bigint)`,
  `CREATE TABLE "files" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "file_id" text not null, "name" text, "content_type" text not null, "size" bigint not null, "sha256" text not null, "is_public" integer not null check (is_public in (0, 1)), "created_at" bigint not null, "blob_key" text not null, "search_text" text not null, "expires_at" bigint, "view_count" bigint default 0 not null, "download_count" bigint default 0 not null, "metadata_removed" text)`,
  `CREATE TABLE "account_totals" ("user_id" text not null primary key references "users" ("id") on delete cascade, "storage_bytes" bigint not null, "files_count" bigint not null, "public_files_count" bigint default 0 not null, "changes" bigint default 0 not null, "reserved_bytes" bigint default 0 not null, "reserved_files" bigint default 0 not null)`,
  `CREATE TABLE "usage_periods" ("user_id" text not null references "users" ("id") on delete cascade, "period_start" bigint not null, "origin_reads" bigint not null, "image_ops" bigint not null, constraint "usage_periods_pkey" primary key ("user_id", "period_start"))`,
  `CREATE TABLE "activity_logs" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "method" text not null, "path" text not null, "status_code" integer not null, "request_size_bytes" bigint, "created_at" bigint not null, "metadata" text not null)`,
  `CREATE TABLE "custom_domains" ("user_id" text not null primary key references "users" ("id") on delete cascade, "hostname" text not null, "provider_id" text not null, "verification_status" text not null, "ssl_status" text not null, "dns_records" text not null, "errors" text not null, "created_at" bigint not null, "updated_at" bigint not null)`,
  `CREATE TABLE "activity_log_totals" ("user_id" text not null primary key references "users" ("id") on delete cascade, "entries" bigint not null)`,
  `CREATE TABLE "service_secrets" ("name" text not null primary key, "value" text not null, "created_at" bigint not null)`,
  `CREATE TABLE "image_variants" ("file_record_id" text not null references "files" ("id") on delete cascade, "variant" text not null, "user_id" text not null, "state" text not null check (state in ('computing', 'stored')), "claim_token" text, "claimed_until" bigint not null, "size" bigint not null, "created_at" bigint not null, constraint "image_variants_pkey" primary key ("file_record_id", "variant"))`,
  `CREATE TABLE "shares" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "file_id" text not null, "file_record_id" text not null references "files" ("id") on delete cascade, "password_hash" text, "expires_at" bigint, "max_downloads" bigint, "downloads" bigint default 0 not null, "created_at" bigint not null, api_key_id text references api_keys(id) on delete cascade)`,
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
  `CREATE TABLE files_trigram_keys (key integer primary key, file_record_id text not null unique)`,
  `CREATE VIRTUAL TABLE files_trigram using fts5(search_text, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`,
  `CREATE TABLE "webhooks" ("id" text not null primary key, "user_id" text not null, "url" text not null, "events" text not null, "description" text, "enabled" integer default 1 not null, "secret" text not null, "previous_secret" text, "previous_secret_until" bigint, "created_at" bigint not null, "updated_at" bigint not null, "last_success_at" bigint, "failing_since" bigint, "disabled_reason" text)`,
  `CREATE TABLE "webhook_deliveries" ("id" text not null primary key, "webhook_id" text not null references "webhooks" ("id") on delete cascade, "user_id" text not null, "event_type" text not null, "snapshot" text not null, "created_at" bigint not null, "attempts" integer default 0 not null, "next_attempt_at" bigint not null, "claimed_by" text, "claimed_until" bigint, "last_status" integer, "last_error" text, "duration_ms" integer, "sent_at" bigint, "failed_at" bigint)`,
  `CREATE TABLE "webhook_plan_limits" ("plan_name" text not null primary key, "storage_bytes" bigint not null, "files" bigint not null)`,
  `CREATE TABLE webhook_delete_context (id integer primary key check (id = 1), reason text not null)`,
  `CREATE TABLE "admin_audit" ("id" text primary key, "created_at" bigint not null, "actor_id" text, "actor_email" text not null, "action" text not null, "target_id" text, "target_email" text, "client" text, "before_json" text, "after_json" text)`,
  `CREATE TABLE "plan_overrides" ("name" text primary key, "definition" text not null, "updated_at" bigint not null)`,
  `CREATE TABLE "upload_urls" ("id" text not null primary key, "user_id" text not null references "users" ("id") on delete cascade, "expires_at" bigint not null, "max_size_bytes" bigint, "content_types" text, "name" text, "is_public" integer not null, "file_expires_at" bigint, "created_at" bigint not null, "used_at" bigint, "resumable_upload_id" text, "api_key_id" text references "api_keys" ("id") on delete cascade)`,
  `CREATE TABLE "file_media" ("file_record_id" text not null primary key references "files" ("id") on delete cascade, "width" integer, "height" integer, "duration_seconds" real, "thumbhash" text, "state" text not null, "computed_at" bigint not null)`,
  `CREATE TABLE "account_deletions" ("user_id" text primary key, "email" text not null, "requested_at" bigint not null, "actor_id" text, "actor_email" text not null, "actor_client" text, "files_deleted" bigint default 0 not null, "lease_owner" text, "lease_until" bigint default 0 not null)`,
  `CREATE UNIQUE INDEX "users_email_unique" on "users" ("email")`,
  `CREATE UNIQUE INDEX "one_time_tokens_token_hash_unique" on "one_time_tokens" ("token_hash")`,
  `CREATE INDEX "one_time_tokens_user_id_purpose" on "one_time_tokens" ("user_id", "purpose")`,
  `CREATE INDEX "sessions_user_id" on "sessions" ("user_id")`,
  `CREATE INDEX "refresh_tokens_session_id" on "refresh_tokens" ("session_id")`,
  `CREATE UNIQUE INDEX "api_keys_key_hash_unique" on "api_keys" ("key_hash")`,
  `CREATE INDEX "api_keys_user_id_created_at_id" on "api_keys" ("user_id", "created_at", "id")`,
  `CREATE UNIQUE INDEX "files_file_id_unique" on "files" ("file_id")`,
  `CREATE INDEX "users_created_at_id" on "users" ("created_at", "id")`,
  `CREATE INDEX "activity_logs_user_id_created_at_id" on "activity_logs" ("user_id", "created_at", "id")`,
  `CREATE INDEX "activity_logs_created_at" on "activity_logs" ("created_at")`,
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
  `CREATE INDEX shares_api_key_id on shares (api_key_id)`,
  `CREATE INDEX "webhooks_user_id_created_at" on "webhooks" ("user_id", "created_at", "id")`,
  `CREATE INDEX "webhook_deliveries_webhook_id_created_at" on "webhook_deliveries" ("webhook_id", "created_at", "id")`,
  `CREATE INDEX "webhook_deliveries_due" on "webhook_deliveries" ("next_attempt_at", "id") where "sent_at" is null and "failed_at" is null`,
  `CREATE INDEX "admin_audit_created_at" on "admin_audit" ("created_at", "id")`,
  `CREATE INDEX "admin_audit_target" on "admin_audit" ("target_id", "created_at")`,
  `CREATE INDEX users_admins on users (role) where role = 'admin'`,
  `CREATE INDEX "upload_urls_user_id" on "upload_urls" ("user_id")`,
  `CREATE INDEX "upload_urls_expires_at" on "upload_urls" ("expires_at")`,
  `CREATE INDEX "upload_urls_api_key_id" on "upload_urls" ("api_key_id")`,
  `CREATE INDEX "account_deletions_lease" on "account_deletions" ("lease_until")`,
  `CREATE INDEX "files_user_id_content_type_created_at_id_is_public_size_search_text" on "files" ("user_id", "content_type", "created_at", "id", "is_public", "size", "search_text")`,
  `CREATE INDEX "files_user_id_is_public_created_at_id_size_content_type_search_text" on "files" ("user_id", "is_public", "created_at", "id", "size", "content_type", "search_text")`,
  `CREATE INDEX "files_user_id_size_is_public_content_type_created_at_search_text" on "files" ("user_id", "size", "is_public", "content_type", "created_at", "search_text")`,
  `CREATE TRIGGER files_trigram_insert after insert on files begin
      insert into files_trigram_keys (file_record_id) values (new.id);
      insert into files_trigram (rowid, search_text) values ((select key from files_trigram_keys where file_record_id = new.id), new.search_text);
    end`,
  `CREATE TRIGGER files_trigram_delete after delete on files begin
      delete from files_trigram where rowid = (select key from files_trigram_keys where file_record_id = old.id);
      delete from files_trigram_keys where file_record_id = old.id;
    end`,
  `CREATE TRIGGER files_trigram_update after update of search_text on files when old.search_text is not new.search_text begin
      delete from files_trigram where rowid = (select key from files_trigram_keys where file_record_id = new.id);
      insert into files_trigram (rowid, search_text) values ((select key from files_trigram_keys where file_record_id = new.id), new.search_text);
    end`,
  `CREATE TRIGGER webhooks_file_created after insert on files begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'file.created', json_object('id', new.id, 'user_id', new.user_id, 'file_id', new.file_id, 'name', new.name, 'content_type', new.content_type, 'size', new.size, 'sha256', new.sha256, 'is_public', new.is_public, 'created_at', new.created_at, 'blob_key', new.blob_key, 'expires_at', new.expires_at, 'view_count', new.view_count, 'download_count', new.download_count), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' file.created ') > 0; end`,
  `CREATE TRIGGER webhooks_file_updated after update of name, is_public, expires_at on files
       when old.name is not new.name or old.is_public is not new.is_public or old.expires_at is not new.expires_at
     begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'file.updated', json_object('id', new.id, 'user_id', new.user_id, 'file_id', new.file_id, 'name', new.name, 'content_type', new.content_type, 'size', new.size, 'sha256', new.sha256, 'is_public', new.is_public, 'created_at', new.created_at, 'blob_key', new.blob_key, 'expires_at', new.expires_at, 'view_count', new.view_count, 'download_count', new.download_count), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' file.updated ') > 0; end`,
  `CREATE TRIGGER webhooks_file_deleted after delete on files begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, old.user_id, 'file.deleted', json_object('id', old.id, 'user_id', old.user_id, 'file_id', old.file_id, 'name', old.name, 'content_type', old.content_type, 'size', old.size, 'sha256', old.sha256, 'is_public', old.is_public, 'created_at', old.created_at, 'blob_key', old.blob_key, 'expires_at', old.expires_at, 'view_count', old.view_count, 'download_count', old.download_count, 'reason', coalesce((select reason from webhook_delete_context where id = 1), 'deleted')), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = old.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' file.deleted ') > 0; end`,
  `CREATE TRIGGER webhooks_share_created after insert on shares begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'share.created', json_object('id', new.id, 'user_id', new.user_id, 'file_id', new.file_id, 'file_record_id', new.file_record_id, 'expires_at', new.expires_at, 'max_downloads', new.max_downloads, 'downloads', new.downloads, 'created_at', new.created_at, 'has_password', new.password_hash is not null), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' share.created ') > 0; end`,
  `CREATE TRIGGER webhooks_share_exhausted after update of downloads on shares
       when new.max_downloads is not null and new.downloads >= new.max_downloads and old.downloads < new.max_downloads
     begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'share.exhausted', json_object('id', new.id, 'user_id', new.user_id, 'file_id', new.file_id, 'file_record_id', new.file_record_id, 'expires_at', new.expires_at, 'max_downloads', new.max_downloads, 'downloads', new.downloads, 'created_at', new.created_at, 'has_password', new.password_hash is not null), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' share.exhausted ') > 0; end`,
  `CREATE TRIGGER webhooks_share_revoked after delete on shares begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, old.user_id, 'share.revoked', json_object('id', old.id, 'user_id', old.user_id, 'file_id', old.file_id, 'file_record_id', old.file_record_id, 'expires_at', old.expires_at, 'max_downloads', old.max_downloads, 'downloads', old.downloads, 'created_at', old.created_at, 'has_password', old.password_hash is not null), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = old.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' share.revoked ') > 0; end`,
  `CREATE TRIGGER webhooks_domain_active_insert after insert on custom_domains when (new.verification_status = 'active' and new.ssl_status = 'active')
     begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'custom_domain.active', json_object('user_id', new.user_id, 'hostname', new.hostname, 'verification_status', new.verification_status, 'ssl_status', new.ssl_status, 'errors', json(new.errors)), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' custom_domain.active ') > 0; end`,
  `CREATE TRIGGER webhooks_domain_active_update after update on custom_domains when (new.verification_status = 'active' and new.ssl_status = 'active') and not (old.verification_status = 'active' and old.ssl_status = 'active')
     begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'custom_domain.active', json_object('user_id', new.user_id, 'hostname', new.hostname, 'verification_status', new.verification_status, 'ssl_status', new.ssl_status, 'errors', json(new.errors)), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' custom_domain.active ') > 0; end`,
  `CREATE TRIGGER webhooks_domain_failed_insert after insert on custom_domains when (new.verification_status in ('blocked', 'moved', 'deleted') or new.ssl_status like '%timed_out' or new.errors <> '[]')
     begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'custom_domain.failed', json_object('user_id', new.user_id, 'hostname', new.hostname, 'verification_status', new.verification_status, 'ssl_status', new.ssl_status, 'errors', json(new.errors)), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' custom_domain.failed ') > 0; end`,
  `CREATE TRIGGER webhooks_domain_failed_update after update on custom_domains when (new.verification_status in ('blocked', 'moved', 'deleted') or new.ssl_status like '%timed_out' or new.errors <> '[]') and not (old.verification_status in ('blocked', 'moved', 'deleted') or old.ssl_status like '%timed_out' or old.errors <> '[]')
     begin 
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'custom_domain.failed', json_object('user_id', new.user_id, 'hostname', new.hostname, 'verification_status', new.verification_status, 'ssl_status', new.ssl_status, 'errors', json(new.errors)), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
      from webhooks w
     where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' custom_domain.failed ') > 0; end`,
  `CREATE TRIGGER webhooks_quota_update after update on account_totals when exists (select 1 from webhooks w where w.user_id = new.user_id and w.enabled = 1 and (instr(' ' || w.events || ' ', ' quota.warning ') > 0 or instr(' ' || w.events || ' ', ' quota.reached ') > 0))
     begin insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'quota.warning',
             json_object('resource', 'storage', 'used', new.storage_bytes + new.reserved_bytes, 'limit', q.lim), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from webhooks w, (select coalesce((select l.storage_bytes from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.storage_bytes from webhook_plan_limits l where l.plan_name = '')) as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' quota.warning ') > 0
         and q.lim > 0 and (old.storage_bytes + old.reserved_bytes) * 5 < q.lim * 4 and (new.storage_bytes + new.reserved_bytes) * 5 >= q.lim * 4;
insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'quota.reached',
             json_object('resource', 'storage', 'used', new.storage_bytes + new.reserved_bytes, 'limit', q.lim), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from webhooks w, (select coalesce((select l.storage_bytes from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.storage_bytes from webhook_plan_limits l where l.plan_name = '')) as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' quota.reached ') > 0
         and q.lim > 0 and (old.storage_bytes + old.reserved_bytes) * 1 < q.lim * 1 and (new.storage_bytes + new.reserved_bytes) * 1 >= q.lim * 1;
insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'quota.warning',
             json_object('resource', 'files', 'used', new.files_count + new.reserved_files, 'limit', q.lim), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from webhooks w, (select coalesce((select l.files from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.files from webhook_plan_limits l where l.plan_name = '')) as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' quota.warning ') > 0
         and q.lim > 0 and (old.files_count + old.reserved_files) * 5 < q.lim * 4 and (new.files_count + new.reserved_files) * 5 >= q.lim * 4;
insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'quota.reached',
             json_object('resource', 'files', 'used', new.files_count + new.reserved_files, 'limit', q.lim), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from webhooks w, (select coalesce((select l.files from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.files from webhook_plan_limits l where l.plan_name = '')) as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' quota.reached ') > 0
         and q.lim > 0 and (old.files_count + old.reserved_files) * 1 < q.lim * 1 and (new.files_count + new.reserved_files) * 1 >= q.lim * 1; end`,
  `CREATE TRIGGER webhooks_quota_insert after insert on account_totals when exists (select 1 from webhooks w where w.user_id = new.user_id and w.enabled = 1 and (instr(' ' || w.events || ' ', ' quota.warning ') > 0 or instr(' ' || w.events || ' ', ' quota.reached ') > 0))
     begin insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'quota.warning',
             json_object('resource', 'storage', 'used', new.storage_bytes + new.reserved_bytes, 'limit', q.lim), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from webhooks w, (select coalesce((select l.storage_bytes from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.storage_bytes from webhook_plan_limits l where l.plan_name = '')) as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' quota.warning ') > 0
         and q.lim > 0 and (0) * 5 < q.lim * 4 and (new.storage_bytes + new.reserved_bytes) * 5 >= q.lim * 4;
insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'quota.reached',
             json_object('resource', 'storage', 'used', new.storage_bytes + new.reserved_bytes, 'limit', q.lim), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from webhooks w, (select coalesce((select l.storage_bytes from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.storage_bytes from webhook_plan_limits l where l.plan_name = '')) as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' quota.reached ') > 0
         and q.lim > 0 and (0) * 1 < q.lim * 1 and (new.storage_bytes + new.reserved_bytes) * 1 >= q.lim * 1;
insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'quota.warning',
             json_object('resource', 'files', 'used', new.files_count + new.reserved_files, 'limit', q.lim), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from webhooks w, (select coalesce((select l.files from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.files from webhook_plan_limits l where l.plan_name = '')) as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' quota.warning ') > 0
         and q.lim > 0 and (0) * 5 < q.lim * 4 and (new.files_count + new.reserved_files) * 5 >= q.lim * 4;
insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, 'quota.reached',
             json_object('resource', 'files', 'used', new.files_count + new.reserved_files, 'limit', q.lim), cast((julianday('now') - 2440587.5) * 86400000 as integer), 0, cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from webhooks w, (select coalesce((select l.files from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.files from webhook_plan_limits l where l.plan_name = '')) as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' quota.reached ') > 0
         and q.lim > 0 and (0) * 1 < q.lim * 1 and (new.files_count + new.reserved_files) * 1 >= q.lim * 1; end`,
];

const POSTGRES: readonly string[] = [
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
  `CREATE FUNCTION hangar_notify_plans() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      begin
        perform pg_notify(left('hangar:' || tg_table_schema, 63), '{"kind":"plans"}');
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
  `CREATE FUNCTION hangar_webhook_domains() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    declare
      snapshot jsonb := jsonb_build_object('user_id', new.user_id, 'hostname', new.hostname, 'verification_status', new.verification_status, 'ssl_status', new.ssl_status, 'errors', new.errors::jsonb);
    begin
      if not exists (select 1 from webhooks where user_id = new.user_id and enabled = 1) then return null; end if;
      if (new.verification_status = 'active' and new.ssl_status = 'active') and (tg_op = 'INSERT' or not (old.verification_status = 'active' and old.ssl_status = 'active')) then
        perform hangar_webhook_enqueue(new.user_id, 'custom_domain.active', snapshot);
      end if;
      if (new.verification_status in ('blocked', 'moved', 'deleted') or new.ssl_status like '%timed_out' or new.errors <> '[]') and (tg_op = 'INSERT' or not (old.verification_status in ('blocked', 'moved', 'deleted') or old.ssl_status like '%timed_out' or old.errors <> '[]')) then
        perform hangar_webhook_enqueue(new.user_id, 'custom_domain.failed', snapshot);
      end if;
      return null;
    end $$`,
  `CREATE FUNCTION hangar_webhook_enqueue(p_user_id text, p_type text, p_snapshot jsonb) RETURNS void
    LANGUAGE plpgsql
    AS $$
    declare now_ms bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
    begin
      insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.id, p_user_id, p_type, p_snapshot::text, now_ms, 0, now_ms
        from webhooks w
       where w.user_id = p_user_id and w.enabled = 1 and position(' ' || p_type || ' ' in ' ' || w.events || ' ') > 0;
    end $$`,
  `CREATE FUNCTION hangar_webhook_files() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    declare
      target text := case when tg_op = 'DELETE' then old.user_id else new.user_id end;
    begin
      if not exists (select 1 from webhooks where user_id = target and enabled = 1) then return null; end if;
      if tg_op = 'INSERT' then
        perform hangar_webhook_enqueue(new.user_id, 'file.created', jsonb_build_object('id', new.id, 'user_id', new.user_id, 'file_id', new.file_id, 'name', new.name, 'content_type', new.content_type, 'size', new.size, 'sha256', new.sha256, 'is_public', new.is_public, 'created_at', new.created_at, 'blob_key', new.blob_key, 'expires_at', new.expires_at, 'view_count', new.view_count, 'download_count', new.download_count));
      elsif tg_op = 'UPDATE' then
        if new.name is distinct from old.name or new.is_public is distinct from old.is_public or new.expires_at is distinct from old.expires_at then
          perform hangar_webhook_enqueue(new.user_id, 'file.updated', jsonb_build_object('id', new.id, 'user_id', new.user_id, 'file_id', new.file_id, 'name', new.name, 'content_type', new.content_type, 'size', new.size, 'sha256', new.sha256, 'is_public', new.is_public, 'created_at', new.created_at, 'blob_key', new.blob_key, 'expires_at', new.expires_at, 'view_count', new.view_count, 'download_count', new.download_count));
        end if;
      else
        perform hangar_webhook_enqueue(old.user_id, 'file.deleted', jsonb_build_object('id', old.id, 'user_id', old.user_id, 'file_id', old.file_id, 'name', old.name, 'content_type', old.content_type, 'size', old.size, 'sha256', old.sha256, 'is_public', old.is_public, 'created_at', old.created_at, 'blob_key', old.blob_key, 'expires_at', old.expires_at, 'view_count', old.view_count, 'download_count', old.download_count)
          || jsonb_build_object('reason', coalesce(nullif(current_setting('hangar.file_delete_reason', true), ''), 'deleted')));
      end if;
      return null;
    end $$`,
  `CREATE FUNCTION hangar_webhook_quota() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    declare
      old_storage bigint := 0;
      old_files bigint := 0;
      new_storage bigint := new.storage_bytes + new.reserved_bytes;
      new_files bigint := new.files_count + new.reserved_files;
      lim record;
    begin
      if not exists (select 1 from webhooks where user_id = new.user_id and enabled = 1
                      and (position(' quota.warning ' in ' ' || events || ' ') > 0 or position(' quota.reached ' in ' ' || events || ' ') > 0)) then
        return null;
      end if;
      if tg_op = 'UPDATE' then
        old_storage := old.storage_bytes + old.reserved_bytes;
        old_files := old.files_count + old.reserved_files;
      end if;
      select l.storage_bytes, l.files into lim from webhook_plan_limits l
       where l.plan_name = coalesce((select u.plan_name from users u join webhook_plan_limits p on p.plan_name = u.plan_name where u.id = new.user_id), '');
      if not found then return null; end if;
      if lim.storage_bytes > 0 and old_storage * 5 < lim.storage_bytes * 4 and new_storage * 5 >= lim.storage_bytes * 4 then
        perform hangar_webhook_enqueue(new.user_id, 'quota.warning', jsonb_build_object('resource', 'storage', 'used', new_storage, 'limit', lim.storage_bytes));
      end if;
      if lim.storage_bytes > 0 and old_storage < lim.storage_bytes and new_storage >= lim.storage_bytes then
        perform hangar_webhook_enqueue(new.user_id, 'quota.reached', jsonb_build_object('resource', 'storage', 'used', new_storage, 'limit', lim.storage_bytes));
      end if;
      if lim.files > 0 and old_files * 5 < lim.files * 4 and new_files * 5 >= lim.files * 4 then
        perform hangar_webhook_enqueue(new.user_id, 'quota.warning', jsonb_build_object('resource', 'files', 'used', new_files, 'limit', lim.files));
      end if;
      if lim.files > 0 and old_files < lim.files and new_files >= lim.files then
        perform hangar_webhook_enqueue(new.user_id, 'quota.reached', jsonb_build_object('resource', 'files', 'used', new_files, 'limit', lim.files));
      end if;
      return null;
    end $$`,
  `CREATE FUNCTION hangar_webhook_shares() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    declare
      target text := case when tg_op = 'DELETE' then old.user_id else new.user_id end;
    begin
      if not exists (select 1 from webhooks where user_id = target and enabled = 1) then return null; end if;
      if tg_op = 'INSERT' then
        perform hangar_webhook_enqueue(new.user_id, 'share.created', jsonb_build_object('id', new.id, 'user_id', new.user_id, 'file_id', new.file_id, 'file_record_id', new.file_record_id, 'expires_at', new.expires_at, 'max_downloads', new.max_downloads, 'downloads', new.downloads, 'created_at', new.created_at) || jsonb_build_object('has_password', new.password_hash is not null));
      elsif tg_op = 'UPDATE' then
        if new.max_downloads is not null and new.downloads >= new.max_downloads and old.downloads < new.max_downloads then
          perform hangar_webhook_enqueue(new.user_id, 'share.exhausted', jsonb_build_object('id', new.id, 'user_id', new.user_id, 'file_id', new.file_id, 'file_record_id', new.file_record_id, 'expires_at', new.expires_at, 'max_downloads', new.max_downloads, 'downloads', new.downloads, 'created_at', new.created_at) || jsonb_build_object('has_password', new.password_hash is not null));
        end if;
      else
        perform hangar_webhook_enqueue(old.user_id, 'share.revoked', jsonb_build_object('id', old.id, 'user_id', old.user_id, 'file_id', old.file_id, 'file_record_id', old.file_record_id, 'expires_at', old.expires_at, 'max_downloads', old.max_downloads, 'downloads', old.downloads, 'created_at', old.created_at) || jsonb_build_object('has_password', old.password_hash is not null));
      end if;
      return null;
    end $$`,
  `CREATE TABLE account_deletions (
    user_id text NOT NULL,
    email text NOT NULL,
    requested_at bigint NOT NULL,
    actor_id text,
    actor_email text NOT NULL,
    actor_client text,
    files_deleted bigint DEFAULT 0 NOT NULL,
    lease_owner text,
    lease_until bigint DEFAULT 0 NOT NULL
)`,
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
  `CREATE TABLE admin_audit (
    id text NOT NULL,
    created_at bigint NOT NULL,
    actor_id text,
    actor_email text NOT NULL,
    action text NOT NULL,
    target_id text,
    target_email text,
    client text,
    before_json text,
    after_json text
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
  `CREATE TABLE file_media (
    file_record_id text NOT NULL,
    width integer,
    height integer,
    duration_seconds double precision,
    thumbhash text,
    state text NOT NULL,
    computed_at bigint NOT NULL
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
    metadata_removed text,
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
  `CREATE TABLE plan_overrides (
    name text NOT NULL,
    definition text NOT NULL,
    updated_at bigint NOT NULL
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
    rotated_at bigint,
    sealed_successor text
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
    ip text,
    second_factor_at bigint
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
    created_at bigint NOT NULL,
    api_key_id text
)`,
  `CREATE TABLE totp_factors (
    user_id text NOT NULL,
    sealed_secret text NOT NULL,
    confirmed_at bigint,
    last_time_step bigint,
    created_at bigint NOT NULL
)`,
  `CREATE TABLE upload_urls (
    id text NOT NULL,
    user_id text NOT NULL,
    expires_at bigint NOT NULL,
    max_size_bytes bigint,
    content_types text,
    name text,
    is_public integer NOT NULL,
    file_expires_at bigint,
    created_at bigint NOT NULL,
    used_at bigint,
    resumable_upload_id text,
    api_key_id text
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
    last_reset_email_sent_at bigint,
    role text DEFAULT 'user'::text NOT NULL,
    suspended_at bigint,
    storage_limit_bytes bigint,
    file_count_limit bigint,
    image_metadata text DEFAULT 'strip_location'::text NOT NULL
)`,
  `CREATE TABLE webhook_deliveries (
    id text NOT NULL,
    webhook_id text NOT NULL,
    user_id text NOT NULL,
    event_type text NOT NULL,
    snapshot text NOT NULL,
    created_at bigint NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at bigint NOT NULL,
    claimed_by text,
    claimed_until bigint,
    last_status integer,
    last_error text,
    duration_ms integer,
    sent_at bigint,
    failed_at bigint
)`,
  `CREATE TABLE webhook_plan_limits (
    plan_name text NOT NULL,
    storage_bytes bigint NOT NULL,
    files bigint NOT NULL
)`,
  `CREATE TABLE webhooks (
    id text NOT NULL,
    user_id text NOT NULL,
    url text NOT NULL,
    events text NOT NULL,
    description text,
    enabled integer DEFAULT 1 NOT NULL,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_until bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    last_success_at bigint,
    failing_since bigint,
    disabled_reason text
)`,
  `ALTER TABLE ONLY account_deletions
    ADD CONSTRAINT account_deletions_pkey PRIMARY KEY (user_id)`,
  `ALTER TABLE ONLY account_totals
    ADD CONSTRAINT account_totals_pkey PRIMARY KEY (user_id)`,
  `ALTER TABLE ONLY activity_log_totals
    ADD CONSTRAINT activity_log_totals_pkey PRIMARY KEY (user_id)`,
  `ALTER TABLE ONLY activity_logs
    ADD CONSTRAINT activity_logs_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY admin_audit
    ADD CONSTRAINT admin_audit_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY custom_domains
    ADD CONSTRAINT custom_domains_pkey PRIMARY KEY (user_id)`,
  `ALTER TABLE ONLY file_media
    ADD CONSTRAINT file_media_pkey PRIMARY KEY (file_record_id)`,
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
  `ALTER TABLE ONLY plan_overrides
    ADD CONSTRAINT plan_overrides_pkey PRIMARY KEY (name)`,
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
  `ALTER TABLE ONLY upload_urls
    ADD CONSTRAINT upload_urls_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY usage_periods
    ADD CONSTRAINT usage_periods_pkey PRIMARY KEY (user_id, period_start)`,
  `ALTER TABLE ONLY users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY webhook_plan_limits
    ADD CONSTRAINT webhook_plan_limits_pkey PRIMARY KEY (plan_name)`,
  `ALTER TABLE ONLY webhooks
    ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id)`,
  `CREATE INDEX account_deletions_lease ON account_deletions USING btree (lease_until)`,
  `CREATE INDEX activity_logs_actions ON activity_logs USING btree (user_id, created_at, id) WHERE (method <> ALL (ARRAY['GET'::text, 'HEAD'::text, 'OPTIONS'::text]))`,
  `CREATE INDEX activity_logs_created_at ON activity_logs USING btree (created_at)`,
  `CREATE INDEX activity_logs_user_id_created_at_id ON activity_logs USING btree (user_id, created_at, id)`,
  `CREATE INDEX admin_audit_created_at ON admin_audit USING btree (created_at, id)`,
  `CREATE INDEX admin_audit_target ON admin_audit USING btree (target_id, created_at)`,
  `CREATE UNIQUE INDEX api_keys_key_hash_unique ON api_keys USING btree (key_hash)`,
  `CREATE INDEX api_keys_user_id_created_at_id ON api_keys USING btree (user_id, created_at, id)`,
  `CREATE UNIQUE INDEX custom_domains_hostname_unique ON custom_domains USING btree (hostname)`,
  `CREATE INDEX files_expires_at ON files USING btree (expires_at) WHERE (expires_at IS NOT NULL)`,
  `CREATE UNIQUE INDEX files_file_id_unique ON files USING btree (file_id)`,
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
  `CREATE INDEX shares_api_key_id ON shares USING btree (api_key_id)`,
  `CREATE INDEX shares_file_record_id ON shares USING btree (file_record_id)`,
  `CREATE INDEX shares_user_id_file_id ON shares USING btree (user_id, file_id, created_at)`,
  `CREATE INDEX upload_urls_api_key_id ON upload_urls USING btree (api_key_id)`,
  `CREATE INDEX upload_urls_expires_at ON upload_urls USING btree (expires_at)`,
  `CREATE INDEX upload_urls_user_id ON upload_urls USING btree (user_id)`,
  `CREATE INDEX users_admins ON users USING btree (role) WHERE (role = 'admin'::text)`,
  `CREATE INDEX users_created_at_id ON users USING btree (created_at, id)`,
  `CREATE UNIQUE INDEX users_email_unique ON users USING btree (email)`,
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries USING btree (next_attempt_at, id) WHERE ((sent_at IS NULL) AND (failed_at IS NULL))`,
  `CREATE INDEX webhook_deliveries_webhook_id_created_at ON webhook_deliveries USING btree (webhook_id, created_at, id)`,
  `CREATE INDEX webhooks_user_id_created_at ON webhooks USING btree (user_id, created_at, id)`,
  `CREATE TRIGGER api_keys_changes AFTER DELETE OR UPDATE ON api_keys FOR EACH ROW EXECUTE FUNCTION hangar_notify_row()`,
  `CREATE TRIGGER custom_domains_changes AFTER INSERT OR DELETE OR UPDATE ON custom_domains FOR EACH ROW EXECUTE FUNCTION hangar_notify_row()`,
  `CREATE TRIGGER files_changes_deleted AFTER DELETE ON files REFERENCING OLD TABLE AS changed_files FOR EACH STATEMENT EXECUTE FUNCTION hangar_notify_files()`,
  `CREATE TRIGGER files_changes_updated AFTER UPDATE ON files REFERENCING OLD TABLE AS changed_files FOR EACH STATEMENT EXECUTE FUNCTION hangar_notify_files()`,
  `CREATE TRIGGER plan_overrides_changes AFTER INSERT OR DELETE OR UPDATE ON plan_overrides FOR EACH STATEMENT EXECUTE FUNCTION hangar_notify_plans()`,
  `CREATE TRIGGER sessions_changes AFTER DELETE OR UPDATE ON sessions FOR EACH ROW EXECUTE FUNCTION hangar_notify_row()`,
  `CREATE TRIGGER users_changes AFTER DELETE OR UPDATE ON users FOR EACH ROW EXECUTE FUNCTION hangar_notify_row()`,
  `CREATE TRIGGER webhooks_custom_domains AFTER INSERT OR UPDATE ON custom_domains FOR EACH ROW EXECUTE FUNCTION hangar_webhook_domains()`,
  `CREATE TRIGGER webhooks_files AFTER INSERT OR DELETE OR UPDATE OF name, is_public, expires_at ON files FOR EACH ROW EXECUTE FUNCTION hangar_webhook_files()`,
  `CREATE TRIGGER webhooks_quota AFTER INSERT OR UPDATE ON account_totals FOR EACH ROW EXECUTE FUNCTION hangar_webhook_quota()`,
  `CREATE TRIGGER webhooks_shares AFTER INSERT OR DELETE OR UPDATE OF downloads ON shares FOR EACH ROW EXECUTE FUNCTION hangar_webhook_shares()`,
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
  `ALTER TABLE ONLY file_media
    ADD CONSTRAINT file_media_file_record_id_fkey FOREIGN KEY (file_record_id) REFERENCES files(id) ON DELETE CASCADE`,
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
    ADD CONSTRAINT shares_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES api_keys(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY shares
    ADD CONSTRAINT shares_file_record_id_fkey FOREIGN KEY (file_record_id) REFERENCES files(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY shares
    ADD CONSTRAINT shares_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY totp_factors
    ADD CONSTRAINT totp_factors_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY upload_urls
    ADD CONSTRAINT upload_urls_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES api_keys(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY upload_urls
    ADD CONSTRAINT upload_urls_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY usage_periods
    ADD CONSTRAINT usage_periods_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON DELETE CASCADE`,
];
