import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { UrlSigner } from '../../core/files/url-signer.js';

/** Bytes of a new signing key: 256 bits, HMAC-SHA-256's block-size-safe strength (RFC 2104 §3). */
const KEY_BYTES = 32;

/**
 * {@link UrlSigner} with node:crypto: HMAC-SHA-256 (RFC 2104) over the payload's UTF-8 bytes,
 * keyed by the base64url-decoded key; signatures base64url without padding (43 characters),
 * compared with `timingSafeEqual`. Only the canonical spelling of a signature is accepted: 43
 * characters encode 258 bits for a 256-bit digest, so the last character's two low bits are unused
 * and four characters would decode to the same bytes (RFC 4648 §3.5: such bits must be zero; a
 * decoder may refuse them). Refusing the other three keeps one URL per grant.
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
    // Non-zero unused bits (RFC 4648 §3.5): not the encoding of any digest, whatever it decodes to.
    if (given.toString('base64url') !== options.signature) return false;
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
