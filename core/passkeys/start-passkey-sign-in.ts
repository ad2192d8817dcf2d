import type { UserRepository } from '../accounts/user-repository.js';
import { normaliseEmail } from '../accounts/user.js';
import type { Clock } from '../shared/clock.js';
import type { RateLimits } from '../shared/rate-limits.js';
import type { PasskeyChallengeRepository } from './passkey-challenge-repository.js';
import type { PasskeyRepository } from './passkey-repository.js';
import { PASSKEY_CHALLENGE_TTL_MS } from './relying-party.js';
import type { CeremonyOptions, CredentialDescriptor, RelyingParty, WebAuthnVerifier } from './webauthn-verifier.js';

/**
 * `POST /auth/passkeys/authentication/options` (no credentials): the options for
 * `navigator.credentials.get()` to sign in with a passkey (WebAuthn §7.2). Without `email` the
 * browser offers every discoverable passkey it holds for this service; with the e-mail of an
 * account that has passkeys, it is limited to those (for authenticators that keep no
 * discoverable credentials). An unknown address gets the same options as no address. Every
 * request stores a challenge, so requests are counted per client address
 * (RateLimits.passkeyChallenge).
 * @throws DomainError RATE_LIMITED (429)
 */
export class StartPasskeySignIn {
  constructor(
    private readonly deps: {
      users: UserRepository;
      passkeys: PasskeyRepository;
      challenges: PasskeyChallengeRepository;
      verifier: WebAuthnVerifier;
      limits: RateLimits;
      clock: Clock;
      rp: RelyingParty;
    },
  ) {}

  /** @param input.client the client's address (see RateLimits), when the host knows it */
  async execute(input: { email?: string; client?: string }): Promise<CeremonyOptions> {
    await this.deps.limits.passkeyChallenge(input.client);
    const allow = input.email === undefined ? [] : await this.allowed(input.email);
    const ceremony = await this.deps.verifier.requestOptions({ rp: this.deps.rp, allow, timeoutMs: PASSKEY_CHALLENGE_TTL_MS });
    const now = this.deps.clock.now();
    await this.deps.challenges.create({
      challenge: ceremony.challenge,
      ceremony: 'authentication',
      userId: null,
      expiresAt: new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_MS),
      createdAt: now,
    });
    return ceremony;
  }

  private async allowed(email: string): Promise<CredentialDescriptor[]> {
    let normalised: string;
    try {
      normalised = normaliseEmail(email);
    } catch {
      return [];
    }
    const user = await this.deps.users.findByEmail(normalised);
    if (!user) return [];
    return (await this.deps.passkeys.listForUser(user.id)).map((passkey) => ({ credentialId: passkey.credentialId, transports: passkey.transports }));
  }
}
