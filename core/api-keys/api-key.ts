import type { ApiKeyScope } from './api-key-scopes.js';

/** An API key (spec 2.3). The secret itself is never stored: only its SHA-256 digest. */
export interface ApiKey {
  /** UUID. */
  id: string;
  userId: string;
  /** Label given at creation. */
  name: string;
  /** First {@link API_KEY_PREFIX_LENGTH} characters of the key, for identification. */
  keyPrefix: string;
  /** SHA-256 hex of the full key; unique, indexed. */
  keyHash: string;
  createdAt: Date;
  /** Updated at most once per {@link API_KEY_TOUCH_INTERVAL_MS}; null until first use. */
  lastUsedAt: Date | null;
  /** What the key may do, in the order of API_KEY_SCOPES (docs/api-keys.md); fixed at creation. */
  scopes: ApiKeyScope[];
  /** From this instant on the key is refused (API_KEY_EXPIRED); null: it never expires. Fixed at creation. */
  expiresAt: Date | null;
}

/** Every key starts with this service-specific prefix (spec 2.3). */
export const API_KEY_MARKER = 'hgr_';
/** Random base62 characters after the marker (~190 bits). */
export const API_KEY_RANDOM_LENGTH = 32;
/** Length of `key_prefix`: the marker and 8 random characters. */
export const API_KEY_PREFIX_LENGTH = 12;
/** `last_used_at` is written at most this often per key, so authentication rarely writes. */
export const API_KEY_TOUCH_INTERVAL_MS = 60_000;
/** Longest key name, in characters. */
export const MAX_API_KEY_NAME_LENGTH = 100;
/** Name of a key created without one. */
export const DEFAULT_API_KEY_NAME = 'API key';

/** True when `value` has the form of an API key (marker + 32 base62). Shape only, not validity. */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_MARKER) && /^[0-9A-Za-z]{32}$/.test(value.slice(API_KEY_MARKER.length));
}

/** True when `key` has an expiry and it is not after `now` (the key is refused from that instant on). */
export function isApiKeyExpired(key: Pick<ApiKey, 'expiresAt'>, now: Date): boolean {
  return key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime();
}
