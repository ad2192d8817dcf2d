/** Port: digests for secrets that are stored only as digests (API keys, refresh and e-mail tokens). */
export interface SecretDigest {
  /** SHA-256 (FIPS 180-4) of the UTF-8 bytes of `secret`, as 64 lower-case hex characters. */
  sha256(secret: string): string;
  /** Constant-time equality of two strings of equal length; false when lengths differ. */
  equals(a: string, b: string): boolean;
}
