import { jwtVerify, SignJWT } from 'jose';
import type { AccessClaims, TokenSigner } from '../../core/accounts/token-signer.js';

/** Options of {@link JoseTokenSigner}. */
export interface JoseTokenSignerOptions {
  /** HMAC key, at least 32 bytes (256 bits, RFC 7518 §3.2). Keep it secret; rotating it ends every session's access token. */
  secret: Uint8Array;
  /** JWT `iss` written and required; default `hangar`. */
  issuer?: string;
}

/** JWT `aud` of every access token: the Hangar API. */
const AUDIENCE = 'hangar';

/**
 * {@link TokenSigner} with `jose`: compact JWS, HS256 (RFC 7515, RFC 7518 §3.2), claims `sub` (user id),
 * `sid` (session id), `iat`, `exp` (Unix seconds), `iss`, `aud` = `hangar`. Verification pins the
 * algorithm to HS256 (so `alg: none` and algorithm confusion are refused), checks issuer, audience
 * and expiry at the `now` it is given, with no clock tolerance.
 */
export class JoseTokenSigner implements TokenSigner {
  private readonly secret: Uint8Array;
  private readonly issuer: string;

  /** @throws Error when `secret` is shorter than 32 bytes */
  constructor(options: JoseTokenSignerOptions) {
    if (!(options.secret instanceof Uint8Array) || options.secret.byteLength < 32) {
      throw new Error('The token signing secret must be at least 32 bytes long.');
    }
    this.secret = Uint8Array.from(options.secret);
    this.issuer = options.issuer ?? 'hangar';
  }

  /**
   * @param options.ttlSeconds lifetime in seconds, a positive integer
   * @returns the compact JWT and its `exp` (Unix seconds)
   * @throws Error for a ttl that is not a positive integer (a bug in the caller)
   */
  async sign(options: { claims: AccessClaims; now: Date; ttlSeconds: number }): Promise<{ token: string; expiresAt: number }> {
    if (!Number.isSafeInteger(options.ttlSeconds) || options.ttlSeconds <= 0) {
      throw new Error(`Invalid token ttl ${String(options.ttlSeconds)}: expected a positive whole number of seconds.`);
    }
    const issuedAt = Math.floor(options.now.getTime() / 1000);
    const expiresAt = issuedAt + options.ttlSeconds;
    const token = await new SignJWT({ sid: options.claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(options.claims.userId)
      .setIssuer(this.issuer)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.secret);
    return { token, expiresAt };
  }

  /** @returns the claims, or undefined for any malformed, forged, foreign or expired token (never throws) */
  async verify(options: { token: string; now: Date }): Promise<AccessClaims | undefined> {
    try {
      const { payload } = await jwtVerify(options.token, this.secret, {
        algorithms: ['HS256'],
        issuer: this.issuer,
        audience: AUDIENCE,
        currentDate: options.now,
        requiredClaims: ['sub', 'sid', 'iat', 'exp'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return undefined;
      return { userId: payload.sub, sessionId: payload.sid };
    } catch {
      return undefined;
    }
  }
}
