/** Port: slow, salted password hashing (argon2id, RFC 9106). */
export interface PasswordHasher {
  /** Hashes `password`; resolves with a self-describing encoded hash (PHC string format). */
  hash(password: string): Promise<string>;
  /** True when `password` matches `hash`; false for a wrong password or a malformed hash. Constant-time. */
  verify(options: { hash: string; password: string }): Promise<boolean>;
}
