import { KEY_SCOPES } from '../../core/api-keys/api-key-scopes.js';
import { Type } from '@sinclair/typebox';
import { MAX_PAGE_SIZE } from '../../core/shared/pagination.js';
import { IMAGE_METADATA_MODES, METADATA_KINDS } from '../../core/files/image-metadata/image-metadata-mode.js';

// Resource and request schemas of the API (spec 2, 4). Request schemas validate at run time;
// response schemas document (the OpenAPI document) and are checked by the HTTP tests.

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, milliseconds, Z' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const UserBody = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    created_at: Type.Optional(Timestamp),
    updated_at: Type.Optional(Timestamp),
  },
  { $id: 'User' },
);

/** A passkey as the API shows it (no key material). */
export const PasskeyBody = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'The last sign-in with it; null before the first' }),
  },
  { $id: 'Passkey' },
);

export const SessionBody = Type.Object(
  {
    access_token: Type.String(),
    refresh_token: Type.String(),
    expires_in: Type.Integer({ description: 'seconds' }),
    expires_at: Type.Integer({ description: 'Unix time, seconds' }),
    token_type: Type.Literal('bearer'),
  },
  {
    $id: 'Session',
    examples: [{ access_token: 'eyJhbGciOiJIUzI1NiJ9…', refresh_token: 'k3J9sP2x…', expires_in: 3600, expires_at: 1795000000, token_type: 'bearer' }],
  },
);

/** POST /auth/login on an account with two-factor sign-in on: no session yet (docs/account-security.md). */
export const MfaRequiredBody = Type.Object(
  {
    mfa_required: Type.Literal(true),
    mfa_token: Type.String({ description: 'Send with a code to POST /auth/mfa/verify; single use, valid 5 minutes' }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'MfaRequired' },
);

/** One signed-in device (GET /auth/sessions). */
export const DeviceSessionBody = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The session id: the `sid` claim of its access tokens' }),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.String({ format: 'date-time', description: 'Updated on refresh and on use, at most once a minute' }),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    ip: Type.Union([Type.String(), Type.Null()]),
    current: Type.Boolean({ description: 'True for the session of the token that asked' }),
  },
  { $id: 'DeviceSession' },
);

export const ApiKeyBody = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    key: Type.Optional(Type.String({ description: 'Full key; only in the create response' })),
    key_prefix: Type.String(),
    name: Type.String(),
    created_at: Timestamp,
    last_used_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
    scopes: Type.Array(Type.Union(KEY_SCOPES.map((scope) => Type.Literal(scope))), { description: 'What the key may do' }),
    expires_at: Type.Union([Timestamp, Type.Null()], { description: 'When the key stops working; null: never' }),
    expired: Type.Boolean({ description: 'True once expires_at has passed (the key answers 401 API_KEY_EXPIRED)' }),
  },
  { $id: 'ApiKey' },
);

/** The account setting of what image uploads keep of their metadata (docs/image-metadata.md). */
export const ImageMetadataSetting = Type.Union(
  IMAGE_METADATA_MODES.map((mode) => Type.Literal(mode)),
  {
    description:
      'What uploads of JPEG, PNG, WebP, HEIF and AVIF images keep of their metadata, removed losslessly (pixels untouched): `strip_location` (default: GPS position removed), `strip_all` (EXIF, XMP, IPTC, comments removed; colour profiles kept), `keep` (stored as uploaded)',
  },
);

export const FileBody = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    user_id: Type.String({ format: 'uuid' }),
    file_id: Type.String(),
    name: Nullable(Type.String()),
    content_type: Nullable(Type.String()),
    size: Type.Union([Type.Integer(), Type.Null()]),
    public_url: Nullable(Type.String()),
    default_url: Nullable(Type.String()),
    default_download_url: Nullable(Type.String()),
    public_download_url: Nullable(Type.String()),
    view_url: Nullable(
      Type.String({
        description: 'The link preview page (`{base}/v/<file_id>`): OpenGraph/Twitter card tags and oEmbed discovery for chats; null for a private file',
      }),
    ),
    created_at: Nullable(Timestamp),
    is_public: Type.Union([Type.Boolean(), Type.Null()]),
    expires_at: Type.Union([Timestamp, Type.Null()], { description: 'When the file is deleted automatically; null: never' }),
    width: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        'Pixels, as shown (after the EXIF orientation): images, and videos whose container says; null when unknown or not yet computed (docs/media.md)',
    }),
    height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'Pixels, as shown (after the EXIF orientation); null when unknown or not yet computed',
    }),
    duration_seconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description: 'Seconds of audio or video; null when unknown or not yet computed',
    }),
    thumbhash: Type.Union([Type.String(), Type.Null()], {
      description: 'ThumbHash of an image, base64: a placeholder to draw while it loads; null when unknown or not yet computed',
    }),
    metadata_removed: Type.Array(Type.Union(METADATA_KINDS.map((kind) => Type.Literal(kind))), {
      description:
        'What the upload removed from an image, losslessly (the account setting `image_metadata`, docs/image-metadata.md): `location` (GPS position), `exif`, `xmp`, `iptc`, `comment`; empty when nothing',
    }),
    view_count: Type.Integer({ description: 'Reads served inline: the view address, inline signed URLs' }),
    download_count: Type.Integer({ description: 'Reads served as attachments: the download address, download signed URLs, share links' }),
  },
  {
    $id: 'File',
    examples: [
      {
        id: '3f0c2a9e-8d1b-4c55-9a3e-5b7f1d2c4e6a',
        user_id: '9b1d7c2e-4a3f-4e8b-8c6d-2f5a1e9b7c3d',
        file_id: 'aB3dE5gH7j',
        name: 'cat.png',
        content_type: 'image/png',
        size: 48213,
        public_url: 'https://cdn.example.com/m/aB3dE5gH7j',
        default_url: 'https://cdn.example.com/m/aB3dE5gH7j',
        default_download_url: 'https://cdn.example.com/d/aB3dE5gH7j',
        public_download_url: 'https://cdn.example.com/d/aB3dE5gH7j',
        view_url: 'https://cdn.example.com/v/aB3dE5gH7j',
        created_at: '2026-11-21T12:00:00.000Z',
        is_public: true,
        expires_at: null,
        metadata_removed: ['location'],
        width: 1200,
        height: 800,
        duration_seconds: null,
        thumbhash: '1QcSHQRnh493V4dIh4eXh1h4kJUI',
        view_count: 0,
        download_count: 0,
      },
    ],
  },
);

export const CustomDomainBody = Type.Object(
  {
    hostname: Type.String(),
    verification_status: Type.String({ description: 'The provider’s hostname status: pending, active, moved, blocked, deleted, …' }),
    ssl_status: Type.String({
      description: 'The provider’s certificate status: initializing, pending_validation, pending_issuance, pending_deployment, active, …',
    }),
    updated_at: Timestamp,
    dns_records: Type.Array(
      Type.Object({
        type: Type.Union([Type.Literal('CNAME'), Type.Literal('A'), Type.Literal('AAAA'), Type.Literal('TXT')], {
          description: 'A/AAAA instead of CNAME when the service routes custom domains to an IP address',
        }),
        name: Type.String(),
        value: Type.String(),
        purpose: Type.Union([Type.Literal('routing'), Type.Literal('ownership'), Type.Literal('ssl_validation')]),
      }),
      { description: 'Records to create at your DNS host' },
    ),
    errors: Type.Array(Type.String(), { description: 'Validation errors reported by the provider' }),
  },
  { $id: 'CustomDomain' },
);

export const SettingsBody = Type.Object(
  {
    public_url_base: Type.String({ description: 'https://<custom domain> once verified, else the content URL' }),
    custom_domain: Type.Union([CustomDomainBody, Type.Null()]),
    max_upload_size_bytes: Type.Integer(),
    image_metadata: ImageMetadataSetting,
  },
  { $id: 'Settings' },
);

export const UsageBody = Type.Object(
  {
    storage_bytes: Type.Integer(),
    files_count: Type.Integer(),
    origin_reads: Type.Integer(),
    image_ops: Type.Integer(),
    period_start: Timestamp,
    period_end: Timestamp,
  },
  { $id: 'Usage' },
);

export const LogEntryBody = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    method: Type.String(),
    path: Type.String(),
    status_code: Type.Integer(),
    request_size_bytes: Type.Union([Type.Integer(), Type.Null()]),
    created_at: Timestamp,
    metadata: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'LogEntry' },
);

const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const ProfileBody = Type.Object(
  {
    user: Type.Object({ id: Type.String({ format: 'uuid' }), email: Type.String(), created_at: Timestamp, email_confirmed_at: NullableTimestamp }),
    role: Type.Union([Type.Literal('user'), Type.Literal('admin')], { description: '`admin`: the account may use the /admin routes (docs/admin.md)' }),
    plan: Type.Object({
      name: Type.String(),
      trial_ends_at: NullableTimestamp,
      trial_active: Type.Boolean(),
      storage_limit_bytes: Type.Integer(),
      file_count_limit: Type.Integer(),
      max_upload_size_bytes: Type.Integer(),
      image_ops_limit: Type.Union([Type.Integer(), Type.Null()], { description: 'image transformations per billing period (`image_ops`); null: unlimited' }),
    }),
    subscription: Type.Object({
      status: Type.Union(['active', 'canceled', 'trialing', 'free', 'expired'].map((s) => Type.Literal(s))),
      subscription_canceled_at: NullableTimestamp,
      access_until: NullableTimestamp,
    }),
    subscription_canceled_at: NullableTimestamp,
    access_until: NullableTimestamp,
    upload_limit_bytes: Type.Integer({ description: 'the account’s effective max_upload_size_bytes' }),
  },
  { $id: 'Profile' },
);

export const MessageBody = Type.Object({ message: Type.String() });

/**
 * `page` (1-based) and `limit` (1–100, default 30), spec 4 conventions and 8. `page` stops where the
 * row offset `(page − 1) × limit` would leave the safe integers (2^53 − 1), which no database column
 * or JavaScript number could carry exactly: beyond it the answer is 400, not a database error.
 */
export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: Math.floor(Number.MAX_SAFE_INTEGER / MAX_PAGE_SIZE), default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 30 }),
};

/**
 * A page of a list. `total` counts the whole list; `total_relation` says whether it is exact (`eq`)
 * or a lower bound (`gte`, when a search matched more than the service counts: `GET /files` counts
 * up to 10,000 matches), as Elasticsearch's `hits.total.relation`.
 */
export const Paged = (key: string, item: ReturnType<typeof Type.Object>) =>
  Type.Object({
    [key]: Type.Array(item),
    total: Type.Integer({ description: 'Items in the whole list: exact when total_relation is "eq", a lower bound when "gte".' }),
    total_relation: Type.Union([Type.Literal('eq'), Type.Literal('gte')], { description: '"eq": total is exact; "gte": at least total items match.' }),
    page: Type.Integer(),
    limit: Type.Integer(),
  });
