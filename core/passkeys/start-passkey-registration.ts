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
 * @throws DomainError UNAUTHORIZED (401) when the account no longer exists
 */
export class StartPasskeyRegistration {
  constructor(
    private readonly deps: {
      users: UserRepository;
      passkeys: PasskeyRepository;
      challenges: PasskeyChallengeRepository;
      verifier: WebAuthnVerifier;
      clock: Clock;
      rp: RelyingParty;
    },
  ) {}

  async execute(input: { userId: string }): Promise<CeremonyOptions> {
    const user = await this.deps.users.findById(input.userId);
    if (!user) throw new DomainError('UNAUTHORIZED', 'The account of this session no longer exists.');
    const existing = await this.deps.passkeys.listForUser(user.id);
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
