import { expect } from 'chai';
import type { FakeCredentialResponse, FakeWebAuthnVerifier } from '../support/fake-webauthn-verifier.js';
import { createMemoryHangar, DEFAULT_PASSWORD, expectDomainError, UUID_PATTERN } from '../support/memory-hangar.js';

/** A world with a confirmed Alice, and helpers that play her browser with the fake verifier. */
async function withAlice() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const verifier = world.ports.webauthn as FakeWebAuthnVerifier;
  const { hangar } = world;
  /** Registers a passkey for `userId` the way the dashboard does: options, then the authenticator's answer. */
  async function register(userId: string, credential: Partial<FakeCredentialResponse> = {}, name?: string) {
    const { challenge } = await hangar.startPasskeyRegistration.execute({ userId });
    return hangar.finishPasskeyRegistration.execute({ userId, name, response: { credentialId: 'cred-1', key: 'key-1', counter: 0, challenge, ...credential } });
  }
  /** Signs in with the credential's answer to a fresh sign-in challenge. */
  async function signIn(credential: Partial<FakeCredentialResponse> = {}) {
    const { challenge } = await hangar.startPasskeySignIn.execute({});
    return hangar.signInWithPasskey.execute({ response: { credentialId: 'cred-1', key: 'key-1', counter: 0, challenge, ...credential } });
  }
  return { ...world, alice, verifier, register, signIn };
}

describe('Passkeys', () => {
  describe('registration', () => {
    it('stores the passkey with a default name, the relying party being the API host', async () => {
      const { alice, register, verifier, hangar } = await withAlice();
      const passkey = await register(alice.userId);
      expect(passkey).to.include({ userId: alice.userId, name: 'Passkey 1', credentialId: 'cred-1', publicKey: 'key-1', counter: 0, lastUsedAt: null });
      expect(passkey.id).to.match(UUID_PATTERN);
      expect(verifier.ceremonies[0].rp).to.deep.equal({ id: 'api.test', name: 'Hangar', origin: 'http://api.test' });
      expect((await hangar.listPasskeys.execute({ userId: alice.userId })).map((p) => p.name)).to.deep.equal(['Passkey 1']);
    });

    it('registers several passkeys and excludes the ones registered already from new options', async () => {
      const { alice, register, verifier, hangar, clock } = await withAlice();
      await register(alice.userId, {}, 'Laptop');
      clock.advance(1000);
      await register(alice.userId, { credentialId: 'cred-2', key: 'key-2' }, 'Phone');
      await hangar.startPasskeyRegistration.execute({ userId: alice.userId });
      expect(verifier.ceremonies.at(-1)!.credentials.map((c) => c.credentialId)).to.deep.equal(['cred-1', 'cred-2']);
      expect((await hangar.listPasskeys.execute({ userId: alice.userId })).map((p) => p.name)).to.deep.equal(['Laptop', 'Phone']);
    });

    it('refuses an answer to a challenge issued to another account, and uses it up', async () => {
      const { alice, hangar, registerConfirmed } = await withAlice();
      const bob = await registerConfirmed('bob@example.com');
      const { challenge } = await hangar.startPasskeyRegistration.execute({ userId: alice.userId });
      const response = { credentialId: 'cred-1', key: 'key-1', counter: 0, challenge };
      await expectDomainError(hangar.finishPasskeyRegistration.execute({ userId: bob.userId, response }), 'PASSKEY_CHALLENGE_INVALID');
      await expectDomainError(hangar.finishPasskeyRegistration.execute({ userId: alice.userId, response }), 'PASSKEY_CHALLENGE_INVALID');
      expect(await hangar.listPasskeys.execute({ userId: alice.userId })).to.deep.equal([]);
    });

    it('refuses a challenge answered after 5 minutes', async () => {
      const { alice, hangar, clock } = await withAlice();
      const { challenge } = await hangar.startPasskeyRegistration.execute({ userId: alice.userId });
      clock.advance(5 * 60_000);
      await expectDomainError(
        hangar.finishPasskeyRegistration.execute({ userId: alice.userId, response: { credentialId: 'cred-1', key: 'k', counter: 0, challenge } }),
        'PASSKEY_CHALLENGE_INVALID',
      );
    });

    it('refuses a forged response and one without user verification, storing nothing', async () => {
      const { alice, register, hangar } = await withAlice();
      await expectDomainError(register(alice.userId, { authentic: false }), 'PASSKEY_INVALID');
      await expectDomainError(register(alice.userId, { userVerified: false }), 'PASSKEY_INVALID');
      await expectDomainError(hangar.finishPasskeyRegistration.execute({ userId: alice.userId, response: { nonsense: true } }), 'PASSKEY_INVALID');
      expect(await hangar.listPasskeys.execute({ userId: alice.userId })).to.deep.equal([]);
    });

    it('refuses a credential registered already, to this account or another', async () => {
      const { alice, register, registerConfirmed } = await withAlice();
      const bob = await registerConfirmed('bob@example.com');
      await register(alice.userId);
      await expectDomainError(register(alice.userId), 'PASSKEY_ALREADY_REGISTERED');
      await expectDomainError(register(bob.userId), 'PASSKEY_ALREADY_REGISTERED');
    });
  });

  describe('sign-in', () => {
    it("opens a session for the passkey's account, with no password and no second factor", async () => {
      const { alice, register, signIn, hangar, clock } = await withAlice();
      await register(alice.userId);
      clock.advance(1000);
      const { user, session } = await signIn();
      expect(user.id).to.equal(alice.userId);
      const principal = await hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` });
      expect(principal).to.include({ kind: 'session', userId: alice.userId });
      expect((await hangar.listPasskeys.execute({ userId: alice.userId }))[0].lastUsedAt).to.deep.equal(clock.now());
    });

    it("limits the options to the account's passkeys when an e-mail is given, and to none for an unknown address", async () => {
      const { alice, register, verifier, hangar } = await withAlice();
      await register(alice.userId);
      await hangar.startPasskeySignIn.execute({ email: ' Alice@Example.com ' });
      expect(verifier.ceremonies.at(-1)!.credentials.map((c) => c.credentialId)).to.deep.equal(['cred-1']);
      await hangar.startPasskeySignIn.execute({ email: 'nobody@example.com' });
      expect(verifier.ceremonies.at(-1)!.credentials).to.deep.equal([]);
    });

    it('accepts an answer once: a replay finds its challenge used', async () => {
      const { alice, register, hangar } = await withAlice();
      await register(alice.userId);
      const { challenge } = await hangar.startPasskeySignIn.execute({});
      const response = { credentialId: 'cred-1', key: 'key-1', counter: 0, challenge };
      await hangar.signInWithPasskey.execute({ response });
      await expectDomainError(hangar.signInWithPasskey.execute({ response }), 'PASSKEY_CHALLENGE_INVALID');
    });

    it('refuses an expired challenge, and a registration challenge', async () => {
      const { alice, register, hangar, clock } = await withAlice();
      await register(alice.userId);
      const { challenge } = await hangar.startPasskeySignIn.execute({});
      clock.advance(5 * 60_000);
      await expectDomainError(
        hangar.signInWithPasskey.execute({ response: { credentialId: 'cred-1', key: 'key-1', counter: 0, challenge } }),
        'PASSKEY_CHALLENGE_INVALID',
      );
      const registration = await hangar.startPasskeyRegistration.execute({ userId: alice.userId });
      await expectDomainError(
        hangar.signInWithPasskey.execute({ response: { credentialId: 'cred-1', key: 'key-1', counter: 0, challenge: registration.challenge } }),
        'PASSKEY_CHALLENGE_INVALID',
      );
    });

    it('refuses an unknown credential, and a deleted passkey', async () => {
      const { alice, register, signIn, hangar } = await withAlice();
      await expectDomainError(signIn(), 'PASSKEY_NOT_RECOGNISED');
      const passkey = await register(alice.userId);
      await hangar.deletePasskey.execute({ userId: alice.userId, id: passkey.id });
      await expectDomainError(signIn(), 'PASSKEY_NOT_RECOGNISED');
    });

    it('refuses a signature by another key and an answer without user verification', async () => {
      const { alice, register, signIn } = await withAlice();
      await register(alice.userId);
      await expectDomainError(signIn({ key: 'someone-else' }), 'PASSKEY_REJECTED');
      await expectDomainError(signIn({ userVerified: false }), 'PASSKEY_REJECTED');
    });

    it('requires the signature counter to grow once the authenticator keeps one', async () => {
      const { alice, register, signIn } = await withAlice();
      await register(alice.userId, { counter: 5 });
      await expectDomainError(signIn({ counter: 5 }), 'PASSKEY_COUNTER_REGRESSED');
      await expectDomainError(signIn({ counter: 3 }), 'PASSKEY_COUNTER_REGRESSED');
      await signIn({ counter: 6 });
      await expectDomainError(signIn({ counter: 6 }), 'PASSKEY_COUNTER_REGRESSED');
    });

    it('accepts a counter that stays 0 (an authenticator without a counter)', async () => {
      const { alice, register, signIn } = await withAlice();
      await register(alice.userId);
      await signIn();
      await signIn();
    });

    it('refuses an account whose e-mail address is not confirmed, as the password login does', async () => {
      const world = await withAlice();
      await world.hangar.registerAccount.execute({ email: 'carol@example.com', password: DEFAULT_PASSWORD });
      const carol = (await world.repos.users.findByEmail('carol@example.com'))!;
      await world.repos.passkeys.insert({
        id: '00000000-0000-4000-8000-000000000001',
        userId: carol.id,
        name: 'Carol',
        credentialId: 'cred-carol',
        publicKey: 'key-carol',
        counter: 0,
        transports: [],
        createdAt: world.clock.now(),
        lastUsedAt: null,
      });
      await expectDomainError(world.signIn({ credentialId: 'cred-carol', key: 'key-carol' }), 'EMAIL_NOT_VERIFIED');
    });

    it('counts sign-in challenges per client address', async () => {
      const { hangar } = await withAlice();
      for (let i = 0; i < 30; i += 1) await hangar.startPasskeySignIn.execute({ client: '203.0.113.9' });
      await expectDomainError(hangar.startPasskeySignIn.execute({ client: '203.0.113.9' }), 'RATE_LIMITED');
      await hangar.startPasskeySignIn.execute({ client: '203.0.113.10' });
    });
  });

  describe('management', () => {
    it("renames and deletes only the account's own passkeys", async () => {
      const { alice, register, hangar, registerConfirmed } = await withAlice();
      const bob = await registerConfirmed('bob@example.com');
      const passkey = await register(alice.userId);
      await expectDomainError(hangar.renamePasskey.execute({ userId: bob.userId, id: passkey.id, name: 'Mine' }), 'PASSKEY_NOT_FOUND');
      await expectDomainError(hangar.deletePasskey.execute({ userId: bob.userId, id: passkey.id }), 'PASSKEY_NOT_FOUND');
      await expectDomainError(hangar.renamePasskey.execute({ userId: alice.userId, id: passkey.id, name: '   ' }), 'VALIDATION_FAILED');
      expect(await hangar.renamePasskey.execute({ userId: alice.userId, id: passkey.id, name: ' Yubikey ' })).to.include({ name: 'Yubikey' });
      await hangar.deletePasskey.execute({ userId: alice.userId, id: passkey.id });
      expect(await hangar.listPasskeys.execute({ userId: alice.userId })).to.deep.equal([]);
      await expectDomainError(hangar.deletePasskey.execute({ userId: alice.userId, id: 'not-a-uuid' }), 'PASSKEY_NOT_FOUND');
    });

    it('forgets challenges never answered when credentials are purged', async () => {
      const { alice, hangar, clock } = await withAlice();
      await hangar.startPasskeyRegistration.execute({ userId: alice.userId });
      await hangar.startPasskeySignIn.execute({});
      clock.advance(5 * 60_000);
      expect(await hangar.purgeCredentials.execute()).to.include({ passkeyChallenges: 2 });
    });
  });
});
