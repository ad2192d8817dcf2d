import { expect } from 'chai';
import type { OneTimeTokenRepository } from '../../core/accounts/one-time-token-repository.js';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import { aToken, at, givenUser, T0 } from './persistence-fixtures.js';

/** What a {@link describeOneTimeTokenRepositoryContract} factory returns: repositories over one empty store. */
export interface OneTimeTokenRepositorySubject {
  subject: OneTimeTokenRepository;
  /** Creates the users that own tokens (a database checks the foreign key). */
  users: UserRepository;
  close?: () => Promise<void>;
}

const DAY = 24 * 3600_000;

/** The behaviour every {@link OneTimeTokenRepository} adapter must have; `makeSubject` is called once per test. */
export function describeOneTimeTokenRepositoryContract(name: string, makeSubject: () => Promise<OneTimeTokenRepositorySubject>): void {
  describe(`OneTimeTokenRepository contract: ${name}`, () => {
    let tokens: OneTimeTokenRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let userId: string;

    beforeEach(async () => {
      ({ subject: tokens, users, close } = await makeSubject());
      userId = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    it('consumes a token once, giving its owner and redirect', async () => {
      const token = aToken(userId, { redirectTo: 'https://app.example.com/welcome', expiresAt: at(DAY) });
      await tokens.create(token);
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: token.tokenHash, now: at(1000) })).to.deep.equal({
        userId,
        redirectTo: 'https://app.example.com/welcome',
      });
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: token.tokenHash, now: at(2000) })).to.equal(undefined);
    });

    it('gives a null redirect when none was stored', async () => {
      const token = aToken(userId, { redirectTo: null });
      await tokens.create(token);
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: token.tokenHash, now: T0 })).to.deep.equal({ userId, redirectTo: null });
    });

    it('refuses an expired token: valid until the instant before expiresAt, not at it', async () => {
      const expired = aToken(userId, { expiresAt: at(DAY) });
      const lastMoment = aToken(userId, { expiresAt: at(DAY) });
      await tokens.create(expired);
      await tokens.create(lastMoment);
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: expired.tokenHash, now: at(DAY) })).to.equal(undefined);
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: expired.tokenHash, now: at(2 * DAY) })).to.equal(undefined);
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: lastMoment.tokenHash, now: at(DAY - 1) })).to.deep.equal({
        userId,
        redirectTo: null,
      });
    });

    it('deletes every token expired at now, of every user and purpose, and keeps those still valid', async () => {
      const otherUserId = (await givenUser(users)).id;
      const expiringNow = aToken(userId, { expiresAt: at(DAY) });
      const expiredBefore = aToken(otherUserId, { purpose: 'password_reset', expiresAt: at(DAY - 5) });
      const valid = aToken(userId, { purpose: 'password_reset', expiresAt: at(DAY + 1) });
      for (const token of [expiringNow, expiredBefore, valid]) await tokens.create(token);
      expect(await tokens.deleteExpired({ now: at(DAY) })).to.equal(2);
      expect(await tokens.deleteExpired({ now: at(DAY) })).to.equal(0);
      expect(await tokens.consume({ purpose: 'password_reset', tokenHash: valid.tokenHash, now: at(DAY) })).to.deep.equal({ userId, redirectTo: null });
      // The deleted ones are gone, not only refused: the same hash can be issued again.
      await tokens.create(aToken(userId, { tokenHash: expiringNow.tokenHash, expiresAt: at(3 * DAY) }));
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: expiringNow.tokenHash, now: at(2 * DAY) })).to.deep.equal({
        userId,
        redirectTo: null,
      });
    });

    it('refuses a token presented for another purpose, and leaves it usable for its own', async () => {
      const reset = aToken(userId, { purpose: 'password_reset' });
      await tokens.create(reset);
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: reset.tokenHash, now: T0 })).to.equal(undefined);
      expect(await tokens.consume({ purpose: 'password_reset', tokenHash: reset.tokenHash, now: T0 })).to.deep.equal({ userId, redirectTo: null });
    });

    it('refuses an unknown token', async () => {
      await tokens.create(aToken(userId));
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: 'f'.repeat(64), now: T0 })).to.equal(undefined);
    });

    it('lets exactly one of several simultaneous uses of a token succeed', async () => {
      const token = aToken(userId, { purpose: 'password_reset' });
      await tokens.create(token);
      const uses = await Promise.all([1, 2, 3, 4, 5].map(() => tokens.consume({ purpose: 'password_reset', tokenHash: token.tokenHash, now: T0 })));
      expect(uses.filter((use) => use !== undefined)).to.have.length(1);
    });

    it("deletes a user's tokens of one purpose and keeps the others and other users' tokens", async () => {
      const otherUserId = (await givenUser(users)).id;
      const resetA = aToken(userId, { purpose: 'password_reset' });
      const resetB = aToken(userId, { purpose: 'password_reset' });
      const confirmation = aToken(userId, { purpose: 'email_confirmation' });
      const othersReset = aToken(otherUserId, { purpose: 'password_reset' });
      for (const token of [resetA, resetB, confirmation, othersReset]) await tokens.create(token);

      await tokens.deleteForUser({ userId, purpose: 'password_reset' });

      expect(await tokens.consume({ purpose: 'password_reset', tokenHash: resetA.tokenHash, now: T0 })).to.equal(undefined);
      expect(await tokens.consume({ purpose: 'password_reset', tokenHash: resetB.tokenHash, now: T0 })).to.equal(undefined);
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: confirmation.tokenHash, now: T0 })).to.deep.equal({ userId, redirectTo: null });
      expect(await tokens.consume({ purpose: 'password_reset', tokenHash: othersReset.tokenHash, now: T0 })).to.deep.equal({
        userId: otherUserId,
        redirectTo: null,
      });
    });

    it('stores a copy: changing the token after create changes nothing stored', async () => {
      const token = aToken(userId, { expiresAt: at(DAY) });
      const hash = token.tokenHash;
      await tokens.create(token);
      token.expiresAt.setTime(0);
      token.purpose = 'password_reset';
      expect(await tokens.consume({ purpose: 'email_confirmation', tokenHash: hash, now: at(DAY - 1) })).to.deep.equal({ userId, redirectTo: null });
    });
  });
}
