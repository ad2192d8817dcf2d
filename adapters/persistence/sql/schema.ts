import type { ColumnType } from 'kysely';
import type { OneTimeTokenPurpose } from '../../../core/accounts/one-time-token-repository.js';
import type { PasskeyCeremony } from '../../../core/passkeys/passkey-challenge-repository.js';

/**
 * A 64-bit integer column: timestamps in Unix milliseconds and byte counts. Written as a number;
 * read back as a number from SQLite, and as a string from Postgres `bigint` (node-postgres keeps
 * 64-bit values exact that way), so readers convert with `Number()` (see rows.ts).
 */
export type Int64 = ColumnType<number | string | bigint, number, number>;
/** A nullable {@link Int64}. */
export type NullableInt64 = ColumnType<number | string | bigint | null, number | null, number | null>;
/** A boolean stored as INTEGER 0 or 1, the same on every dialect. */
export type Flag = ColumnType<number, 0 | 1, 0 | 1>;

/** `users`: one row per account (spec 2.1). */
export interface UsersTable {
  id: string;
  /** Normalised (trimmed, lower-cased); unique. */
  email: string;
  password_hash: string;
  email_confirmed_at: NullableInt64;
  /** Bytes; null = service default. */
  max_upload_size_bytes: NullableInt64;
  /** Unix ms of the last confirmation e-mail (its one-per-minute slot). */
  last_email_sent_at: NullableInt64;
  /** Unix ms of the last e-mail with a password reset link (its own slot; migration 0016). */
  last_reset_email_sent_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** Plan name; '' (accounts older than plans) means the default plan, as any unknown name does. */
  plan_name: ColumnType<string, string | undefined, string>;
  /** Unix ms; null = the trial never ends. */
  trial_ends_at: NullableInt64;
  /** Unix ms; null = no paid access. */
  access_until: NullableInt64;
  subscription_canceled_at: NullableInt64;
  created_at: Int64;
  updated_at: Int64;
  /** The account's key for signed URLs (base64url, 32 random bytes); null until its first signed URL (migration 0013). */
  signing_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** `user` or `admin` (migration 0045). */
  role: ColumnType<string, string | undefined, string>;
  /** Unix ms the account was suspended; null while active (migration 0045). */
  suspended_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** Bytes; the account's own storage limit set by an administrator, null = the plan's (migration 0045). */
  storage_limit_bytes: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** The account's own file count limit, null = the plan's (migration 0045). */
  file_count_limit: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** What uploads of images keep of their metadata: `strip_location`, `strip_all` or `keep` (migration 0048). */
  image_metadata: ColumnType<string, string | undefined, string>;
}

/** `plan_overrides`: plans set by administrators over the plans file (migration 0045). */
export interface PlanOverridesTable {
  name: string;
  /** JSON text of the plan (PlanOverrideStore's shape). */
  definition: string;
  /** Unix ms of the last change. */
  updated_at: Int64;
}

/** `admin_audit`: one row per administrator action (migration 0045, docs/admin.md). */
export interface AdminAuditTable {
  id: string;
  created_at: Int64;
  /** The administrator's account id; null for the CLI on the server. */
  actor_id: string | null;
  /** The administrator's e-mail, or `cli` for the CLI. */
  actor_email: string;
  action: string;
  target_id: string | null;
  target_email: string | null;
  /** The client address of the request; null for the CLI. */
  client: string | null;
  /** JSON text of the changed fields before and after; null when the action changes no field. */
  before_json: string | null;
  after_json: string | null;
}

/** `one_time_tokens`: e-mail confirmation and password reset tokens, by SHA-256 (hex). */
export interface OneTimeTokensTable {
  id: string;
  user_id: string;
  purpose: OneTimeTokenPurpose;
  /** Unique. */
  token_hash: string;
  redirect_to: string | null;
  /** Unix ms; the token is expired from this instant on. */
  expires_at: Int64;
  created_at: Int64;
}

/** `sessions`: one login session, the family of its refresh tokens. */
export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: Int64;
  revoked_at: NullableInt64;
  /** Unix ms of the last use (migration 0022); written at creation, null only for rows older than it (read as `created_at`). */
  last_used_at: ColumnType<number | string | bigint | null, number | undefined, number>;
  /** The User-Agent that opened the session (migration 0022). */
  user_agent: ColumnType<string | null, string | null | undefined, string | null>;
  /** The client IP that opened the session (migration 0022). */
  ip: ColumnType<string | null, string | null | undefined, string | null>;
  /** Unix ms when the session proved a second factor; null when it did not (migration 0049). */
  second_factor_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
}

/** `refresh_tokens`: every refresh token of a session, by SHA-256 (hex). */
export interface RefreshTokensTable {
  /** Primary key. */
  token_hash: string;
  session_id: string;
  created_at: Int64;
  rotated_at: NullableInt64;
  /** Once rotated: the next token, sealed (SecretBox), for a concurrent refresh within the reuse interval (migration 0043). */
  sealed_successor: ColumnType<string | null, string | null | undefined, string | null>;
}

/** `api_keys` (spec 2.3). */
export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  key_prefix: string;
  /** SHA-256 hex of the key; unique. */
  key_hash: string;
  created_at: Int64;
  last_used_at: NullableInt64;
  /** Space-separated scopes (docs/api-keys.md); every scope by default. */
  scopes: ColumnType<string, string | undefined, string>;
  /** Unix ms; null: never expires. */
  expires_at: NullableInt64;
}

/** `files`: one record per stored file (spec 2.4). */
export interface FilesTable {
  id: string;
  user_id: string;
  /** Public short id; unique. */
  file_id: string;
  name: string | null;
  content_type: string;
  /** Bytes. */
  size: Int64;
  sha256: string;
  is_public: Flag;
  created_at: Int64;
  blob_key: string;
  /** Folded name and file id (fileSearchText, file-search.ts), written at insert and rename; `q` is a LIKE on it, and its trigram indexes (0042) narrow that. */
  search_text: string;
  /** Unix ms when the file is deleted automatically; null: never (migration 0013). */
  expires_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** Reads served inline, and as attachments, as flushed so far (migration 0013). */
  view_count: ColumnType<number | string | bigint, number | undefined, number>;
  download_count: ColumnType<number | string | bigint, number | undefined, number>;
  /** What the upload removed from an image, a comma list of metadata kinds; null: nothing (migration 0048). */
  metadata_removed: ColumnType<string | null, string | null | undefined, string | null>;
}

/** `account_totals`: what each account stores, kept exact by every file insert and delete. */
export interface AccountTotalsTable {
  /** Primary key. */
  user_id: string;
  /** Bytes. */
  storage_bytes: Int64;
  files_count: Int64;
  /** Files with `is_public` 1, of `files_count`. */
  public_files_count: ColumnType<number | string | bigint, number | undefined, number>;
  /**
   * The account's version counter (migration 0005): moved by every insert, update and delete of its
   * files, in the same transaction; only ever grows. Kept listings are answered while it stands (KeptListings).
   */
  changes: ColumnType<number | string | bigint, number | undefined, number>;
  /** Bytes reserved by unfinished resumable uploads (migration 0019): counted against the storage limit. */
  reserved_bytes: ColumnType<number | string | bigint, number | undefined, number>;
  /** Unfinished resumable uploads (migration 0019): each counted against the file count limit. */
  reserved_files: ColumnType<number | string | bigint, number | undefined, number>;
}

/**
 * SQLite only (migration 0042): the contentless FTS5 table over `files.search_text` with the
 * built-in `trigram` tokenizer; its rowid is a key of {@link FilesTrigramKeysTable}. Kept by triggers on `files`.
 */
export interface FilesTrigramTable {
  rowid: number;
  search_text: string;
}

/**
 * SQLite only (migration 0042): the FTS5 row of each file. `key` is an INTEGER PRIMARY KEY, which
 * VACUUM never renumbers (the rowid of `files`, whose key is text, it may). Kept by triggers on `files`.
 */
export interface FilesTrigramKeysTable {
  key: number;
  /** `files.id`; unique. */
  file_record_id: string;
}

/** `usage_periods`: counters of one account in one billing period; primary key (user_id, period_start). */
export interface UsagePeriodsTable {
  user_id: string;
  /** Unix ms of the period's first instant. */
  period_start: Int64;
  origin_reads: Int64;
  image_ops: Int64;
}

/** `activity_logs`: one row per logged API request (spec 2.7). */
export interface ActivityLogsTable {
  id: string;
  user_id: string;
  method: string;
  /** Without the query string. */
  path: string;
  status_code: number;
  /** Bytes; null when unknown. */
  request_size_bytes: NullableInt64;
  created_at: Int64;
  /** JSON text of an object. */
  metadata: string;
}

/**
 * `activity_log_totals` (migration 0008): how many `activity_logs` entries each account has, kept
 * exact in the transactions that insert and prune them, so `GET /logs` reads its total instead of
 * counting; primary key user_id.
 */
export interface ActivityLogTotalsTable {
  user_id: string;
  entries: Int64;
}

/** `custom_domains`: each account's custom hostname (spec 2.5), at most one; primary key user_id. */
export interface CustomDomainsTable {
  user_id: string;
  /** Lower-case; unique across accounts (`custom_domains_hostname_unique`). */
  hostname: string;
  /** The edge provider's id of the hostname. */
  provider_id: string;
  /** The provider's hostname status, passed through (`pending`, `active`, …). */
  verification_status: string;
  /** The provider's certificate status, passed through (`initializing`, …, `active`). */
  ssl_status: string;
  /** JSON text of an array of `{ type, name, value, purpose }` (DnsRecord). */
  dns_records: string;
  /** JSON text of an array of strings. */
  errors: string;
  created_at: Int64;
  updated_at: Int64;
}

/** `image_variants` (migration 0012): derived images of each file, claimed then stored (core/images/image-variant-repository.ts). */
export interface ImageVariantsTable {
  /** `files.id`; with `variant`, the primary key. */
  file_record_id: string;
  variant: string;
  user_id: string;
  state: 'computing' | 'stored';
  /** Holder of a `computing` claim; null once stored. */
  claim_token: string | null;
  /** Unix ms: end of a `computing` claim's lease (0 once stored). */
  claimed_until: Int64;
  /** Bytes of the stored variant (0 while computing). */
  size: Int64;
  created_at: Int64;
}

/** `file_media` (migration 0047, docs/media.md): media facts of each file, one row per file record; rows go with their file. */
export interface FileMediaTable {
  /** `files.id`; the primary key. */
  file_record_id: string;
  /** Pixels after the EXIF orientation; null when unknown. */
  width: number | null;
  height: number | null;
  /** Seconds; null when unknown. */
  duration_seconds: number | null;
  /** Base64 ThumbHash; null when unknown. */
  thumbhash: string | null;
  state: 'probed' | 'failed';
  /** Unix ms. */
  computed_at: Int64;
}

/**
 * The Hangar database as Kysely sees it. One schema serves SQLite and Postgres: timestamps are
 * integers of Unix milliseconds, booleans integers 0/1, columns snake_case.
 */
/** `shares`: share links of files (migration 0014, docs/private-files.md); rows go with their file and user. */
/** Signed upload URLs (migration 0046, docs/media.md); rows go with their user (`on delete cascade`). */
export interface UploadUrlsTable {
  id: string;
  user_id: string;
  expires_at: Int64;
  max_size_bytes: NullableInt64;
  /** JSON array of media types; null: any. */
  content_types: string | null;
  name: string | null;
  is_public: Flag;
  file_expires_at: NullableInt64;
  created_at: Int64;
  /** When the URL was claimed by an upload; null: unused. */
  used_at: NullableInt64;
  /** The tus upload started through the URL; null: none. */
  resumable_upload_id: string | null;
  /** The API key that minted the URL (revoking it deletes the row); null: a session did. */
  api_key_id: string | null;
}

export interface SharesTable {
  id: string;
  user_id: string;
  /** Public file id of the shared file. */
  file_id: string;
  /** `files.id` of the shared file (`on delete cascade`). */
  file_record_id: string;
  /** argon2id hash (PHC string); null: no password. */
  password_hash: string | null;
  expires_at: NullableInt64;
  max_downloads: NullableInt64;
  downloads: Int64;
  created_at: Int64;
  /** The API key that made the share (`on delete cascade`, migration 0043); null: a session made it. */
  api_key_id: string | null;
}

/** `totp_factors`: one TOTP factor per account (migration 0021, docs/account-security.md). */
export interface TotpFactorsTable {
  /** Primary key; `on delete cascade` with the user. */
  user_id: string;
  /** AES-256-GCM sealed base32 secret (NodeSecretBox). */
  sealed_secret: string;
  confirmed_at: NullableInt64;
  /** RFC 6238 time step of the last accepted code. */
  last_time_step: NullableInt64;
  created_at: Int64;
}

/** `recovery_codes`: one-time codes of an account with TOTP on, by SHA-256 (hex) (migration 0021). */
export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: NullableInt64;
}

/** `mfa_challenges`: sign-ins waiting for their second factor, by SHA-256 (hex) of the `mfa_token` (migration 0021). */
export interface MfaChallengesTable {
  token_hash: string;
  user_id: string;
  created_at: Int64;
  expires_at: Int64;
}

/** `account_deletions`: accounts being deleted in the background, with the lease of the process deleting each (migration 0049). */
export interface AccountDeletionsTable {
  /** Primary key; no foreign key (the row outlives the account until the audit entry is written). */
  user_id: string;
  email: string;
  requested_at: Int64;
  actor_id: string | null;
  actor_email: string;
  actor_client: string | null;
  files_deleted: ColumnType<number | string | bigint, number | undefined, number>;
  lease_owner: string | null;
  /** Unix ms; 0 when no process holds the lease. */
  lease_until: ColumnType<number | string | bigint, number | undefined, number>;
}

export interface HangarDatabase {
  account_deletions: AccountDeletionsTable;
  users: UsersTable;
  admin_audit: AdminAuditTable;
  plan_overrides: PlanOverridesTable;
  one_time_tokens: OneTimeTokensTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  api_keys: ApiKeysTable;
  files: FilesTable;
  account_totals: AccountTotalsTable;
  files_trigram: FilesTrigramTable;
  files_trigram_keys: FilesTrigramKeysTable;
  usage_periods: UsagePeriodsTable;
  activity_logs: ActivityLogsTable;
  activity_log_totals: ActivityLogTotalsTable;
  custom_domains: CustomDomainsTable;
  image_variants: ImageVariantsTable;
  file_media: FileMediaTable;
  shares: SharesTable;
  upload_urls: UploadUrlsTable;
  mail_outbox: MailOutboxTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
  resumable_uploads: ResumableUploadsTable;
  totp_factors: TotpFactorsTable;
  recovery_codes: RecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  oidc_identities: OidcIdentitiesTable;
  oidc_flows: OidcFlowsTable;
  oidc_sign_in_codes: OidcSignInCodesTable;
  invites: InvitesTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** `passkeys`: WebAuthn credentials (migration 0023, core/passkeys/passkey.ts). Times in Unix ms. */
export interface PasskeysTable {
  id: string;
  user_id: string;
  name: string;
  /** base64url; unique. */
  credential_id: string;
  /** COSE key, base64url. */
  public_key: string;
  counter: Int64;
  /** JSON array of transport names. */
  transports: string;
  created_at: Int64;
  last_used_at: NullableInt64;
}

/** `passkey_challenges`: WebAuthn challenges not yet answered (migration 0024). Times in Unix ms. */
export interface PasskeyChallengesTable {
  challenge: string;
  ceremony: PasskeyCeremony;
  user_id: string | null;
  expires_at: Int64;
  created_at: Int64;
}

/** `resumable_uploads`: tus uploads, unfinished or recently complete (migration 0019, SqlResumableUploadRepository). Times in Unix ms. */
export interface ResumableUploadsTable {
  id: string;
  user_id: string;
  /** Unique: the File's public id, drawn at creation. */
  file_id: string;
  /** Bytes. */
  length: Int64;
  /** Bytes durable so far. */
  upload_offset: Int64;
  content_type: string;
  name: string | null;
  is_public: number;
  file_expires_at: Int64 | null;
  expires_at: Int64;
  /** JSON of the PartialBlobStore state. */
  partial_state: string;
  /** `uploading` or `complete`. */
  status: string;
  /** The PATCH holding the write lease, and until when. */
  lease_owner: string | null;
  leased_until: Int64 | null;
  created_at: Int64;
}

/** `mail_outbox`: e-mails accepted and not yet sent, or sent recently (migration 0018, SqlMailOutbox). Times in Unix ms. */
export interface MailOutboxTable {
  id: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  created_at: Int64;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Int64;
  claimed_by: string | null;
  claimed_until: NullableInt64;
  last_error: string | null;
  sent_at: NullableInt64;
  failed_at: NullableInt64;
}

/** `oidc_identities`: an account's link to a person at an OpenID provider (migration 0029). */
export interface OidcIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  email: string | null;
  created_at: Int64;
}

/** `oidc_flows`: sign-ins between the redirect and the callback, by SHA-256 hex of `state` (migration 0029). */
export interface OidcFlowsTable {
  state_hash: string;
  nonce: string;
  code_verifier: string;
  invite_hash: string | null;
  /** Unix ms. */
  expires_at: Int64;
}

/** `oidc_sign_in_codes`: single-use hand-over codes, by SHA-256 hex (migration 0029). */
export interface OidcSignInCodesTable {
  code_hash: string;
  user_id: string;
  /** Unix ms. */
  expires_at: Int64;
}

/** `invites`: single-use invites, by SHA-256 hex of their token (migration 0030). Times in Unix ms. */
export interface InvitesTable {
  id: string;
  token_hash: string;
  plan_name: string | null;
  created_at: Int64;
  expires_at: NullableInt64;
  used_at: NullableInt64;
  used_by: string | null;
  revoked_at: NullableInt64;
}

/** `webhooks`: an account's webhook endpoints (migration 0044, docs/webhooks.md). Times in Unix ms. */
export interface WebhooksTable {
  id: string;
  /** No foreign key: endpoints outlive a deleted account until their pending deliveries are out. */
  user_id: string;
  /** `https://…` (or `http://` with WEBHOOK_ALLOW_HTTP). */
  url: string;
  /** Space-separated event types (core/webhooks/webhook.ts). */
  events: string;
  description: string | null;
  enabled: Flag;
  /** The signing secret, `whsec_` + base64 (Standard Webhooks). */
  secret: string;
  /** The secret before the last rotation, still signing alongside until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: NullableInt64;
  created_at: Int64;
  updated_at: Int64;
  last_success_at: NullableInt64;
  /** The first failed delivery since the last success; null while the endpoint succeeds. */
  failing_since: NullableInt64;
  /** Why the service turned the endpoint off (`failing`); null when enabled or turned off by its owner. */
  disabled_reason: string | null;
}

/**
 * `webhook_deliveries`: the outbox of webhook deliveries, one row per event and endpoint, written by
 * the triggers of migration 0044 in the transaction of the change (SqlWebhookOutbox delivers them).
 */
export interface WebhookDeliveriesTable {
  /** The `webhook-id` header: the same on every attempt. */
  id: string;
  webhook_id: string;
  user_id: string;
  event_type: string;
  /** JSON of the changed row as the trigger saw it. */
  snapshot: string;
  /** When the event happened (Unix ms): the payload's `timestamp`. */
  created_at: Int64;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Int64;
  claimed_by: string | null;
  claimed_until: NullableInt64;
  /** HTTP status of the last attempt; null when it got no answer. */
  last_status: number | null;
  last_error: string | null;
  /** Duration of the last attempt, in ms. */
  duration_ms: number | null;
  /** Delivered (a 2xx answer). */
  sent_at: NullableInt64;
  /** Given up after the last attempt. */
  failed_at: NullableInt64;
}
