/**
 * 0044: webhooks (docs/webhooks.md). Adds the accounts' endpoints (`webhooks`), the durable outbox of
 * their deliveries (`webhook_deliveries`) and the database triggers that fill it: an insert, update or
 * delete of `files`, an insert, exhausting update or delete of `shares`, and a custom domain becoming
 * active or failing each write one delivery row per enabled endpoint of the account that asked for the
 * event, in the transaction of the change itself, so no committed change is missed and no rolled-back one
 * is sent. The row holds a snapshot of the changed row (never a password hash); the delivery worker
 * renders the payload from it.
 *
 * A file delete's reason (`deleted`, `bulk_deleted`, `expired`, `account_deleted`) is what the deleting
 * transaction declared beforehand: on Postgres the transaction-local setting `hangar.file_delete_reason`,
 * on SQLite the one row of `webhook_delete_context` (written and removed inside that transaction; SQLite
 * has one writer at a time, so no other transaction sees it); `deleted` when none was declared.
 *
 * Quota events come from a trigger on `account_totals`: when an account's use (stored plus reserved
 * bytes, or files plus reserved files) passes 80 % (`quota.warning`) or 100 % (`quota.reached`) of its
 * plan's limit between the old and the new row, once per crossing. The limits live in the configuration,
 * so the server writes each plan's limits to `webhook_plan_limits` at start (plan `''`: the default plan,
 * which accounts of an unknown plan also get).
 *
 * `webhooks.user_id` has no foreign key on purpose: an account's endpoints outlive its row until their
 * pending deliveries (the `account_deleted` file events) have gone out; the worker then removes them.
 *
 * API keys holding every scope of the time (full access) receive the new `webhooks:manage` scope, so they
 * stay full-access keys.
 */
import { type Kysely, sql } from 'kysely';

/** The file columns a snapshot carries (they exist since 0013 and mean the same on both dialects). */
const FILE_COLUMNS = ['id', 'user_id', 'file_id', 'name', 'content_type', 'size', 'sha256', 'is_public', 'created_at', 'blob_key', 'expires_at', 'view_count', 'download_count'] as const;
/** The share columns a snapshot carries; `password_hash` only as `has_password`. */
const SHARE_COLUMNS = ['id', 'user_id', 'file_id', 'file_record_id', 'expires_at', 'max_downloads', 'downloads', 'created_at'] as const;
/** The scopes of a full-access key before this migration, as stored (space-separated, in this order). */
const FULL_SCOPES_BEFORE = 'files:read files:write files:delete account:read';

async function createTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_success_at', 'bigint')
    .addColumn('failing_since', 'bigint')
    .addColumn('disabled_reason', 'text')
    .execute();
  await db.schema.createIndex('webhooks_user_id_created_at').on('webhooks').columns(['user_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey().notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'bigint')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('sent_at', 'bigint')
    .addColumn('failed_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_deliveries_webhook_id_created_at').on('webhook_deliveries').columns(['webhook_id', 'created_at', 'id']).execute();
  // The worker's search for due rows reads only unfinished ones.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'id'])
    .where(sql.ref('sent_at'), 'is', null)
    .where(sql.ref('failed_at'), 'is', null)
    .execute();
  await db.schema
    .createTable('webhook_plan_limits')
    .addColumn('plan_name', 'text', (c) => c.primaryKey().notNull())
    .addColumn('storage_bytes', 'bigint', (c) => c.notNull())
    .addColumn('files', 'bigint', (c) => c.notNull())
    .execute();
  await db.updateTable('api_keys').set({ scopes: `${FULL_SCOPES_BEFORE} webhooks:manage` }).where('scopes', '=', FULL_SCOPES_BEFORE).execute();
}

/** SQLite: tables, the delete-reason row and one trigger per event. */
export async function sqlite(db: Kysely<any>): Promise<void> {
  await createTables(db);
  await sql`create table webhook_delete_context (id integer primary key check (id = 1), reason text not null)`.execute(db);

  const nowMs = `cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
  const json = (row: 'new' | 'old', columns: readonly string[], extra = '') =>
    `json_object(${columns.map((column) => `'${column}', ${row}.${column}`).join(', ')}${extra})`;
  const enqueue = (type: string, userId: string, snapshot: string) => `
    insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
    select 'msg_' || lower(hex(randomblob(16))), w.id, ${userId}, '${type}', ${snapshot}, ${nowMs}, 0, ${nowMs}
      from webhooks w
     where w.user_id = ${userId} and w.enabled = 1 and instr(' ' || w.events || ' ', ' ${type} ') > 0;`;
  const shareJson = (row: 'new' | 'old') => json(row, SHARE_COLUMNS, `, 'has_password', ${row}.password_hash is not null`);
  const domainFailed = (row: 'new' | 'old') =>
    `(${row}.verification_status in ('blocked', 'moved', 'deleted') or ${row}.ssl_status like '%timed_out' or ${row}.errors <> '[]')`;
  const domainActive = (row: 'new' | 'old') => `(${row}.verification_status = 'active' and ${row}.ssl_status = 'active')`;
  const domainJson = `json_object('user_id', new.user_id, 'hostname', new.hostname, 'verification_status', new.verification_status, 'ssl_status', new.ssl_status, 'errors', json(new.errors))`;

  const triggers = [
    `create trigger webhooks_file_created after insert on files begin ${enqueue('file.created', 'new.user_id', json('new', FILE_COLUMNS))} end`,
    `create trigger webhooks_file_updated after update of name, is_public, expires_at on files
       when old.name is not new.name or old.is_public is not new.is_public or old.expires_at is not new.expires_at
     begin ${enqueue('file.updated', 'new.user_id', json('new', FILE_COLUMNS))} end`,
    `create trigger webhooks_file_deleted after delete on files begin ${enqueue(
      'file.deleted',
      'old.user_id',
      json('old', FILE_COLUMNS, `, 'reason', coalesce((select reason from webhook_delete_context where id = 1), 'deleted')`),
    )} end`,
    `create trigger webhooks_share_created after insert on shares begin ${enqueue('share.created', 'new.user_id', shareJson('new'))} end`,
    `create trigger webhooks_share_exhausted after update of downloads on shares
       when new.max_downloads is not null and new.downloads >= new.max_downloads and old.downloads < new.max_downloads
     begin ${enqueue('share.exhausted', 'new.user_id', shareJson('new'))} end`,
    `create trigger webhooks_share_revoked after delete on shares begin ${enqueue('share.revoked', 'old.user_id', shareJson('old'))} end`,
    `create trigger webhooks_domain_active_insert after insert on custom_domains when ${domainActive('new')}
     begin ${enqueue('custom_domain.active', 'new.user_id', domainJson)} end`,
    `create trigger webhooks_domain_active_update after update on custom_domains when ${domainActive('new')} and not ${domainActive('old')}
     begin ${enqueue('custom_domain.active', 'new.user_id', domainJson)} end`,
    `create trigger webhooks_domain_failed_insert after insert on custom_domains when ${domainFailed('new')}
     begin ${enqueue('custom_domain.failed', 'new.user_id', domainJson)} end`,
    `create trigger webhooks_domain_failed_update after update on custom_domains when ${domainFailed('new')} and not ${domainFailed('old')}
     begin ${enqueue('custom_domain.failed', 'new.user_id', domainJson)} end`,
  ];
  // Quota crossings (old use → new use; on insert the old use is 0), against the account's plan's
  // limit, or the default plan's ('') when its plan has no row.
  const limitOf = (column: 'storage_bytes' | 'files') =>
    `coalesce((select l.${column} from users u join webhook_plan_limits l on l.plan_name = u.plan_name where u.id = new.user_id),
              (select l.${column} from webhook_plan_limits l where l.plan_name = ''))`;
  const crossing = (type: 'quota.warning' | 'quota.reached', resource: 'storage' | 'files', oldUse: string, newUse: string) => {
    const limit = limitOf(resource === 'storage' ? 'storage_bytes' : 'files');
    const [num, den] = type === 'quota.warning' ? [4, 5] : [1, 1];
    return `insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || lower(hex(randomblob(16))), w.id, new.user_id, '${type}',
             json_object('resource', '${resource}', 'used', ${newUse}, 'limit', q.lim), ${nowMs}, 0, ${nowMs}
        from webhooks w, (select ${limit} as lim) q
       where w.user_id = new.user_id and w.enabled = 1 and instr(' ' || w.events || ' ', ' ${type} ') > 0
         and q.lim > 0 and (${oldUse}) * ${den} < q.lim * ${num} and (${newUse}) * ${den} >= q.lim * ${num};`;
  };
  const quotaBody = (oldStorage: string, oldFiles: string) => {
    const newStorage = 'new.storage_bytes + new.reserved_bytes';
    const newFiles = 'new.files_count + new.reserved_files';
    return [
      crossing('quota.warning', 'storage', oldStorage, newStorage),
      crossing('quota.reached', 'storage', oldStorage, newStorage),
      crossing('quota.warning', 'files', oldFiles, newFiles),
      crossing('quota.reached', 'files', oldFiles, newFiles),
    ].join('\n');
  };
  const hasQuotaEndpoint = `exists (select 1 from webhooks w where w.user_id = new.user_id and w.enabled = 1 and (instr(' ' || w.events || ' ', ' quota.warning ') > 0 or instr(' ' || w.events || ' ', ' quota.reached ') > 0))`;
  triggers.push(
    `create trigger webhooks_quota_update after update on account_totals when ${hasQuotaEndpoint}
     begin ${quotaBody('old.storage_bytes + old.reserved_bytes', 'old.files_count + old.reserved_files')} end`,
    `create trigger webhooks_quota_insert after insert on account_totals when ${hasQuotaEndpoint}
     begin ${quotaBody('0', '0')} end`,
  );
  for (const trigger of triggers) await sql.raw(trigger).execute(db);
}

/** Postgres: tables, one enqueue function and one plpgsql trigger function per table. */
export async function postgres(db: Kysely<any>): Promise<void> {
  await createTables(db);
  const json = (row: 'new' | 'old', columns: readonly string[]) => `jsonb_build_object(${columns.map((column) => `'${column}', ${row}.${column}`).join(', ')})`;
  await sql
    .raw(`
    create function hangar_webhook_enqueue(p_user_id text, p_type text, p_snapshot jsonb) returns void language plpgsql as $$
    declare now_ms bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
    begin
      insert into webhook_deliveries (id, webhook_id, user_id, event_type, snapshot, created_at, attempts, next_attempt_at)
      select 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.id, p_user_id, p_type, p_snapshot::text, now_ms, 0, now_ms
        from webhooks w
       where w.user_id = p_user_id and w.enabled = 1 and position(' ' || p_type || ' ' in ' ' || w.events || ' ') > 0;
    end $$`)
    .execute(db);
  // Each trigger function first asks whether the account has an enabled endpoint at all (an index
  // probe), so accounts without webhooks pay nothing more for their writes.
  await sql
    .raw(`
    create function hangar_webhook_files() returns trigger language plpgsql as $$
    declare
      target text := case when tg_op = 'DELETE' then old.user_id else new.user_id end;
    begin
      if not exists (select 1 from webhooks where user_id = target and enabled = 1) then return null; end if;
      if tg_op = 'INSERT' then
        perform hangar_webhook_enqueue(new.user_id, 'file.created', ${json('new', FILE_COLUMNS)});
      elsif tg_op = 'UPDATE' then
        if new.name is distinct from old.name or new.is_public is distinct from old.is_public or new.expires_at is distinct from old.expires_at then
          perform hangar_webhook_enqueue(new.user_id, 'file.updated', ${json('new', FILE_COLUMNS)});
        end if;
      else
        perform hangar_webhook_enqueue(old.user_id, 'file.deleted', ${json('old', FILE_COLUMNS)}
          || jsonb_build_object('reason', coalesce(nullif(current_setting('hangar.file_delete_reason', true), ''), 'deleted')));
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql.raw(`create trigger webhooks_files after insert or update of name, is_public, expires_at or delete on files for each row execute function hangar_webhook_files()`).execute(db);
  await sql
    .raw(`
    create function hangar_webhook_shares() returns trigger language plpgsql as $$
    declare
      target text := case when tg_op = 'DELETE' then old.user_id else new.user_id end;
    begin
      if not exists (select 1 from webhooks where user_id = target and enabled = 1) then return null; end if;
      if tg_op = 'INSERT' then
        perform hangar_webhook_enqueue(new.user_id, 'share.created', ${json('new', SHARE_COLUMNS)} || jsonb_build_object('has_password', new.password_hash is not null));
      elsif tg_op = 'UPDATE' then
        if new.max_downloads is not null and new.downloads >= new.max_downloads and old.downloads < new.max_downloads then
          perform hangar_webhook_enqueue(new.user_id, 'share.exhausted', ${json('new', SHARE_COLUMNS)} || jsonb_build_object('has_password', new.password_hash is not null));
        end if;
      else
        perform hangar_webhook_enqueue(old.user_id, 'share.revoked', ${json('old', SHARE_COLUMNS)} || jsonb_build_object('has_password', old.password_hash is not null));
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql.raw(`create trigger webhooks_shares after insert or update of downloads or delete on shares for each row execute function hangar_webhook_shares()`).execute(db);
  const failed = (row: string) => `(${row}.verification_status in ('blocked', 'moved', 'deleted') or ${row}.ssl_status like '%timed_out' or ${row}.errors <> '[]')`;
  const active = (row: string) => `(${row}.verification_status = 'active' and ${row}.ssl_status = 'active')`;
  await sql
    .raw(`
    create function hangar_webhook_domains() returns trigger language plpgsql as $$
    declare
      snapshot jsonb := jsonb_build_object('user_id', new.user_id, 'hostname', new.hostname, 'verification_status', new.verification_status, 'ssl_status', new.ssl_status, 'errors', new.errors::jsonb);
    begin
      if not exists (select 1 from webhooks where user_id = new.user_id and enabled = 1) then return null; end if;
      if ${active('new')} and (tg_op = 'INSERT' or not ${active('old')}) then
        perform hangar_webhook_enqueue(new.user_id, 'custom_domain.active', snapshot);
      end if;
      if ${failed('new')} and (tg_op = 'INSERT' or not ${failed('old')}) then
        perform hangar_webhook_enqueue(new.user_id, 'custom_domain.failed', snapshot);
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql.raw(`create trigger webhooks_custom_domains after insert or update on custom_domains for each row execute function hangar_webhook_domains()`).execute(db);
  await sql
    .raw(`
    create function hangar_webhook_quota() returns trigger language plpgsql as $$
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
    end $$`)
    .execute(db);
  await sql.raw(`create trigger webhooks_quota after insert or update on account_totals for each row execute function hangar_webhook_quota()`).execute(db);
}
