import { API_KEY_SCOPES, MAX_API_KEY_LIFETIME_DAYS } from '../../core/api-keys/api-key-scopes.js';
import { type Static, Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/shared/errors.js';
import type { Plan } from '../../core/plans/plan.js';
import { FILE_TOTAL_COUNT_LIMIT } from '../../core/files/list-files.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../core/shared/pagination.js';
import { MIN_PASSWORD_LENGTH } from '../../core/accounts/user.js';
import { MAX_BULK_DELETE_IDS } from '../../core/files/bulk-delete-files.js';
import type { Route } from '../http/route.js';

/** Bump when a field of the guide changes meaning or disappears (adding fields keeps the version). */
export const AGENT_GUIDE_SCHEMA_VERSION = 1;

const Step = Type.Object({
  step: Type.Integer(),
  title: Type.String(),
  method: Type.String(),
  url: Type.String(),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.Optional(Type.Unknown()),
  then: Type.String(),
});

/** The discovery payload for automated agents (GET /reference/for-agents). */
export const AgentGuideBody = Type.Object({
  schema_version: Type.Integer(),
  service: Type.Object({ name: Type.String(), version: Type.String(), description: Type.String() }),
  base_url: Type.String(),
  content_url: Type.String(),
  openapi_url: Type.String(),
  docs_url: Type.String(),
  authentication: Type.Object({
    summary: Type.String(),
    session_token: Type.Object({
      obtain: Type.String(),
      passkey: Type.Optional(Type.String()),
      header: Type.String(),
      lifetime_seconds: Type.Integer(),
      refresh: Type.String(),
      two_factor: Type.String(),
      devices: Type.String(),
    }),
    api_key: Type.Object({
      obtain: Type.String(),
      headers: Type.Array(Type.String()),
      form: Type.String(),
      scopes: Type.Object({ available: Type.Array(Type.String()), default: Type.String(), rule: Type.String() }),
      expiry: Type.String(),
      guessing: Type.String(),
    }),
    jwt_only_endpoints: Type.Array(Type.String()),
    no_auth_endpoints: Type.Array(Type.String()),
  }),
  quick_start: Type.Array(Step),
  limits: Type.Object({
    new_account_plan: Type.Object({
      name: Type.String(),
      trial_days: Type.Union([Type.Integer(), Type.Null()]),
      storage_limit_bytes: Type.Integer(),
      file_count_limit: Type.Integer(),
      max_upload_size_bytes_ceiling: Type.Integer(),
    }),
    default_max_upload_size_bytes: Type.Integer(),
    password_min_length: Type.Integer(),
    page_size: Type.Object({ default: Type.Integer(), max: Type.Integer() }),
    list_total: Type.Object({ files_counted_up_to: Type.Integer(), rule: Type.String() }),
    bulk_delete_ids: Type.Object({ min: Type.Integer(), max: Type.Integer() }),
  }),
  allowed_content_types: Type.Array(Type.String()),
  errors: Type.Object({ shape: Type.Unknown(), codes: Type.Record(Type.String(), Type.Integer()) }),
  endpoints: Type.Array(
    Type.Object({
      method: Type.String(),
      path: Type.String(),
      server: Type.String(),
      auth: Type.String(),
      summary: Type.String(),
      errors: Type.Optional(
        Type.Array(Type.String(), { description: 'Error codes this endpoint may answer, besides UNAUTHORIZED, VALIDATION_FAILED and outages (503)' }),
      ),
    }),
  ),
});
export type AgentGuide = Static<typeof AgentGuideBody>;

/**
 * Builds the agent guide from the route table and the deployment's settings, so it never
 * disagrees with the running service: endpoints, auth requirements, limits, content types, codes.
 */
export function agentGuide(options: {
  publicApiUrl: string;
  publicContentUrl: string;
  allowedContentTypes: readonly string[];
  defaultPlan: Plan;
  defaultMaxUploadSizeBytes: number;
  routes: readonly Route[];
  version: string;
  errorStatus: Record<ErrorCode, number>;
}): AgentGuide {
  const base = options.publicApiUrl;
  const endpoint = (r: Route) => `${r.method} ${r.path}`;
  const documented = options.routes.filter((r) => !r.path.startsWith('/docs/'));
  const plan = options.defaultPlan;
  return {
    schema_version: AGENT_GUIDE_SCHEMA_VERSION,
    service: {
      name: 'Hangar',
      version: options.version,
      description:
        'A file host: upload files (images, video, audio, PDFs…) through this HTTP API with an API key; each file gets a short file_id ' +
        'and public addresses on the content server: view {content_url}/m/<file_id>, download {content_url}/d/<file_id>.',
    },
    base_url: base,
    content_url: options.publicContentUrl,
    openapi_url: `${base}/reference/openapi.json`,
    docs_url: `${base}/docs`,
    authentication: {
      summary:
        'Two credentials: a session token (JWT) from login, and API keys for scripts. Send either as `Authorization: Bearer <token>`; an API key may instead go in `X-Api-Key`.',
      session_token: {
        obtain:
          'POST /auth/login { email, password } → session.access_token (after the e-mail address is confirmed); in a browser, single sign-on when GET /auth/providers shows `oidc`: GET /auth/oidc/start → the provider → /#/sso?code=… → POST /auth/oidc/exchange { code } → the same answer as login',
        passkey:
          'in a browser, instead of the password: POST /auth/passkeys/authentication/options → navigator.credentials.get() → POST /auth/passkeys/authentication/verify { credential } → the same answer as login (register passkeys first with POST /auth/passkeys/registration/options and /verify)',
        header: 'Authorization: Bearer <access_token>',
        lifetime_seconds: 3600,
        refresh: 'POST /auth/refresh { refresh_token } → a new session; the old refresh token stops working',
        two_factor:
          'On an account with two-factor sign-in (TOTP) on, POST /auth/login answers { mfa_required: true, mfa_token } and no session: ' +
          'POST /auth/mfa/verify { mfa_token, code } (the 6-digit code of the authenticator app, or one of the recovery codes) within 5 minutes answers like a login. ' +
          'Turn it on with POST /auth/mfa/totp (→ secret, otpauth_uri) and POST /auth/mfa/totp/verify { code } (→ 10 recovery codes, shown once); off with DELETE /auth/mfa/totp { code }.',
        devices:
          "GET /auth/sessions lists the signed-in devices (id = the access token's sid claim, current marks yours); DELETE /auth/sessions/:id signs one out. " +
          'A session unused for SESSION_IDLE_DAYS (default 30) ends by itself: log in again.',
      },
      api_key: {
        obtain: 'POST /auth/api-keys { name?, scopes?, expires_at? } with a session token → key (shown once)',
        headers: ['Authorization: Bearer <API key>', 'X-Api-Key: <API key>'],
        form: '`hgr_` followed by 32 letters and digits',
        scopes: {
          available: [...API_KEY_SCOPES],
          default: 'every scope (a key created without `scopes`, and every key created before scopes existed)',
          rule: 'Each endpoint below names the scopes a key needs; a key without one answers 403 INSUFFICIENT_SCOPE (details.missing_scopes). Changing settings and rotating the signing key need every scope. Key management and logout need a session token (403 JWT_REQUIRED).',
        },
        expiry: `Optional expires_at (ISO 8601, in the future, at most ${MAX_API_KEY_LIFETIME_DAYS} days away); from then on the key answers 401 API_KEY_EXPIRED. Without it the key never expires.`,
        guessing:
          'Unknown API keys from one client address are throttled like failed logins: past the free failures, 429 RATE_LIMITED with Retry-After for every API key from that address while the delay runs.',
      },
      jwt_only_endpoints: documented.filter((r) => r.auth === 'jwt').map(endpoint),
      no_auth_endpoints: documented.filter((r) => r.auth === 'none').map(endpoint),
    },
    quick_start: [
      {
        step: 1,
        title: 'Register',
        method: 'POST',
        url: `${base}/auth/register`,
        headers: { 'content-type': 'application/json' },
        body: { email: 'you@example.com', password: 'at least 6 characters' },
        then: 'A confirmation link is e-mailed to the address. When GET /auth/providers says registration is `invite`, add `invite` (the token of an invite link); `closed` refuses with 403 REGISTRATION_CLOSED.',
      },
      {
        step: 2,
        title: 'Confirm the e-mail address',
        method: 'GET',
        url: `${base}/auth/confirm?token=<token from the e-mail>`,
        headers: {},
        then: 'Answers 302; the address is confirmed.',
      },
      {
        step: 3,
        title: 'Log in',
        method: 'POST',
        url: `${base}/auth/login`,
        headers: { 'content-type': 'application/json' },
        body: { email: 'you@example.com', password: '…' },
        then: 'Keep session.access_token (a JWT, valid 1 hour).',
      },
      {
        step: 4,
        title: 'Create an API key',
        method: 'POST',
        url: `${base}/auth/api-keys`,
        headers: { authorization: 'Bearer <access_token>', 'content-type': 'application/json' },
        body: { name: 'my agent' },
        then: 'Keep `key`: it is shown only once.',
      },
      {
        step: 5,
        title: 'Upload a file',
        method: 'POST',
        url: `${base}/files`,
        headers: { authorization: 'Bearer <API key>', 'content-type': '<one of allowed_content_types>', 'x-file-name': '<name, percent-encoded if not ASCII>' },
        body: '<the raw file bytes as the request body (not multipart)>',
        then: 'Answers 201 { file, message }.',
      },
      {
        step: 6,
        title: 'Use the public address',
        method: 'GET',
        url: `${options.publicContentUrl}/m/<file.file_id>`,
        headers: {},
        then: 'file.public_url (view) and file.public_download_url (download) serve the bytes to anyone; private uploads (?isPublic=false) have no public address: their owner reads them with GET /files/<file_id>/content (API key or session token) or hands out POST /files/<file_id>/signed-url.',
      },
      {
        step: 7,
        title: 'Large files: resumable upload (tus 1.0.0)',
        method: 'POST',
        url: `${base}/files/resumable`,
        headers: {
          authorization: 'Bearer <API key>',
          'tus-resumable': '1.0.0',
          'upload-length': '<bytes>',
          'upload-metadata': 'filetype <base64 type>,filename <base64 name>',
        },
        then: 'Answers 201 with Location (the upload URL). Send the bytes with PATCH <Location> (content-type application/offset+octet-stream, upload-offset), resume after HEAD <Location> (upload-offset), or use any tus client. The last PATCH carries Hangar-File-Id; GET <Location> then answers the File. Quotas and the type allowlist are checked at creation.',
      },
    ],
    limits: {
      new_account_plan: {
        name: plan.name,
        trial_days: plan.trialDays,
        storage_limit_bytes: plan.storageLimitBytes,
        file_count_limit: plan.fileCountLimit,
        max_upload_size_bytes_ceiling: plan.maxUploadSizeBytes,
      },
      default_max_upload_size_bytes: Math.min(options.defaultMaxUploadSizeBytes, plan.maxUploadSizeBytes),
      password_min_length: MIN_PASSWORD_LENGTH,
      page_size: { default: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE },
      list_total: {
        files_counted_up_to: FILE_TOTAL_COUNT_LIMIT,
        rule: `Every list response has total and total_relation. "eq": total is exact. "gte": more than ${FILE_TOTAL_COUNT_LIMIT} files match and total is that lower bound (GET /files counts a filtered list up to it); pages beyond it still work.`,
      },
      bulk_delete_ids: { min: 1, max: MAX_BULK_DELETE_IDS },
    },
    allowed_content_types: [...options.allowedContentTypes],
    errors: {
      shape: {
        code: 'SCREAMING_SNAKE_CASE, stable',
        message: 'a sentence for people',
        request_id: 'also in the X-Request-Id header',
        details: 'optional: validation problems, limits',
      },
      codes: { ...options.errorStatus },
    },
    endpoints: documented.map((r) => ({
      method: r.method,
      path: r.path,
      server: r.server === 'content' ? 'content_url' : 'base_url',
      auth: r.auth === 'none' ? 'none' : r.auth === 'jwt' ? 'session token only' : `API key with ${r.auth.scopes.join(' + ')}, or session token`,
      summary: r.summary,
      ...(r.errorCodes ? { errors: [...r.errorCodes] } : {}),
    })),
  };
}

/** The guide as Markdown-flavoured plain text, in the style of llms.txt. */
export function agentGuideText(guide: AgentGuide): string {
  const lines = [
    `# ${guide.service.name} (API ${guide.service.version}, guide schema ${guide.schema_version})`,
    '',
    `> ${guide.service.description.replaceAll('{content_url}', guide.content_url)}`,
    '',
    `- Base URL: ${guide.base_url}`,
    `- Content URL: ${guide.content_url}`,
    `- OpenAPI 3.0 document: ${guide.openapi_url}`,
    `- Human-readable reference: ${guide.docs_url}`,
    `- JSON version of this guide: ${guide.base_url}/reference/for-agents`,
    '',
    '## Authentication',
    guide.authentication.summary,
    `- Session token: ${guide.authentication.session_token.obtain}${guide.authentication.session_token.passkey ? ` (or with a passkey, ${guide.authentication.session_token.passkey})` : ''}; send ${guide.authentication.session_token.header}; ${guide.authentication.session_token.refresh}.`,
    `- API key (${guide.authentication.api_key.form}): ${guide.authentication.api_key.obtain}; send ${guide.authentication.api_key.headers.join(' or ')}.`,
    `- API key scopes: ${guide.authentication.api_key.scopes.available.join(', ')}; default ${guide.authentication.api_key.scopes.default}. ${guide.authentication.api_key.scopes.rule}`,
    `- API key expiry: ${guide.authentication.api_key.expiry}`,
    `- Guessing: ${guide.authentication.api_key.guessing}`,
    `- Session token only: ${guide.authentication.jwt_only_endpoints.join(', ')}.`,
    `- No credentials: ${guide.authentication.no_auth_endpoints.join(', ')}.`,
    '',
    '## Quick start',
    ...guide.quick_start.map(
      (s) =>
        `${s.step}. ${s.title}: ${s.method} ${s.url}${s.body === undefined ? '' : ` with ${typeof s.body === 'string' ? s.body : `JSON ${JSON.stringify(s.body)}`}`}. ${s.then}`,
    ),
    '',
    '## Limits for new accounts',
    `- Plan "${guide.limits.new_account_plan.name}": trial ${guide.limits.new_account_plan.trial_days === null ? 'without end' : `${guide.limits.new_account_plan.trial_days} days`}, storage ${guide.limits.new_account_plan.storage_limit_bytes} bytes, ${guide.limits.new_account_plan.file_count_limit} files, upload size up to ${guide.limits.new_account_plan.max_upload_size_bytes_ceiling} bytes (default ${guide.limits.default_max_upload_size_bytes}).`,
    `- Passwords: at least ${guide.limits.password_min_length} characters. Lists: page size ${guide.limits.page_size.default} by default, at most ${guide.limits.page_size.max}. ${guide.limits.list_total.rule} Bulk delete: ${guide.limits.bulk_delete_ids.min} to ${guide.limits.bulk_delete_ids.max} ids.`,
    '',
    '## Allowed content types',
    guide.allowed_content_types.join(', '),
    '',
    '## Errors',
    'Every error body is { "code", "message", "request_id", "details"? }. Codes and their HTTP status:',
    ...Object.entries(guide.errors.codes).map(([code, status]) => `- ${code}: ${status}`),
    '',
    '## Endpoints',
    ...guide.endpoints.map(
      (e) =>
        `- ${e.method} ${e.server === 'content_url' ? '{content_url}' : ''}${e.path} (${e.auth}): ${e.summary}${e.errors ? ` Errors: ${e.errors.join(', ')}.` : ''}`,
    ),
    '',
  ];
  return lines.join('\n');
}
