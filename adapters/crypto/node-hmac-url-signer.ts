import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { UrlSigner } from '../../core/files/signing-keys.js';

/** Bytes of a new signing key: 256 bits, HMAC-SHA-256's block-size-safe strength (RFC 2104 §3). */
const KEY_BYTES = 32;

/**
 * {@link UrlSigner} with node:crypto: HMAC-SHA-256 (RFC 2104) over the payload's UTF-8 bytes,
 * keyed by the base64url-decoded key; signatures base64url without padding (43 characters),
 * compared with `timingSafeEqual`.
 */
export class NodeHmacUrlSigner implements UrlSigner {
  newKey(): string {
    return randomBytes(KEY_BYTES).toString('base64url');
  }

  sign(options: { key: string; payload: string }): string {
    return createHmac('sha256', Buffer.from(options.key, 'base64url')).update(options.payload, 'utf8').digest('base64url');
  }

  verify(options: { key: string; payload: string; signature: string }): boolean {
    const expected = Buffer.from(this.sign(options), 'base64url');
    if (!/^[A-Za-z0-9_-]{43}$/.test(options.signature)) return false;
    const given = Buffer.from(options.signature, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
