import { expect } from 'chai';
import type { MfaRepository } from '../../core/accounts/mfa-repository.js';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import { aHash, at, givenUser, T0 } from './persistence-fixtures.js';

/** What a {@link describeMfaRepositoryContract} factory returns: repositories over one empty store. */
export interface MfaRepositorySubject {
  subject: MfaRepository;
  users: UserRepository;
  /** Deletes an account with everything it owns (to check the rows go with it). */
  deleteUser: (userId: string) => Promise<void>;
  close?: () => Promise<void>;
}

/** The behaviour every {@link MfaRepository} adapter must have; `makeSubject` is called once per test. */
export function describeMfaRepositoryContract(name: string, makeSubject: () => Promise<MfaRepositorySubject>): void {
  describe(`MfaRepository contract: ${name}`, () => {
    let mfa: MfaRepository;
    let subject: MfaRepositorySubject;
    let userId: string;

    beforeEach(async () => {
      subject = await makeSubject();
      mfa = subject.subject;
      userId = (await givenUser(subject.users)).id;
    });
    afterEach(async () => {
      await subject.close?.();
    });

    async function confirmed(codes: string[] = [aHash(), aHash()]) {
      await mfa.savePendingTotp({ userId, sealedSecret: 'sealed-1', createdAt: T0 });
      expect(await mfa.confirmTotp({ userId, sealedSecret: 'sealed-1', at: at(1000), timeStep: 100, recoveryCodeHashes: codes })).to.equal(true);
      return codes;
    }

    it('stores a pending factor, replaces it while pending, and refuses to replace a confirmed one', async () => {
      expect(await mfa.findTotp(userId)).to.equal(undefined);
      expect(await mfa.savePendingTotp({ userId, sealedSecret: 'sealed-0', createdAt: T0 })).to.equal(true);
      expect(await mfa.savePendingTotp({ userId, sealedSecret: 'sealed-1', createdAt: at(10) })).to.equal(true);
      expect(await mfa.findTotp(userId)).to.deep.equal({ userId, sealedSecret: 'sealed-1', confirmedAt: null, lastTimeStep: null, createdAt: at(10) });
      expect(await mfa.confirmTotp({ userId, sealedSecret: 'sealed-0', at: at(20), timeStep: 1, recoveryCodeHashes: [] }), 'a replaced secret').to.equal(false);
      expect(await mfa.confirmTotp({ userId, sealedSecret: 'sealed-1', at: at(20), timeStep: 7, recoveryCodeHashes: [aHash()] })).to.equal(true);
      expect(await mfa.confirmTotp({ userId, sealedSecret: 'sealed-1', at: at(30), timeStep: 8, recoveryCodeHashes: [] }), 'twice').to.equal(false);
      expect(await mfa.savePendingTotp({ userId, sealedSecret: 'sealed-2', createdAt: at(40) })).to.equal(false);
      expect(await mfa.findTotp(userId)).to.deep.equal({ userId, sealedSecret: 'sealed-1', confirmedAt: at(20), lastTimeStep: 7, createdAt: at(10) });
      expect(await mfa.countRecoveryCodes(userId)).to.equal(1);
    });

    it('claims each time step once and never an earlier one, of simultaneous claims exactly one', async () => {
      await confirmed();
      expect(await mfa.claimTimeStep({ userId, timeStep: 100 }), 'the confirming step').to.equal(false);
      const results = await Promise.all(Array.from({ length: 5 }, () => mfa.claimTimeStep({ userId, timeStep: 101 })));
      expect(results.filter(Boolean)).to.have.length(1);
      expect(await mfa.claimTimeStep({ userId, timeStep: 99 })).to.equal(false);
      expect(await mfa.claimTimeStep({ userId, timeStep: 103 })).to.equal(true);
      expect((await mfa.findTotp(userId))!.lastTimeStep).to.equal(103);
    });

    it('claims no step without a confirmed factor', async () => {
      expect(await mfa.claimTimeStep({ userId, timeStep: 1 })).to.equal(false);
      await mfa.savePendingTotp({ userId, sealedSecret: 's', createdAt: T0 });
      expect(await mfa.claimTimeStep({ userId, timeStep: 1 })).to.equal(false);
    });

    it("uses each recovery code once, of simultaneous uses exactly one, and only the account's own", async () => {
      const [first, second] = await confirmed();
      const other = (await givenUser(subject.users, { email: 'other@example.com' })).id;
      expect(await mfa.useRecoveryCode({ userId: other, codeHash: first, at: at(5) })).to.equal(false);
      const results = await Promise.all(Array.from({ length: 4 }, () => mfa.useRecoveryCode({ userId, codeHash: first, at: at(5) })));
      expect(results.filter(Boolean)).to.have.length(1);
      expect(await mfa.countRecoveryCodes(userId)).to.equal(1);
      expect(await mfa.useRecoveryCode({ userId, codeHash: aHash(), at: at(6) })).to.equal(false);
      expect(await mfa.useRecoveryCode({ userId, codeHash: second, at: at(6) })).to.equal(true);
      expect(await mfa.countRecoveryCodes(userId)).to.equal(0);
    });

    it('deletes the factor with its recovery codes', async () => {
      const [code] = await confirmed();
      await mfa.deleteTotp(userId);
      expect(await mfa.findTotp(userId)).to.equal(undefined);
      expect(await mfa.useRecoveryCode({ userId, codeHash: code, at: at(5) })).to.equal(false);
      await mfa.deleteTotp(userId);
    });

    it('finds a challenge until it expires, consumes it once, and purges expired ones', async () => {
      const live = { tokenHash: aHash(), userId, createdAt: T0, expiresAt: at(300_000) };
      const stale = { tokenHash: aHash(), userId, createdAt: T0, expiresAt: at(1000) };
      await mfa.createChallenge(live);
      await mfa.createChallenge(stale);
      expect(await mfa.findChallenge({ tokenHash: live.tokenHash, now: at(299_999) })).to.deep.equal(live);
      expect(await mfa.findChallenge({ tokenHash: live.tokenHash, now: at(300_000) })).to.equal(undefined);
      expect(await mfa.findChallenge({ tokenHash: stale.tokenHash, now: at(2000) })).to.equal(undefined);
      const results = await Promise.all(Array.from({ length: 3 }, () => mfa.consumeChallenge({ tokenHash: live.tokenHash, now: at(2000) })));
      expect(results.filter(Boolean)).to.have.length(1);
      expect(await mfa.findChallenge({ tokenHash: live.tokenHash, now: at(2000) })).to.equal(undefined);
      expect(await mfa.deleteExpiredChallenges({ now: at(2000) })).to.equal(1);
      expect(await mfa.consumeChallenge({ tokenHash: stale.tokenHash, now: T0 })).to.equal(false);
    });

    it('removes everything of an account with the account', async () => {
      await confirmed();
      await mfa.createChallenge({ tokenHash: aHash(), userId, createdAt: T0, expiresAt: at(300_000) });
      await subject.deleteUser(userId);
      expect(await mfa.findTotp(userId)).to.equal(undefined);
      expect(await mfa.countRecoveryCodes(userId)).to.equal(0);
      expect(await mfa.deleteExpiredChallenges({ now: at(400_000) })).to.equal(0);
    });
  });
}
