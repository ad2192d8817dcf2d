/**
 * Port: authenticated encryption of small secrets kept in the database (TOTP shared secrets), so
 * a copy of the database alone does not reveal them. Adapter: adapters/crypto/node-secret-box.ts
 * (AES-256-GCM with a key kept apart from the rows it protects).
 */
export interface SecretBox {
  /** Encrypts `plaintext` (UTF-8) with a fresh nonce; the result is printable ASCII. */
  seal(plaintext: string): string;
  /** Decrypts what {@link seal} produced; undefined when it was altered or sealed under another key. */
  open(sealed: string): string | undefined;
}
