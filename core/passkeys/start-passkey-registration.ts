import type { MfaRepository } from '../accounts/mfa-repository.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { PasskeyChallengeRepository } from './passkey-challenge-repository.js';
import type { PasskeyRepository } from './passkey-repository.js';
import { PASSKEY_CHALLENGE_TTL_MS } from './relying-party.js';
import type { CeremonyOptions, RelyingParty, WebAuthnVerifier } from './webauthn-verifier.js';

/**
 * `POST /auth/passkeys/registration/options`: the options for `navigator.credentials.create()` to
 * add a passkey to the signed-in account (WebAuthn §7.1). The account's passkeys are excluded, so
 * an authenticator that holds one already says so instead of making a second. The challenge is
 * stored for {@link PASSKEY_CHALLENGE_TTL_MS} and can be answered once, by this account only.
 * A session that did not prove a second factor (`secondFactor: false`) cannot add a passkey to an
 * account that has one (a confirmed TOTP factor or a passkey): otherwise a session opened before the
 * factor was enrolled, or a stolen password, could add the thief's own factor and with it pass every
 * check that asks for a second factor (docs/account-security.md, "Adding a factor").
 * @throws DomainError UNAUTHORIZED (401) when the account no longer exists; SECOND_FACTOR_REQUIRED (403)
 */
export class StartPasskeyRegistration {
  constructor(
    private readonly deps: {
      users: UserRepository;
      passkeys: PasskeyRepository;
      /** Absent: only passkeys count as the account's second factor (a host without TOTP). */
      mfa?: MfaRepository;
      challenges: PasskeyChallengeRepository;
      verifier: WebAuthnVerifier;
      clock: Clock;
      rp: RelyingParty;
    },
  ) {}

  /**
   * @param input.secondFactor whether the calling session proved a second factor (Principal.secondFactor);
   *   absent: the caller vouches for the account holder (a host embedding the core without sessions)
   */
  async execute(input: { userId: string; secondFactor?: boolean }): Promise<CeremonyOptions> {
    const user = await this.deps.users.findById(input.userId);
    if (!user) throw new DomainError('UNAUTHORIZED', 'The account of this session no longer exists.');
    const existing = await this.deps.passkeys.listForUser(user.id);
    if (input.secondFactor === false) {
      const totp = await this.deps.mfa?.findTotp(user.id);
      if (existing.length > 0 || (totp !== undefined && totp.confirmedAt !== null)) {
        throw new DomainError('SECOND_FACTOR_REQUIRED', "This session did not prove the account's second factor: sign in again with it to add a passkey.");
      }
    }
    const ceremony = await this.deps.verifier.creationOptions({
      rp: this.deps.rp,
      user: { id: user.id, name: user.email },
      exclude: existing.map((passkey) => ({ credentialId: passkey.credentialId, transports: passkey.transports })),
      timeoutMs: PASSKEY_CHALLENGE_TTL_MS,
    });
    const now = this.deps.clock.now();
    await this.deps.challenges.create({
      challenge: ceremony.challenge,
      ceremony: 'registration',
      userId: user.id,
      expiresAt: new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_MS),
      createdAt: now,
    });
    return ceremony;
  }
}
