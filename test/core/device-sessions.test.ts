import { expect } from 'chai';
import { SESSION_IDLE_DAYS } from '../../core/index.js';
import { createMemoryHangar, DEFAULT_PASSWORD, expectDomainError, passwordSignIn, START } from '../support/memory-hangar.js';

const DAY = 86_400_000;

async function twoDevices() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  // The confirmation link's session is not one of the two devices.
  await world.hangar.logOut.execute({
    sessionId: ((await world.hangar.authenticate.execute({ authorization: `Bearer ${alice.session.accessToken}` })) as { sessionId: string }).sessionId,
  });
  const sign = async (userAgent: string, ip: string) => {
    const { session } = await passwordSignIn(world.hangar, { email: alice.email, password: DEFAULT_PASSWORD, device: { userAgent, ip } });
    const principal = await world.hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` });
    if (principal.kind !== 'session') throw new Error('expected a session');
    return { ...session, id: principal.sessionId, bearer: { authorization: `Bearer ${session.accessToken}` } };
  };
  const laptop = await sign('Firefox on Linux', '203.0.113.7');
  world.clock.advance(1000);
  const phone = await sign('Safari on iOS', '198.51.100.9');
  return { ...world, alice, laptop, phone };
}

describe('Device sessions', () => {
  it('lists the live sessions with device, times and the current one marked, most recently used first', async () => {
    const { hangar, alice, laptop, phone } = await twoDevices();
    const sessions = await hangar.listSessions.execute({ userId: alice.userId, currentSessionId: laptop.id });
    expect(sessions.map((s) => [s.id, s.userAgent, s.ip, s.current])).to.deep.equal([
      [phone.id, 'Safari on iOS', '198.51.100.9', false],
      [laptop.id, 'Firefox on Linux', '203.0.113.7', true],
    ]);
    expect(sessions[1].createdAt).to.deep.equal(START);
  });

  it('ends one session: its access and refresh tokens stop, the other device stays signed in', async () => {
    const { hangar, alice, laptop, phone } = await twoDevices();
    await hangar.endSession.execute({ userId: alice.userId, sessionId: phone.id });
    await expectDomainError(hangar.authenticate.execute(phone.bearer), 'UNAUTHORIZED');
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: phone.refreshToken }), 'INVALID_REFRESH_TOKEN');
    await hangar.authenticate.execute(laptop.bearer);
    expect((await hangar.listSessions.execute({ userId: alice.userId })).map((s) => s.id)).to.deep.equal([laptop.id]);
  });

  it('refuses to end another account’s session, or one already ended, with SESSION_NOT_FOUND', async () => {
    const { hangar, laptop, registerConfirmed, alice } = await twoDevices();
    const bob = await registerConfirmed('bob@example.com');
    await expectDomainError(hangar.endSession.execute({ userId: bob.userId, sessionId: laptop.id }), 'SESSION_NOT_FOUND');
    await hangar.authenticate.execute(laptop.bearer);
    await hangar.endSession.execute({ userId: alice.userId, sessionId: laptop.id });
    await expectDomainError(hangar.endSession.execute({ userId: alice.userId, sessionId: laptop.id }), 'SESSION_NOT_FOUND');
  });

  it('records last use on authenticated requests at most once a minute, and on refresh', async () => {
    const { hangar, alice, laptop, clock, repos } = await twoDevices();
    const lastUsed = async () => (await repos.sessions.findById(laptop.id))!.lastUsedAt.getTime();
    const created = await lastUsed();
    clock.advance(30_000);
    await hangar.authenticate.execute(laptop.bearer);
    expect(await lastUsed(), 'within a minute: not written').to.equal(created);
    clock.advance(31_000);
    await hangar.authenticate.execute(laptop.bearer);
    expect(await lastUsed()).to.equal(clock.now().getTime());
    clock.advance(10_000);
    await hangar.refreshSession.execute({ refreshToken: laptop.refreshToken });
    expect(await lastUsed(), 'a refresh within the minute is not written either').to.equal(clock.now().getTime() - 10_000);
    const listed = await hangar.listSessions.execute({ userId: alice.userId });
    expect(listed.find((s) => s.id === laptop.id)!.lastUsedAt.getTime()).to.equal(clock.now().getTime() - 10_000);
  });

  it(`ends a session idle for more than SESSION_IDLE_DAYS (${SESSION_IDLE_DAYS}): refresh and access refused, not listed, revoked by the purge`, async () => {
    const { hangar, alice, laptop, phone, clock, repos } = await twoDevices();
    clock.advance(SESSION_IDLE_DAYS * DAY - 2000);
    const renewed = await hangar.refreshSession.execute({ refreshToken: laptop.refreshToken });
    clock.advance(5000);
    // The phone was last used 30 days and 3 s ago; the laptop refreshed 5 s ago.
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: phone.refreshToken }), 'INVALID_REFRESH_TOKEN');
    await hangar.authenticate.execute({ authorization: `Bearer ${renewed.accessToken}` });
    expect((await hangar.listSessions.execute({ userId: alice.userId })).map((s) => s.id)).to.deep.equal([laptop.id]);
    expect((await repos.sessions.findById(phone.id))!.revokedAt, 'the idle refresh ended the session').to.not.equal(null);
  });

  it('with SESSION_IDLE_DAYS 1: refresh works within a day of the last use, is refused after, and the purge revokes every idle session', async () => {
    const world = createMemoryHangar({ sessionIdleDays: 1 });
    const alice = await world.registerConfirmed('alice@example.com');
    const first = await passwordSignIn(world.hangar, { email: alice.email, password: DEFAULT_PASSWORD });
    const second = await passwordSignIn(world.hangar, { email: alice.email, password: DEFAULT_PASSWORD });
    world.clock.advance(DAY - 1000);
    const renewed = await world.hangar.refreshSession.execute({ refreshToken: first.session.refreshToken });
    world.clock.advance(DAY + 1000);
    // Every session was last used more than a day ago now (the confirmation's, the second, and the first's refresh).
    expect((await world.hangar.purgeCredentials.execute()).idleSessions).to.equal(3);
    await expectDomainError(world.hangar.refreshSession.execute({ refreshToken: renewed.refreshToken }), 'INVALID_REFRESH_TOKEN');
    await expectDomainError(world.hangar.refreshSession.execute({ refreshToken: second.session.refreshToken }), 'INVALID_REFRESH_TOKEN');
    expect(await world.hangar.listSessions.execute({ userId: alice.userId })).to.deep.equal([]);
  });
});
