import { expect } from 'chai';
import type { Session, SessionRepository } from '../../core/accounts/session-repository.js';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import { aHash, aRefreshToken, aSession, at, givenUser, T0 } from './persistence-fixtures.js';

/** What a {@link describeSessionRepositoryContract} factory returns: repositories over one empty store. */
export interface SessionRepositorySubject {
  subject: SessionRepository;
  /** Creates the users that own sessions (a database checks the foreign key). */
  users: UserRepository;
  close?: () => Promise<void>;
}

/** The behaviour every {@link SessionRepository} adapter must have; `makeSubject` is called once per test. */
export function describeSessionRepositoryContract(name: string, makeSubject: () => Promise<SessionRepositorySubject>): void {
  describe(`SessionRepository contract: ${name}`, () => {
    let sessions: SessionRepository;
    let users: UserRepository;
    let close: (() => Promise<void>) | undefined;
    let userId: string;

    beforeEach(async () => {
      ({ subject: sessions, users, close } = await makeSubject());
      userId = (await givenUser(users)).id;
    });
    afterEach(async () => {
      await close?.();
    });

    /** A live session with its first refresh token; returns both. */
    async function givenSession(owner = userId, overrides: Partial<Session> = {}) {
      const session = aSession(owner, overrides);
      const refreshToken = aRefreshToken(session.id);
      await sessions.create({ session, refreshToken });
      return { session, refreshToken };
    }

    function next(createdAt = at(1000)) {
      return { tokenHash: aHash(), createdAt, rotatedAt: null };
    }

    it('stores a session and finds it by id', async () => {
      const { session } = await givenSession();
      expect(await sessions.findById(session.id)).to.deep.equal(session);
    });

    it('answers undefined for an unknown session', async () => {
      expect(await sessions.findById('00000000-0000-4000-8000-000000000000')).to.equal(undefined);
    });

    it('rotates a current refresh token and then accepts the new one', async () => {
      const { session, refreshToken } = await givenSession();
      const second = next(at(1000));
      expect(await sessions.rotate({ tokenHash: refreshToken.tokenHash, next: second, now: at(1000) })).to.deep.equal({ kind: 'rotated', session });
      const third = next(at(2000));
      expect(await sessions.rotate({ tokenHash: second.tokenHash, next: third, now: at(2000) })).to.deep.equal({ kind: 'rotated', session });
    });

    it('reports an already-rotated token as reused, with its session, and stores nothing for it', async () => {
      const { session, refreshToken } = await givenSession();
      await sessions.rotate({ tokenHash: refreshToken.tokenHash, next: next(), now: at(1000) });
      const attempt = next(at(2000));
      expect(await sessions.rotate({ tokenHash: refreshToken.tokenHash, next: attempt, now: at(2000) })).to.deep.equal({
        kind: 'reused',
        session,
        rotatedAt: at(1000),
        sealedSuccessor: null,
      });
      expect(await sessions.rotate({ tokenHash: attempt.tokenHash, next: next(), now: at(3000) })).to.deep.equal({ kind: 'invalid' });
    });

    it('reports an unknown refresh token as invalid', async () => {
      await givenSession();
      expect(await sessions.rotate({ tokenHash: aHash(), next: next(), now: T0 })).to.deep.equal({ kind: 'invalid' });
    });

    it('reports every token of a revoked session as invalid, current or rotated', async () => {
      const { session, refreshToken } = await givenSession();
      const current = next();
      await sessions.rotate({ tokenHash: refreshToken.tokenHash, next: current, now: at(1000) });
      await sessions.revoke({ sessionId: session.id, at: at(2000) });
      expect(await sessions.rotate({ tokenHash: current.tokenHash, next: next(), now: at(3000) })).to.deep.equal({ kind: 'invalid' });
      expect(await sessions.rotate({ tokenHash: refreshToken.tokenHash, next: next(), now: at(3000) })).to.deep.equal({ kind: 'invalid' });
    });

    it('rotates a token for exactly one of several simultaneous refreshes; the rest see reuse, with the winner’s sealed successor', async () => {
      const { refreshToken } = await givenSession();
      const results = await Promise.all(
        ['one', 'two', 'three', 'four'].map((sealed) =>
          sessions.rotate({ tokenHash: refreshToken.tokenHash, next: next(), sealedSuccessor: sealed, now: at(1000) }),
        ),
      );
      expect(results.filter((result) => result.kind === 'rotated')).to.have.length(1);
      const reused = results.filter((result) => result.kind === 'reused');
      expect(reused).to.have.length(3);
      const winner = ['one', 'two', 'three', 'four'][results.findIndex((result) => result.kind === 'rotated')];
      expect(reused.map((result) => result.sealedSuccessor)).to.deep.equal([winner, winner, winner]);
    });

    it('keeps the sealed successor with the rotated token and reports it on reuse, also after the successor rotated in turn', async () => {
      const { refreshToken } = await givenSession();
      const second = next();
      await sessions.rotate({ tokenHash: refreshToken.tokenHash, next: second, sealedSuccessor: 'sealed second', now: at(1000) });
      await sessions.rotate({ tokenHash: second.tokenHash, next: next(), sealedSuccessor: 'sealed third', now: at(2000) });
      expect(await sessions.rotate({ tokenHash: refreshToken.tokenHash, next: next(), now: at(3000) })).to.deep.include({
        kind: 'reused',
        sealedSuccessor: 'sealed second',
      });
      expect(await sessions.rotate({ tokenHash: second.tokenHash, next: next(), now: at(3000) })).to.deep.include({
        kind: 'reused',
        sealedSuccessor: 'sealed third',
      });
    });

    it('revokes a session once: a second revoke keeps the first time', async () => {
      const { session } = await givenSession();
      await sessions.revoke({ sessionId: session.id, at: at(1000) });
      await sessions.revoke({ sessionId: session.id, at: at(2000) });
      expect((await sessions.findById(session.id))?.revokedAt).to.deep.equal(at(1000));
    });

    it('marks a live session as having proved a second factor once, keeping the first time, and never a revoked one', async () => {
      const { session } = await givenSession();
      expect((await sessions.findById(session.id))?.secondFactorAt).to.equal(null);
      await sessions.markSecondFactor({ sessionId: session.id, at: at(1000) });
      await sessions.markSecondFactor({ sessionId: session.id, at: at(2000) });
      expect((await sessions.findById(session.id))?.secondFactorAt).to.deep.equal(at(1000));
      const revoked = await givenSession();
      await sessions.revoke({ sessionId: revoked.session.id, at: at(500) });
      await sessions.markSecondFactor({ sessionId: revoked.session.id, at: at(1000) });
      expect((await sessions.findById(revoked.session.id))?.secondFactorAt).to.equal(null);
      const opened = await givenSession(userId, { secondFactorAt: at(10) });
      expect((await sessions.findById(opened.session.id))?.secondFactorAt).to.deep.equal(at(10));
    });

    it("revokes every live session of a user, and no other user's", async () => {
      const first = await givenSession();
      const second = await givenSession();
      const earlier = await givenSession();
      await sessions.revoke({ sessionId: earlier.session.id, at: at(500) });
      const otherUserId = (await givenUser(users)).id;
      const others = await givenSession(otherUserId);

      await sessions.revokeAllForUser({ userId, at: at(1000) });

      expect((await sessions.findById(first.session.id))?.revokedAt).to.deep.equal(at(1000));
      expect((await sessions.findById(second.session.id))?.revokedAt).to.deep.equal(at(1000));
      expect((await sessions.findById(earlier.session.id))?.revokedAt).to.deep.equal(at(500));
      expect((await sessions.findById(others.session.id))?.revokedAt).to.equal(null);
      expect((await sessions.rotate({ tokenHash: others.refreshToken.tokenHash, next: next(), now: at(2000) })).kind).to.equal('rotated');
    });

    it('purges sessions revoked before the cutoff with all their tokens, and tokens rotated before it; keeps live sessions and current tokens however old', async () => {
      // A live session whose token was rotated three times before the cutoff and once after it.
      const live = await givenSession();
      const chain = [live.refreshToken.tokenHash];
      for (const ms of [1000, 1100, 1200, 5000]) {
        const following = next(at(ms));
        expect((await sessions.rotate({ tokenHash: chain.at(-1)!, next: following, now: at(ms) })).kind).to.equal('rotated');
        chain.push(following.tokenHash);
      }
      // Three sessions revoked before the cutoff, each with a rotated and a current token.
      const revoked = [];
      for (let i = 0; i < 3; i++) {
        const old = await givenSession();
        const current = next(at(1500));
        await sessions.rotate({ tokenHash: old.refreshToken.tokenHash, next: current, now: at(1500) });
        await sessions.revoke({ sessionId: old.session.id, at: at(2000) });
        revoked.push({ ...old, current });
      }
      const recent = await givenSession();
      await sessions.revoke({ sessionId: recent.session.id, at: at(4000) });

      expect(await sessions.purge({ before: at(3000) })).to.deep.equal({ sessions: 3, refreshTokens: 3 * 2 + 3 });

      for (const old of revoked) {
        expect(await sessions.findById(old.session.id)).to.equal(undefined);
        for (const tokenHash of [old.refreshToken.tokenHash, old.current.tokenHash])
          expect((await sessions.rotate({ tokenHash, next: next(at(6000)), now: at(6000) })).kind).to.equal('invalid');
      }
      expect((await sessions.findById(recent.session.id))?.revokedAt).to.deep.equal(at(4000));
      expect(await sessions.findById(live.session.id)).to.deep.equal(live.session);
      // Rotated before the cutoff: now unknown (refused, no longer reported as reuse); after it: still reported.
      for (const tokenHash of chain.slice(0, 3)) expect((await sessions.rotate({ tokenHash, next: next(at(6000)), now: at(6000) })).kind).to.equal('invalid');
      expect(await sessions.rotate({ tokenHash: chain[3], next: next(at(6000)), now: at(6000) })).to.deep.equal({
        kind: 'reused',
        session: live.session,
        rotatedAt: at(5000),
        sealedSuccessor: null,
      });
      expect((await sessions.rotate({ tokenHash: chain[4], next: next(at(6000)), now: at(6000) })).kind).to.equal('rotated');
      expect(await sessions.purge({ before: at(3000) })).to.deep.equal({ sessions: 0, refreshTokens: 0 });
    });

    it('purges nothing of a session whose only token was never rotated, however long ago it was issued', async () => {
      const { session, refreshToken } = await givenSession();
      expect(await sessions.purge({ before: at(1_000_000_000) })).to.deep.equal({ sessions: 0, refreshTokens: 0 });
      expect((await sessions.rotate({ tokenHash: refreshToken.tokenHash, next: next(), now: at(1000) })).kind).to.equal('rotated');
      expect(await sessions.findById(session.id)).to.deep.equal(session);
    });

    it('hands out copies: changing a stored or returned session changes nothing stored', async () => {
      const { session } = await givenSession();
      const original = structuredClone(session);
      session.revokedAt = at(1);
      session.createdAt.setTime(0);
      const found = await sessions.findById(original.id);
      expect(found).to.deep.equal(original);
      found!.revokedAt = at(1);
      found!.createdAt.setTime(0);
      expect(await sessions.findById(original.id)).to.deep.equal(original);
    });

    it('keeps the device of a session and moves last use forward only past the interval (touch)', async () => {
      const session = aSession(userId, { userAgent: 'Firefox', ip: '203.0.113.7' });
      await sessions.create({ session, refreshToken: aRefreshToken(session.id) });
      expect(await sessions.findById(session.id)).to.deep.equal(session);
      await sessions.touch({ sessionId: session.id, at: at(30_000), minIntervalMs: 60_000 });
      expect((await sessions.findById(session.id))!.lastUsedAt).to.deep.equal(T0);
      await sessions.touch({ sessionId: session.id, at: at(60_000), minIntervalMs: 60_000 });
      expect((await sessions.findById(session.id))!.lastUsedAt).to.deep.equal(at(60_000));
    });

    it("lists a user's live sessions used since a time, most recently used first, without revoked or other users' ones", async () => {
      const old = await givenSession();
      const recent = await givenSession();
      const revoked = await givenSession();
      const other = (await givenUser(users, { email: 'other@example.com' })).id;
      await givenSession(other);
      await sessions.touch({ sessionId: recent.session.id, at: at(5000), minIntervalMs: 0 });
      await sessions.touch({ sessionId: old.session.id, at: at(2000), minIntervalMs: 0 });
      await sessions.revoke({ sessionId: revoked.session.id, at: at(3000) });
      const listed = await sessions.listLive({ userId, usedSince: at(1000) });
      expect(listed.map((s) => s.id)).to.deep.equal([recent.session.id, old.session.id]);
      expect(listed[0].lastUsedAt).to.deep.equal(at(5000));
      expect((await sessions.listLive({ userId, usedSince: at(3000) })).map((s) => s.id)).to.deep.equal([recent.session.id]);
    });

    it('revokes the live sessions last used before a time (revokeIdle), and only those', async () => {
      const idle = await givenSession();
      const used = await givenSession();
      await sessions.touch({ sessionId: used.session.id, at: at(10_000), minIntervalMs: 0 });
      expect(await sessions.revokeIdle({ usedBefore: at(5000), at: at(20_000) })).to.equal(1);
      expect((await sessions.findById(idle.session.id))!.revokedAt).to.deep.equal(at(20_000));
      expect((await sessions.findById(used.session.id))!.revokedAt).to.equal(null);
      expect(await sessions.revokeIdle({ usedBefore: at(5000), at: at(30_000) })).to.equal(0);
    });
  });
}
