/** Port: unpredictable identifiers and secrets from a cryptographically secure source. */
export interface IdGenerator {
  /**
   * A UUID (RFC 9562), lower-case, with at least 74 unpredictable bits. Record ids: an adapter may
   * make them time-ordered (version 7) so that database indexes keyed by them stay compact.
   */
  uuid(): string;
  /** `length` characters drawn uniformly from [0-9A-Za-z] (base62), for file ids and secrets. */
  base62(length: number): string;
}

/** Port: digests for secrets that are stored only as digests (API keys, refresh and e-mail tokens). */
export interface SecretDigest {
  /** SHA-256 (FIPS 180-4) of the UTF-8 bytes of `secret`, as 64 lower-case hex characters. */
  sha256(secret: string): string;
  /** Constant-time equality of two strings of equal length; false when lengths differ. */
  equals(a: string, b: string): boolean;
}
