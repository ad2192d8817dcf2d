/** Claims carried by a session access token. */
export interface AccessClaims {
  /** User id (JWT `sub`). */
  userId: string;
  /** Session id (JWT `sid`). */
  sessionId: string;
}

/** Port: signs and verifies session access tokens (JWT, RFC 7519, HS256). */
export interface TokenSigner {
  /**
   * Signs an access token valid for `ttlSeconds` from `now`.
   * @returns the compact JWT and its expiry as Unix time in seconds
   */
  sign(options: { claims: AccessClaims; now: Date; ttlSeconds: number }): Promise<{ token: string; expiresAt: number }>;
  /** Verifies signature, algorithm and expiry at `now`; undefined when the token is not valid. */
  verify(options: { token: string; now: Date }): Promise<AccessClaims | undefined>;
}
