/**
 * The one catalogue of expected refusals. Every use case throws {@link DomainError}
 * with one of these codes; the HTTP edge maps each code to one status in one table
 * (apps/http/error-status.ts). Codes are a public contract: never rename one.
 */
export type ErrorCode =
  /** 400: request shape or value is invalid; `details` lists the problems. */
  | 'VALIDATION_FAILED'
  /** 400: e-mail address is not a valid address (spec 4.2). */
  | 'INVALID_EMAIL'
  /** 400: password shorter than 6 characters (spec 8) or longer than 1024. */
  | 'PASSWORD_TOO_SHORT'
  | 'PASSWORD_TOO_LONG'
  /** 400: `redirect_to` is not under an allowed URL. */
  | 'INVALID_REDIRECT_URL'
  /** 400: e-mail confirmation or password reset token unknown, used or expired. */
  | 'INVALID_TOKEN'
  /** 400: a list cursor (`before`) that this service did not hand out. */
  | 'INVALID_CURSOR'
  /** 401: unknown e-mail or wrong password (the same code for both). */
  | 'INVALID_CREDENTIALS'
  /** 401: refresh token unknown, rotated or revoked. */
  | 'INVALID_REFRESH_TOKEN'
  /** 401: missing or invalid credential on an authenticated endpoint (spec 5.7). */
  | 'UNAUTHORIZED'
  /** 401: the API key is past its `expires_at` (docs/api-keys.md); a new key is needed. */
  | 'API_KEY_EXPIRED'
  /** 403: login before the e-mail address was confirmed (spec 4.3). */
  | 'EMAIL_NOT_VERIFIED'
  /** 403: an API key was used where a session token is required (spec 5.6). */
  | 'JWT_REQUIRED'
  /** 403: the API key lacks a scope the request needs; `details.missing_scopes` names it (docs/api-keys.md). */
  | 'INSUFFICIENT_SCOPE'
  /** 403: the trial has ended without paid access: no uploads or deletes (spec 4.8, 4.11). */
  | 'TRIAL_ENDED'
  /** 403: the upload would take the account past its plan's storage limit (spec 4.8). */
  | 'STORAGE_LIMIT_REACHED'
  /** 403: the account holds as many files as its plan allows (spec 4.8). */
  | 'FILE_COUNT_LIMIT_REACHED'
  /** 403: the account holds as many API keys as allowed (`API_KEYS_PER_ACCOUNT`, docs/api-keys.md); revoke one first. */
  | 'API_KEY_LIMIT_REACHED'
  /** 403: the account has as many unfinished resumable uploads as allowed (`RESUMABLE_UPLOADS_PER_ACCOUNT`); finish, terminate or let one expire first. */
  | 'RESUMABLE_UPLOAD_LIMIT_REACHED'
  /** 404: no account with this e-mail address (administration). */
  | 'USER_NOT_FOUND'
  /** 400: no plan with this name (administration). */
  | 'PLAN_NOT_FOUND'
  /** 400: not a usable custom hostname (spec 4.14). */
  | 'INVALID_HOSTNAME'
  /** 400: refresh_custom_domain without a custom domain. */
  | 'NO_CUSTOM_DOMAIN'
  /** 409: the hostname is registered by another account (spec 4.14). */
  | 'HOSTNAME_TAKEN'
  /** 502: the edge provider failed or could not be reached (spec 4.14). */
  | 'EDGE_PROVIDER_ERROR'
  /** 404: no such API key for this account. */
  | 'API_KEY_NOT_FOUND'
  /** 404: no such file for this account, or not public on the content server. */
  | 'FILE_NOT_FOUND'
  /** 404: no such route. */
  | 'NOT_FOUND'
  /** 405: route exists, method does not. */
  | 'METHOD_NOT_ALLOWED'
  /** 501: a method this server implements on no path (TRACE, PROPFIND…; RFC 9110 §15.6.2). */
  | 'NOT_IMPLEMENTED'
  /** 501: an oEmbed `format` other than `json` (oEmbed 1.0 §2.3.3: 501 Not Implemented). */
  | 'FORMAT_NOT_IMPLEMENTED'
  /** 400: not a valid HTTP request (malformed request line or header, two `Host` headers: RFC 9112 §3.2). */
  | 'MALFORMED_REQUEST'
  /** 431: the request's headers are larger than the server reads (RFC 6585 §5). */
  | 'HEADERS_TOO_LARGE'
  /** 408: the client sent its headers or its body too slowly (RFC 9110 §15.5.9); nothing was stored. */
  | 'REQUEST_TIMEOUT'
  /** 429: this client address already has as many slow request bodies in progress as allowed (`SLOW_BODIES_PER_CLIENT`); nothing was read. */
  | 'TOO_MANY_SLOW_BODIES'
  /** 400: upload Content-Type not in the allowed list (spec 4.8). */
  | 'CONTENT_TYPE_NOT_ALLOWED'
  /** 400: the file's leading bytes (its signature, "magic bytes") are not those of the declared Content-Type (OWASP ASVS 12.2.1). */
  | 'CONTENT_TYPE_MISMATCH'
  /** 429: too many attempts from this client, for this account or with this key; `details.retry_after_seconds` (also `Retry-After`). */
  | 'RATE_LIMITED'
  /** 400: `x-file-name` longer than 255 characters or not decodable. */
  | 'INVALID_FILE_NAME'
  /** 400: upload without a body. */
  | 'EMPTY_FILE'
  /** 400: the client stopped sending the body before it was complete. */
  | 'UPLOAD_INCOMPLETE'
  /** 413: upload larger than the account's max_upload_size_bytes (spec 4.8). */
  | 'FILE_TOO_LARGE'
  /** 400: `type` filter not in the allowed list (spec 4.9). */
  | 'INVALID_FILTER'
  /** 400: `max_upload_size_bytes` out of range. */
  | 'INVALID_SETTINGS'
  /** 413: a JSON request body over its size limit. */
  | 'PAYLOAD_TOO_LARGE'
  /** 415: a JSON endpoint received another media type, or a body in a content coding it does not undo (RFC 9110 §15.5.16). */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** 416: byte range outside the file (RFC 9110 §15.5.17). */
  | 'RANGE_NOT_SATISFIABLE'
  /** 400: an image parameter on `/m/:file_id` is unknown, repeated or out of range (docs/images.md). */
  | 'INVALID_TRANSFORM'
  /** 400: image parameters on a file that is not a transformable image (docs/images.md). */
  | 'NOT_AN_IMAGE'
  /** 403: the plan's image operations for this billing period are used up; originals are still served. */
  | 'IMAGE_OPS_LIMIT_REACHED'
  /** 422: the stored file cannot be decoded as the image its type says. */
  | 'IMAGE_UNREADABLE'
  /** 422: the stored image has more pixels than the server decodes (IMAGE_MAX_INPUT_PIXELS; decompression bombs). */
  | 'IMAGE_TOO_LARGE'
  /** 503: every image transformation slot stayed busy past the queue timeout; sent with `Retry-After`. */
  | 'IMAGE_BUSY'
  /** 400: an expiry (`expires_at`, `x-expires-at`, `expiresIn`) is in the past, not a time, or more than 100 years ahead (docs/private-files.md). */
  | 'INVALID_EXPIRY'
  /** 400: a signed URL's `expires_in` is outside 1–604800 seconds, or its options are invalid (docs/private-files.md). */
  | 'INVALID_SIGNED_URL_REQUEST'
  /** 403: the signed URL's expiry has passed (docs/private-files.md). */
  | 'SIGNED_URL_EXPIRED'
  /** 403: the signed URL was altered, its signing key rotated, or it is not a signed URL at all (docs/private-files.md). */
  | 'SIGNED_URL_INVALID'
  /** 400: `POST /files/upload-url` asked for a lifetime outside 60–86400 s, a size under 1 byte or a malformed media type (docs/media.md). */
  | 'INVALID_UPLOAD_URL_REQUEST'
  /** 403: the upload URL was altered, revoked by a signing key rotation, or never issued (docs/media.md). */
  | 'UPLOAD_URL_INVALID'
  /** 403: the upload URL's lifetime has passed (docs/media.md). */
  | 'UPLOAD_URL_EXPIRED'
  /** 409: the upload URL has already uploaded its one file (docs/media.md). */
  | 'UPLOAD_URL_USED'
  /** 404: no such share link (unknown, revoked, or its file deleted) (docs/private-files.md). */
  | 'SHARE_NOT_FOUND'
  /** 410: the share link expired, or its last allowed download was served (docs/private-files.md). */
  | 'SHARE_EXPIRED'
  /** 401: the share link asks for a password and none was given (docs/private-files.md). */
  | 'SHARE_PASSWORD_REQUIRED'
  /** 403: the share link's password is wrong (docs/private-files.md). */
  | 'SHARE_PASSWORD_INVALID'
  /** 400: a passkey ceremony's challenge is unknown, used already, expired, or was issued to another account or ceremony. */
  | 'PASSKEY_CHALLENGE_INVALID'
  /** 400: not a WebAuthn response, or a registration response that does not verify (origin, relying party, attestation, no user verification). */
  | 'PASSKEY_INVALID'
  /** 409: the credential is registered already (to this or another account). */
  | 'PASSKEY_ALREADY_REGISTERED'
  /** 404: no such passkey for this account. */
  | 'PASSKEY_NOT_FOUND'
  /** 401: sign-in with a credential that is not registered here (or was deleted). */
  | 'PASSKEY_NOT_RECOGNISED'
  /** 401: sign-in with a passkey whose signature does not verify, or without user verification. */
  | 'PASSKEY_REJECTED'
  /** 401: the passkey's signature counter did not increase (WebAuthn §6.1.1: a possibly cloned authenticator). */
  | 'PASSKEY_COUNTER_REGRESSED'
  /** 404: no such resumable upload for this account (docs/api.md, "Resumable uploads"). */
  | 'UPLOAD_NOT_FOUND'
  /** 410: the resumable upload expired before it was complete (`Upload-Expires`); its bytes are removed. */
  | 'UPLOAD_EXPIRED'
  /** 409: a PATCH's `Upload-Offset` is not the upload's offset (tus 1.0.0); `details.offset` is the offset to resume from. */
  | 'UPLOAD_OFFSET_MISMATCH'
  /** 423: another request is writing to this resumable upload; retry once it ends. */
  | 'UPLOAD_LOCKED'
  /** 412: the `Tus-Resumable` version is not one this server speaks (tus 1.0.0); see `Tus-Version`. */
  | 'TUS_VERSION_NOT_SUPPORTED'
  /**
   * 503: the random file id drawn for this upload was taken by another file (odds per upload: files
   * stored ÷ 62^10, about 10^-12 at a million files); nothing was stored: send the upload again.
   * Sent with `Retry-After: 1`.
   */
  | 'FILE_ID_COLLISION'
  /** 503: the blob store could not be reached. */
  | 'BLOB_STORE_UNAVAILABLE'
  /** 507: the blob store has no space left (ENOSPC, EDQUOT); nothing was stored. */
  | 'STORAGE_FULL'
  /** 403: the server accepts no new accounts (`REGISTRATION=closed`). */
  | 'REGISTRATION_CLOSED'
  /** 403: new accounts need an invite (`REGISTRATION=invite`) and none was given. */
  | 'INVITE_REQUIRED'
  /** 400: the invite is unknown, already used, revoked or expired. */
  | 'INVITE_INVALID'
  /** 404: no unused invite with this id (administration). */
  | 'INVITE_NOT_FOUND'
  /** 404: single sign-on (OIDC) is not configured. */
  | 'OIDC_NOT_CONFIGURED'
  /** 400: the OIDC callback's state is unknown, used or expired (start the sign-in again). */
  | 'OIDC_STATE_INVALID'
  /** 400: the OpenID provider refused the sign-in, or its answer failed a check (code, PKCE, nonce, ID token). */
  | 'OIDC_FAILED'
  /** 403: the OpenID provider gave no e-mail address it verified (`email_verified`). */
  | 'OIDC_EMAIL_UNVERIFIED'
  /** 502: the OpenID provider could not be reached or answered unusably. */
  | 'OIDC_PROVIDER_ERROR'
  /** 503: the database is locked, down or unreachable; nothing was changed. */
  | 'DATABASE_UNAVAILABLE'
  /** 503: a health probe failed. */
  | 'SERVICE_UNAVAILABLE'
  /** 400: a TOTP or recovery code that is wrong, expired or already used (docs/account-security.md). */
  | 'INVALID_MFA_CODE'
  /** 401: an `mfa_token` that is unknown, used or older than 5 minutes: log in again (docs/account-security.md). */
  | 'INVALID_MFA_TOKEN'
  /** 409: TOTP is already on for this account: disable it first (docs/account-security.md). */
  | 'MFA_ALREADY_ENABLED'
  /** 409: TOTP is not on for this account, or its enrolment was not started (docs/account-security.md). */
  | 'MFA_NOT_ENABLED'
  /** 404: no live session with this id for this account (docs/account-security.md). */
  | 'SESSION_NOT_FOUND'
  /** 404: no webhook endpoint with this id on the account (docs/webhooks.md). */
  | 'WEBHOOK_NOT_FOUND'
  /** 404: the webhook endpoint has no delivery with this id. */
  | 'WEBHOOK_DELIVERY_NOT_FOUND'
  /** 409: the account has WEBHOOKS_PER_ACCOUNT endpoints already. */
  | 'WEBHOOK_LIMIT_REACHED'
  /** 400: a webhook URL whose scheme or addresses are refused (docs/webhooks.md "Safe targets"). */
  | 'WEBHOOK_URL_REFUSED'
  /** 403: the account is suspended by an administrator (docs/admin.md, "Suspension"). */
  | 'ACCOUNT_SUSPENDED'
  /** 403: the route is for administrators: an admin's session, or an admin's key with the `admin` scope (docs/admin.md). */
  | 'ADMIN_REQUIRED'
  /** 409: the change would leave the instance without an active administrator (docs/admin.md, "The last admin"). */
  | 'LAST_ADMIN'
  /**
   * 403: the account has a second factor and this session did not prove one (opened before the
   * factor was enrolled, or by a sign-in without it): sign in again with it. Asked by the admin
   * routes (docs/admin.md) and before another factor is added (docs/account-security.md).
   */
  | 'SECOND_FACTOR_REQUIRED'
  /** 500: a bug; the body never carries internals. */
  | 'INTERNAL_ERROR';

/** An expected refusal: `code` is stable, `message` is a sentence for people, `details` optional structured data. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** True when `error` is a {@link DomainError}, optionally with the given code. */
export function isDomainError(error: unknown, code?: ErrorCode): error is DomainError {
  return error instanceof DomainError && (code === undefined || error.code === code);
}
