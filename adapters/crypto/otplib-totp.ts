import type { Totp } from '../../core/accounts/totp.js';

/** RFC 6238 defaults every authenticator app understands: SHA-1, 6 digits, 30 s. */
const PERIOD_SECONDS = 30;

let library: Promise<typeof import('otplib')> | undefined;
/** otplib, imported on first use: a process that never enrols or checks a code does not load it. */
function otplib(): Promise<typeof import('otplib')> {
  return (library ??= import('otplib'));
}

/**
 * {@link Totp} with `otplib` (RFC 6238 over RFC 4226; its default crypto and base32 plugins).
 * Codes are checked at the instant the caller gives, never the system clock, with a tolerance of
 * one period before and after (RFC 6238 §5.2).
 */
export class OtplibTotp implements Totp {
  async newSecret(): Promise<string> {
    const { generateSecret } = await otplib();
    return generateSecret({ length: 20 });
  }

  async uri(options: { secret: string; label: string; issuer: string }): Promise<string> {
    const { generateURI } = await otplib();
    return generateURI({ issuer: options.issuer, label: options.label, secret: options.secret, period: PERIOD_SECONDS, digits: 6, algorithm: 'sha1' });
  }

  async match(options: { secret: string; code: string; at: Date }): Promise<number | undefined> {
    const { verify } = await otplib();
    const result = await verify({
      secret: options.secret,
      token: options.code,
      epoch: Math.floor(options.at.getTime() / 1000),
      period: PERIOD_SECONDS,
      epochTolerance: PERIOD_SECONDS,
    }).catch(() => ({ valid: false as const }));
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  }

  async codeAt(options: { secret: string; at: Date }): Promise<string> {
    const { generate } = await otplib();
    return generate({ secret: options.secret, epoch: Math.floor(options.at.getTime() / 1000), period: PERIOD_SECONDS });
  }
}
