import { generate, generateSecret, generateURI, verify } from 'otplib';
import type { Totp } from '../../core/accounts/totp.js';

/** RFC 6238 defaults every authenticator app understands: SHA-1, 6 digits, 30 s. */
const PERIOD_SECONDS = 30;

/**
 * {@link Totp} with `otplib` (RFC 6238 over RFC 4226; its default crypto and base32 plugins).
 * Codes are checked at the instant the caller gives, never the system clock, with a tolerance of
 * one period before and after (RFC 6238 §5.2).
 */
export class OtplibTotp implements Totp {
  newSecret(): string {
    return generateSecret({ length: 20 });
  }

  uri(options: { secret: string; label: string; issuer: string }): string {
    return generateURI({ issuer: options.issuer, label: options.label, secret: options.secret, period: PERIOD_SECONDS, digits: 6, algorithm: 'sha1' });
  }

  async match(options: { secret: string; code: string; at: Date }): Promise<number | undefined> {
    const result = await verify({
      secret: options.secret,
      token: options.code,
      epoch: Math.floor(options.at.getTime() / 1000),
      period: PERIOD_SECONDS,
      epochTolerance: PERIOD_SECONDS,
    }).catch(() => ({ valid: false as const }));
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  }

  codeAt(options: { secret: string; at: Date }): Promise<string> {
    return generate({ secret: options.secret, epoch: Math.floor(options.at.getTime() / 1000), period: PERIOD_SECONDS });
  }
}
