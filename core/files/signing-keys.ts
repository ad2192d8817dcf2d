/**
 * Port: each account's signing key for signed URLs (docs/private-files.md), an opaque secret made by
 * {@link UrlSigner.newKey}. Kept with the account, so that `FileRepository.findWithSigningKey`
 * reads it with the file in one lookup; replacing it revokes every URL signed with the old one.
 */
export interface SigningKeyRepository {
  /**
   * The account's key; when it has none yet, `candidate` is stored and returned. Atomic: of
   * concurrent first calls one candidate wins and all of them return it.
   * @returns the key, or undefined when there is no such account
   */
  ensure(options: { userId: string; candidate: string }): Promise<string | undefined>;
  /** Replaces the account's key with `key`. @returns false when there is no such account */
  replace(options: { userId: string; key: string }): Promise<boolean>;
}

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
