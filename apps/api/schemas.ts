import { Type } from '@sinclair/typebox';
import { MAX_PAGE_SIZE } from '../../core/shared/pagination.js';

// Resource and request schemas of the API (spec 2, 4). Request schemas validate at run time;
// response schemas document (OpenAPI, its own issue) and are checked by the HTTP tests.

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, milliseconds, Z' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ErrorBody = Type.Object({
  code: Type.String({ description: 'Stable SCREAMING_SNAKE_CASE code' }),
  message: Type.String(),
  request_id: Type.String(),
  details: Type.Optional(Type.Unknown()),
}, { $id: 'Error' });

export const UserBody = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  created_at: Type.Optional(Timestamp),
  updated_at: Type.Optional(Timestamp),
}, { $id: 'User' });

export const SessionBody = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  expires_in: Type.Integer({ description: 'seconds' }),
  expires_at: Type.Integer({ description: 'Unix time, seconds' }),
  token_type: Type.Literal('bearer'),
}, { $id: 'Session' });

export const ApiKeyBody = Type.Object({
  id: Type.String({ format: 'uuid' }),
  key: Type.Optional(Type.String({ description: 'Full key; only in the create response' })),
  key_prefix: Type.String(),
  name: Type.String(),
  created_at: Timestamp,
  last_used_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
}, { $id: 'ApiKey' });

export const FileBody = Type.Object({
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
  created_at: Nullable(Timestamp),
  is_public: Type.Union([Type.Boolean(), Type.Null()]),
}, { $id: 'File' });

export const SettingsBody = Type.Object({
  public_url_base: Type.String(),
  custom_domain: Type.Null(),
  max_upload_size_bytes: Type.Integer(),
}, { $id: 'Settings' });

export const UsageBody = Type.Object({
  storage_bytes: Type.Integer(),
  files_count: Type.Integer(),
  origin_reads: Type.Integer(),
  image_ops: Type.Integer(),
  period_start: Timestamp,
  period_end: Timestamp,
}, { $id: 'Usage' });

export const LogEntryBody = Type.Object({
  id: Type.String({ format: 'uuid' }),
  method: Type.String(),
  path: Type.String(),
  status_code: Type.Integer(),
  request_size_bytes: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Timestamp,
  metadata: Type.Record(Type.String(), Type.Unknown()),
}, { $id: 'LogEntry' });

const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const ProfileBody = Type.Object({
  user: Type.Object({ id: Type.String({ format: 'uuid' }), email: Type.String(), created_at: Timestamp, email_confirmed_at: NullableTimestamp }),
  plan: Type.Object({
    name: Type.String(),
    trial_ends_at: NullableTimestamp,
    trial_active: Type.Boolean(),
    storage_limit_bytes: Type.Integer(),
    file_count_limit: Type.Integer(),
    max_upload_size_bytes: Type.Integer(),
  }),
  subscription: Type.Object({
    status: Type.Union(['active', 'canceled', 'trialing', 'free', 'expired'].map((s) => Type.Literal(s))),
    subscription_canceled_at: NullableTimestamp,
    access_until: NullableTimestamp,
  }),
  subscription_canceled_at: NullableTimestamp,
  access_until: NullableTimestamp,
  upload_limit_bytes: Type.Integer({ description: 'the account’s effective max_upload_size_bytes' }),
}, { $id: 'Profile' });

export const MessageBody = Type.Object({ message: Type.String() });

/** `page` (1-based) and `limit` (1–100, default 30), spec 4 conventions and 8. */
export const PageQuery = {
  page: Type.Integer({ minimum: 1, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 30 }),
};

export const Paged = (key: string, item: ReturnType<typeof Type.Object>) =>
  Type.Object({ [key]: Type.Array(item), total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() });

/** Error responses, by status, for a route's `responses`. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
