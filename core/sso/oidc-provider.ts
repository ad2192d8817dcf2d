/** What the provider vouches for about the person who signed in (OpenID Connect Core 1.0 §5.1). */
export interface OidcIdentity {
  /** The provider's issuer identifier (`iss`), as discovered. */
  issuer: string;
  /** The person's stable id at that issuer (`sub`). */
  subject: string;
  /** The `email` claim, when the provider released one. */
  email?: string;
  /** The `email_verified` claim: true only when the provider says it verified `email`. */
  emailVerified: boolean;
}

/** The secrets of one authorization request, kept by Hangar until the callback (RFC 7636 PKCE, OIDC Core §3.1.2.1 state and nonce). */
export interface OidcRequestSecrets {
  /** Opaque, unguessable; comes back on the callback (CSRF protection). */
  state: string;
  /** Bound into the ID token by the provider (replay protection). */
  nonce: string;
  /** The PKCE code verifier (RFC 7636 §4.1); its S256 challenge goes in the authorization URL. */
  codeVerifier: string;
}

/**
 * Port: one OpenID Connect provider, authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636,
 * OpenID Connect Core 1.0 §3.1). Calls to the provider have a timeout; failures reject with
 * DomainError OIDC_PROVIDER_ERROR (502); a callback the provider or the checks refuse (wrong
 * state or nonce, an error answer, an invalid code or ID token) rejects with OIDC_FAILED (400).
 */
export interface OidcProvider {
  /** Name shown on the sign-in button ("Sign in with …"). */
  readonly displayName: string;
  /** Fresh random state, nonce and PKCE verifier for one sign-in. */
  newSecrets(): OidcRequestSecrets;
  /** The provider's authorization URL for `secrets` (scope `openid email profile`, S256 challenge). */
  authorizationUrl(secrets: OidcRequestSecrets): Promise<string>;
  /**
   * Redeems the callback: checks `state`, exchanges the code with the PKCE verifier, validates the
   * ID token (signature, issuer, audience, expiry, nonce) and reads the claims (the UserInfo
   * endpoint's when the ID token has no `email`).
   * @param callbackUrl the full callback URL as the browser requested it (its query carries `code`, `state`, or `error`)
   */
  complete(options: { callbackUrl: string; secrets: OidcRequestSecrets }): Promise<OidcIdentity>;
}
