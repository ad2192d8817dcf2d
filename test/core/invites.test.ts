import { expect } from 'chai';
import { DAY_MS } from '../../core/shared/time.js';
import { createMemoryHangar, expectDomainError, PRO_PLAN, settle, TRIAL_PLAN } from '../support/memory-hangar.js';

/** The invite token of an invite link (`…/#/register?invite=…`). */
function tokenOf(link: string): string {
  const match = /\/#\/register\?invite=([0-9A-Za-z]+)$/.exec(link);
  expect(match, link).to.not.equal(null);
  return match![1];
}

describe('Invites and REGISTRATION', () => {
  it('creates a link to the dashboard’s registration and stores only the token’s digest', async () => {
    const { hangar, repos } = createMemoryHangar({ registration: 'invite' });
    const { invite, link, token } = await hangar.createInvite.execute({ planName: 'pro' });
    expect(link).to.equal(`http://api.test/#/register?invite=${token}`);
    const [stored] = await repos.invites.list({ limit: 10 });
    expect(stored.id).to.equal(invite.id);
    expect(stored.tokenHash).to.not.include(token);
    expect(JSON.stringify(stored)).to.not.include(token);
  });

  it('with REGISTRATION=invite, registers with a valid invite and gives the account the invite’s plan', async () => {
    const { hangar, repos } = createMemoryHangar({ registration: 'invite' });
    const { link } = await hangar.createInvite.execute({ planName: PRO_PLAN.name });
    const result = await hangar.registerAccount.execute({ email: 'new@example.com', password: 'secret-pw', invite: tokenOf(link) });
    const user = await repos.users.findById(result.user.id);
    expect(user?.planName).to.equal(PRO_PLAN.name);
    expect(user?.trialEndsAt).to.equal(null);
    const [invite] = await hangar.listInvites.execute();
    expect(invite).to.deep.include({ state: 'used', usedBy: result.user.id });
  });

  it('with an invite without plan, the account gets the default plan', async () => {
    const { hangar, repos } = createMemoryHangar({ registration: 'invite' });
    const { token } = await hangar.createInvite.execute();
    const result = await hangar.registerAccount.execute({ email: 'new@example.com', password: 'secret-pw', invite: token });
    expect((await repos.users.findById(result.user.id))?.planName).to.equal(TRIAL_PLAN.name);
  });

  it('refuses registration without an invite, with an unknown one, and a second use of one', async () => {
    const { hangar, repos } = createMemoryHangar({ registration: 'invite' });
    await expectDomainError(hangar.registerAccount.execute({ email: 'a@example.com', password: 'secret-pw' }), 'INVITE_REQUIRED');
    await expectDomainError(hangar.registerAccount.execute({ email: 'a@example.com', password: 'secret-pw', invite: 'x'.repeat(40) }), 'INVITE_INVALID');
    const { token } = await hangar.createInvite.execute();
    await hangar.registerAccount.execute({ email: 'a@example.com', password: 'secret-pw', invite: token });
    await expectDomainError(hangar.registerAccount.execute({ email: 'b@example.com', password: 'secret-pw', invite: token }), 'INVITE_INVALID');
    expect(await repos.users.findByEmail('b@example.com')).to.equal(undefined);
  });

  it('lets one of two simultaneous registrations with one invite through', async () => {
    const { hangar } = createMemoryHangar({ registration: 'invite' });
    const { token } = await hangar.createInvite.execute();
    const { values, codes } = await settle([
      hangar.registerAccount.execute({ email: 'a@example.com', password: 'secret-pw', invite: token }),
      hangar.registerAccount.execute({ email: 'b@example.com', password: 'secret-pw', invite: token }),
    ]);
    expect(values).to.have.length(1);
    expect(codes).to.deep.equal(['INVITE_INVALID']);
  });

  it('refuses an expired invite (7 days by default) and a revoked one', async () => {
    const { hangar, clock } = createMemoryHangar({ registration: 'invite' });
    const { token } = await hangar.createInvite.execute();
    const short = await hangar.createInvite.execute({ ttlMs: 60_000 });
    const revoked = await hangar.createInvite.execute();
    await hangar.revokeInvite.execute({ id: revoked.invite.id });
    await expectDomainError(hangar.registerAccount.execute({ email: 'r@example.com', password: 'secret-pw', invite: revoked.token }), 'INVITE_INVALID');
    clock.advance(60_000);
    await expectDomainError(hangar.registerAccount.execute({ email: 's@example.com', password: 'secret-pw', invite: short.token }), 'INVITE_INVALID');
    clock.advance(7 * DAY_MS - 60_001);
    await hangar.registerAccount.execute({ email: 'a@example.com', password: 'secret-pw', invite: token });
    const states = (await hangar.listInvites.execute()).map((i) => i.state).sort();
    expect(states).to.deep.equal(['expired', 'revoked', 'used']);
  });

  it('gives the invite back when the address already has an account (the answer is the same)', async () => {
    const { hangar } = createMemoryHangar({ registration: 'invite' });
    const first = await hangar.createInvite.execute();
    const second = await hangar.createInvite.execute();
    const created = await hangar.registerAccount.execute({ email: 'taken@example.com', password: 'secret-pw', invite: first.token });
    const again = await hangar.registerAccount.execute({ email: 'taken@example.com', password: 'other-pw', invite: second.token });
    expect(again.message).to.equal(created.message);
    expect((await hangar.listInvites.execute()).find((i) => i.id === second.invite.id)?.state).to.equal('usable');
    await hangar.registerAccount.execute({ email: 'next@example.com', password: 'secret-pw', invite: second.token });
  });

  it('with REGISTRATION=closed, registers nobody, invite or not', async () => {
    const { hangar, repos } = createMemoryHangar({ registration: 'closed' });
    const { token } = await hangar.createInvite.execute();
    await expectDomainError(hangar.registerAccount.execute({ email: 'a@example.com', password: 'secret-pw' }), 'REGISTRATION_CLOSED');
    await expectDomainError(hangar.registerAccount.execute({ email: 'a@example.com', password: 'secret-pw', invite: token }), 'REGISTRATION_CLOSED');
    expect(await repos.users.findByEmail('a@example.com')).to.equal(undefined);
  });

  it('with REGISTRATION=open (the default), an invite is not needed', async () => {
    const { hangar } = createMemoryHangar();
    await hangar.registerAccount.execute({ email: 'a@example.com', password: 'secret-pw' });
  });

  it('refuses an invite for an unknown plan or a lifetime that is not positive', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(hangar.createInvite.execute({ planName: 'platinum' }), 'PLAN_NOT_FOUND');
    await expectDomainError(hangar.createInvite.execute({ ttlMs: 0 }), 'INVALID_EXPIRY');
    await expectDomainError(hangar.revokeInvite.execute({ id: '0190f5d4-0000-7000-8000-000000000000' }), 'INVITE_NOT_FOUND');
  });
});
