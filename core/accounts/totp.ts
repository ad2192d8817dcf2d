/**
 * Port: time-based one-time passwords (TOTP, RFC 6238: HMAC-SHA-1, 6 digits, 30 s steps).
 * Adapter: adapters/crypto/otplib-totp.ts.
 */
export interface Totp {
  /** A new random shared secret, base32 (RFC 4648 §6), 160 bits (RFC 4226 §4 asks for at least 128). */
  newSecret(): Promise<string>;
  /** The `otpauth://totp/…` URI authenticator apps read from a QR code (Google's Key Uri Format). */
  uri(options: { secret: string; label: string; issuer: string }): Promise<string>;
  /**
   * The RFC 6238 time step (floor(Unix seconds / 30)) whose code `code` is at instant `at`,
   * looking one step before and one after for clock drift and typing time (RFC 6238 §5.2);
   * undefined when the code matches none of them. Does not remember anything: replay is the
   * caller's concern (MfaRepository.claimTimeStep).
   */
  match(options: { secret: string; code: string; at: Date }): Promise<number | undefined>;
  /** The code of `secret` at instant `at` (tests and tools; a client computes its own). */
  codeAt(options: { secret: string; at: Date }): Promise<string>;
}
