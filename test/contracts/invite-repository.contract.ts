import { expect } from 'chai';
import type { Invite } from '../../core/invites/invite.js';
import type { InviteRepository } from '../../core/invites/invite-repository.js';
import { aHash, at } from './persistence-fixtures.js';
import { randomUUID } from 'node:crypto';

/** What a {@link describeInviteRepositoryContract} factory returns: a repository over one empty store. */
export interface InviteRepositorySubject {
  subject: InviteRepository;
  close?: () => Promise<void>;
}

const HOUR = 3600_000;

function anInvite(overrides: Partial<Invite> = {}): Invite {
  return {
    id: randomUUID(),
    tokenHash: aHash(),
    planName: null,
    createdAt: at(0),
    expiresAt: at(HOUR),
    usedAt: null,
    usedBy: null,
    revokedAt: null,
    ...overrides,
  };
}

/** The behaviour every {@link InviteRepository} adapter must have; `makeSubject` is called once per test. */
export function describeInviteRepositoryContract(name: string, makeSubject: () => Promise<InviteRepositorySubject>): void {
  describe(`InviteRepository contract: ${name}`, () => {
    let invites: InviteRepository;
    let close: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ subject: invites, close } = await makeSubject());
    });
    afterEach(async () => {
      await close?.();
    });

    it('claims an invite once, for the first account only', async () => {
      const invite = anInvite({ planName: 'pro' });
      await invites.create(invite);
      const claimed = await invites.claim({ tokenHash: invite.tokenHash, userId: 'user-1', now: at(1000) });
      expect(claimed).to.deep.include({ id: invite.id, planName: 'pro', usedBy: 'user-1' });
      expect(claimed!.usedAt!.getTime()).to.equal(at(1000).getTime());
      expect(await invites.claim({ tokenHash: invite.tokenHash, userId: 'user-2', now: at(2000) })).to.equal(undefined);
    });

    it('lets only one of many simultaneous claims through', async () => {
      const invite = anInvite();
      await invites.create(invite);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => invites.claim({ tokenHash: invite.tokenHash, userId: `user-${i}`, now: at(1000) })),
      );
      expect(results.filter((r) => r !== undefined)).to.have.length(1);
    });

    it('refuses an expired, a revoked and an unknown invite', async () => {
      const expiring = anInvite({ expiresAt: at(HOUR) });
      const revoked = anInvite();
      await invites.create(expiring);
      await invites.create(revoked);
      expect(await invites.revoke({ id: revoked.id, now: at(10) })).to.equal(true);
      expect(await invites.claim({ tokenHash: expiring.tokenHash, userId: 'u', now: at(HOUR) })).to.equal(undefined);
      expect(await invites.claim({ tokenHash: revoked.tokenHash, userId: 'u', now: at(20) })).to.equal(undefined);
      expect(await invites.claim({ tokenHash: aHash(), userId: 'u', now: at(20) })).to.equal(undefined);
    });

    it('keeps an invite without expiry usable', async () => {
      const forever = anInvite({ expiresAt: null });
      await invites.create(forever);
      expect(await invites.claim({ tokenHash: forever.tokenHash, userId: 'u', now: at(1000 * 24 * HOUR) })).to.not.equal(undefined);
    });

    it('makes a released claim usable again, and only for the account that claimed it', async () => {
      const invite = anInvite();
      await invites.create(invite);
      await invites.claim({ tokenHash: invite.tokenHash, userId: 'user-1', now: at(1000) });
      await invites.release({ id: invite.id, userId: 'someone-else' });
      expect(await invites.claim({ tokenHash: invite.tokenHash, userId: 'user-2', now: at(2000) })).to.equal(undefined);
      await invites.release({ id: invite.id, userId: 'user-1' });
      expect(await invites.claim({ tokenHash: invite.tokenHash, userId: 'user-2', now: at(3000) })).to.deep.include({ usedBy: 'user-2' });
    });

    it('revokes only an unused, unrevoked invite', async () => {
      const used = anInvite();
      await invites.create(used);
      await invites.claim({ tokenHash: used.tokenHash, userId: 'u', now: at(1) });
      expect(await invites.revoke({ id: used.id, now: at(2) })).to.equal(false);
      const fresh = anInvite();
      await invites.create(fresh);
      expect(await invites.revoke({ id: fresh.id, now: at(2) })).to.equal(true);
      expect(await invites.revoke({ id: fresh.id, now: at(3) })).to.equal(false);
      expect(await invites.revoke({ id: randomUUID(), now: at(3) })).to.equal(false);
    });

    it('lists newest first, up to the limit', async () => {
      const old = anInvite({ createdAt: at(0) });
      const recent = anInvite({ createdAt: at(5000) });
      await invites.create(old);
      await invites.create(recent);
      expect((await invites.list({ limit: 10 })).map((i) => i.id)).to.deep.equal([recent.id, old.id]);
      expect((await invites.list({ limit: 1 })).map((i) => i.id)).to.deep.equal([recent.id]);
      expect(await invites.list({ limit: 10 })).to.deep.include(old);
    });
  });
}
