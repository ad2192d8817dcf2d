/**
 * Port: the message authentication of signed URLs (HMAC, RFC 2104), e.g. adapters/crypto/node-hmac-url-signer.ts.
 * Keys and signatures are base64url text.
 */
export interface UrlSigner {
  /** A new random key (at least 256 bits). */
  newKey(): string;
  /** The signature of `payload` (UTF-8) under `key`: base64url, the same for the same inputs. */
  sign(options: { key: string; payload: string }): string;
  /** True when `signature` is `payload`'s under `key`; compared in constant time. Never throws on malformed input (false). */
  verify(options: { key: string; payload: string; signature: string }): boolean;
}
