// Shapes of the API's JSON bodies the dashboard reads (spec 2; GET /reference/openapi.json).

/** File object (spec 2.4). */
export interface HangarFile {
  id: string;
  file_id: string;
  name: string | null;
  content_type: string | null;
  size: number | null;
  public_url: string | null;
  default_url: string | null;
  default_download_url: string | null;
  public_download_url: string | null;
  view_url: string | null;
  created_at: string | null;
  is_public: boolean | null;
  /** When the file is deleted automatically; null: never. */
  expires_at?: string | null;
  /** Media facts (docs/media.md): pixels as shown, seconds, base64 ThumbHash; null when unknown. */
  width?: number | null;
  height?: number | null;
  duration_seconds?: number | null;
  thumbhash?: string | null;
  view_count?: number;
  download_count?: number;
  /** What the upload removed from an image (`location`, `exif`, `xmp`, `iptc`, `comment`). */
  metadata_removed?: string[];
}

/** Share link (docs/private-files.md). */
export interface Share {
  share_id: string;
  url: string;
  file_id: string;
  has_password: boolean;
  expires_at: string | null;
  max_downloads: number | null;
  downloads: number;
  created_at: string;
}

/** API key (spec 2.3); `key` only in the create response. */
export interface ApiKey {
  id: string;
  key?: string;
  key_prefix: string;
  name: string;
  created_at: string;
  last_used_at?: string | null;
  /** What the key may do (files:read, files:write, files:delete, account:read). */
  scopes?: string[];
  /** When it stops working; null: never. */
  expires_at?: string | null;
  expired?: boolean;
}

/** A DNS record to create for the custom domain. */
export interface DnsRecord {
  type: 'CNAME' | 'A' | 'AAAA' | 'TXT';
  name: string;
  value: string;
  purpose: 'routing' | 'ownership' | 'ssl_validation';
}

/** Settings object (spec 2.5) with the custom domain's records and errors. */
export interface Settings {
  public_url_base: string;
  custom_domain: {
    hostname: string;
    verification_status: string;
    ssl_status: string;
    updated_at: string;
    dns_records: DnsRecord[];
    errors: string[];
  } | null;
  max_upload_size_bytes: number;
  /** What uploads of images keep of their metadata (docs/image-metadata.md). */
  image_metadata: 'strip_location' | 'strip_all' | 'keep';
}

/** Usage object (spec 2.6). */
export interface Usage {
  storage_bytes: number;
  files_count: number;
  origin_reads: number;
  image_ops: number;
  period_start: string;
  period_end: string;
}

/** Log entry (spec 2.7). */
export interface LogEntry {
  id: string;
  method: string;
  path: string;
  status_code: number;
  request_size_bytes: number | null;
  created_at: string;
  metadata: { auth?: string; api_key_id?: string; [key: string]: unknown };
}

/** Profile (spec 2.8). */
export interface Profile {
  user: { id: string; email: string; created_at: string; email_confirmed_at: string | null };
  /** `admin`: the Admin section is shown (docs/admin.md). */
  role?: 'user' | 'admin';
  plan: {
    name: string;
    trial_ends_at: string | null;
    trial_active: boolean;
    storage_limit_bytes: number;
    file_count_limit: number;
    max_upload_size_bytes: number;
    /** Image transformations per billing period; null or absent: unlimited. */
    image_ops_limit?: number | null;
  };
  subscription: { status: 'active' | 'canceled' | 'trialing' | 'free' | 'expired'; subscription_canceled_at: string | null; access_until: string | null };
  upload_limit_bytes: number;
}

/** A webhook endpoint (docs/webhooks.md); `secret` only right after creation or rotation. */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  secret?: string;
}

/** One entry of a webhook's delivery log. */
export interface WebhookDelivery {
  id: string;
  event_type: string;
  created_at: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  duration_ms: number | null;
  next_attempt_at: string | null;
}
