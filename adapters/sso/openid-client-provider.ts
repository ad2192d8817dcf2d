import * as client from 'openid-client';
import { DomainError } from '../../core/shared/errors.js';
import type { OidcIdentity, OidcProvider, OidcRequestSecrets } from '../../core/sso/oidc-provider.js';

/** Options of {@link OpenIdClientProvider}. */
export interface OpenIdClientProviderOptions {
  /** The issuer identifier (`OIDC_ISSUER`); its discovery document is read from `/.well-known/openid-configuration` under it. */
  issuer: string;
  clientId: string;
  /** Sent with HTTP Basic authentication at the token endpoint (`client_secret_basic`). */
  clientSecret: string;
  /** The callback registered at the provider: `{PUBLIC_API_URL}/auth/oidc/callback`. */
  redirectUri: string;
  /** Name of the sign-in button. */
  displayName: string;
  /** Timeout of each call to the provider, in seconds (default 10). */
  timeoutSeconds?: number;
  /** Allow plain HTTP to the provider: only for a provider on the loopback interface (tests, development). */
  allowHttp?: boolean;
}

/**
 * {@link OidcProvider} through `openid-client` (v6): discovery (once, retried after a failure),
 * authorization code flow with PKCE S256, state and nonce checks, ID token validation, and the
 * UserInfo endpoint when the ID token carries no `email` (OpenID Connect Core 1.0 §5.4: providers
 * may release scope claims only there).
 */
export class OpenIdClientProvider implements OidcProvider {
  readonly displayName: string;
  private configuration: Promise<client.Configuration> | undefined;

  constructor(private readonly options: OpenIdClientProviderOptions) {
    this.displayName = options.displayName;
  }

  newSecrets(): OidcRequestSecrets {
    return { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
  }

  async authorizationUrl(secrets: OidcRequestSecrets): Promise<string> {
    const config = await this.config();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
    });
    return url.href;
  }

  async complete(options: { callbackUrl: string; secrets: OidcRequestSecrets }): Promise<OidcIdentity> {
    const config = await this.config();
    try {
      const tokens = await client.authorizationCodeGrant(config, new URL(options.callbackUrl), {
        pkceCodeVerifier: options.secrets.codeVerifier,
        expectedState: options.secrets.state,
        expectedNonce: options.secrets.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new DomainError('OIDC_FAILED', 'The identity provider returned no ID token.');
      let email = typeof claims.email === 'string' ? claims.email : undefined;
      let verified = claims.email_verified === true;
      if (email === undefined) {
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        email = typeof info.email === 'string' ? info.email : undefined;
        verified = info.email_verified === true;
      }
      return { issuer: claims.iss, subject: claims.sub, email, emailVerified: verified };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** The discovered configuration; a failed discovery is forgotten, so the next sign-in tries again. */
  private config(): Promise<client.Configuration> {
    this.configuration ??= client
      .discovery(new URL(this.options.issuer), this.options.clientId, undefined, client.ClientSecretBasic(this.options.clientSecret), {
        timeout: this.options.timeoutSeconds ?? 10,
        execute: this.options.allowHttp ? [client.allowInsecureRequests] : [],
      })
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw new DomainError('OIDC_PROVIDER_ERROR', `The identity provider could not be reached (${describe(error)}).`);
      });
    return this.configuration;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 200);
  return String(error).slice(0, 200);
}

/** Refusals of the sign-in (state, nonce, PKCE, an error answer, an invalid grant or token) are OIDC_FAILED; outages are OIDC_PROVIDER_ERROR. */
function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof client.AuthorizationResponseError) {
    return new DomainError('OIDC_FAILED', `The identity provider refused the sign-in (${error.error}).`);
  }
  if (error instanceof client.ResponseBodyError && error.status < 500) {
    return new DomainError('OIDC_FAILED', `The identity provider refused the sign-in (${error.error}).`);
  }
  const name = error instanceof Error ? error.name : '';
  const network = name === 'AbortError' || name === 'TimeoutError' || (error instanceof TypeError && /fetch failed/i.test(error.message));
  if (network || error instanceof client.ResponseBodyError) {
    return new DomainError('OIDC_PROVIDER_ERROR', `The identity provider could not be reached (${describe(error)}).`);
  }
  return new DomainError('OIDC_FAILED', `The sign-in could not be verified (${describe(error)}).`);
}
