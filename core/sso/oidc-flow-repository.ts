/** One sign-in on its way through the provider (between the redirect and the callback). */
export interface OidcFlow {
  /** SHA-256 hex of the `state` parameter: the flow's key. */
  stateHash: string;
  nonce: string;
  /** PKCE code verifier (RFC 7636); a secret, deleted when the flow is consumed or expires. */
  codeVerifier: string;
  /** SHA-256 hex of the invite token the dashboard passed along (for a first sign-in under `REGISTRATION=invite`); null for none. */
  inviteHash: string | null;
  /** The flow is refused from this instant on. */
  expiresAt: Date;
}

/** A single-use code that hands a finished sign-in over to the dashboard (instead of tokens in a URL). */
export interface SignInCode {
  /** SHA-256 hex of the code. */
  codeHash: string;
  userId: string;
  expiresAt: Date;
}

/**
 * Port: the short-lived, single-use state of OIDC sign-ins, in the database so that the callback
 * and the code exchange may land on any process: flows (by state) and hand-over codes.
 */
export interface OidcFlowRepository {
  createFlow(flow: OidcFlow): Promise<void>;
  /**
   * Atomically takes the flow with this state digest: succeeds once, while `now < expiresAt`, and removes it.
   * @returns the flow, or undefined when unknown, already taken or expired
   */
  consumeFlow(options: { stateHash: string; now: Date }): Promise<OidcFlow | undefined>;
  createCode(code: SignInCode): Promise<void>;
  /**
   * Atomically takes a hand-over code: succeeds once, while `now < expiresAt`, and removes it.
   * @returns the account's id, or undefined when unknown, already used or expired
   */
  consumeCode(options: { codeHash: string; now: Date }): Promise<{ userId: string } | undefined>;
  /** Removes expired flows and codes. @returns how many were removed */
  deleteExpired(options: { now: Date }): Promise<number>;
}
