import { expect } from 'chai';
import { REFRESH_TOKEN_REUSE_INTERVAL_MS } from '../../core/index.js';
import { createMemoryHangar, passwordSignIn, DEFAULT_PASSWORD, expectDomainError, settle, START } from '../support/memory-hangar.js';

async function loggedIn() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const { session } = await passwordSignIn(world.hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD });
  const principal = await world.hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` });
  if (principal.kind !== 'session') throw new Error('expected a session principal');
  return { ...world, alice, session, sessionId: principal.sessionId };
}

describe('RefreshSession', () => {
  it('rotates: returns a new refresh token and an access token for the same session, timed from now', async () => {
    const { hangar, clock, session, sessionId, alice } = await loggedIn();
    clock.advance(30 * 60_000);

    const next = await hangar.refreshSession.execute({ refreshToken: session.refreshToken });

    expect(next.refreshToken).to.match(/^[0-9A-Za-z]{40}$/);
    expect(next.refreshToken).to.not.equal(session.refreshToken);
    expect(next.accessToken).to.not.equal(session.accessToken);
    expect(next.tokenType).to.equal('bearer');
    expect(next.expiresIn).to.equal(3600);
    expect(next.expiresAt).to.equal((START.getTime() + 30 * 60_000) / 1000 + 3600);
    const principal = await hangar.authenticate.execute({ authorization: `Bearer ${next.accessToken}` });
    expect(principal).to.deep.equal({ kind: 'session', userId: alice.userId, sessionId, secondFactor: false });
  });

  it('refuses the old refresh token after rotation, past the reuse interval, with INVALID_REFRESH_TOKEN', async () => {
    const { hangar, clock, session } = await loggedIn();
    await hangar.refreshSession.execute({ refreshToken: session.refreshToken });
    clock.advance(REFRESH_TOKEN_REUSE_INTERVAL_MS);
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: session.refreshToken }), 'INVALID_REFRESH_TOKEN');
  });

  it('chains: each new refresh token can be used once in turn', async () => {
    const { hangar, session } = await loggedIn();
    let token = session.refreshToken;
    for (let i = 0; i < 3; i++) token = (await hangar.refreshSession.execute({ refreshToken: token })).refreshToken;
    await hangar.authenticate.execute({ authorization: `Bearer ${(await hangar.refreshSession.execute({ refreshToken: token })).accessToken}` });
  });

  it('treats reuse of a rotated token as theft: the whole session is revoked, newest refresh and access tokens included', async () => {
    const { hangar, clock, session } = await loggedIn();
    const second = await hangar.refreshSession.execute({ refreshToken: session.refreshToken });
    clock.advance(REFRESH_TOKEN_REUSE_INTERVAL_MS);

    await expectDomainError(hangar.refreshSession.execute({ refreshToken: session.refreshToken }), 'INVALID_REFRESH_TOKEN');

    await expectDomainError(hangar.refreshSession.execute({ refreshToken: second.refreshToken }), 'INVALID_REFRESH_TOKEN');
    await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${second.accessToken}` }), 'UNAUTHORIZED');
    await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` }), 'UNAUTHORIZED');
  });

  it('revokes only the session whose token was reused, not the user’s other sessions', async () => {
    const { hangar, clock, session } = await loggedIn();
    const other = (await passwordSignIn(hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD })).session;
    await hangar.refreshSession.execute({ refreshToken: session.refreshToken });
    clock.advance(REFRESH_TOKEN_REUSE_INTERVAL_MS);
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: session.refreshToken }), 'INVALID_REFRESH_TOKEN');

    await hangar.authenticate.execute({ authorization: `Bearer ${other.accessToken}` });
    await hangar.refreshSession.execute({ refreshToken: other.refreshToken });
  });

  it('lets two simultaneous refreshes with one token both succeed with the same new refresh token (two tabs), and keeps the session alive', async () => {
    const { hangar, session } = await loggedIn();
    const { values, codes } = await settle([1, 2].map(() => hangar.refreshSession.execute({ refreshToken: session.refreshToken })));
    expect(codes).to.deep.equal([]);
    expect(values).to.have.length(2);
    expect(values[0].refreshToken).to.equal(values[1].refreshToken);
    for (const value of values) await hangar.authenticate.execute({ authorization: `Bearer ${value.accessToken}` });
    await hangar.refreshSession.execute({ refreshToken: values[0].refreshToken });
  });

  it('answers a rotated token presented again within the reuse interval with the same new refresh token; after it, ends the session and logs why', async () => {
    const { hangar, clock, session, sessionId, alice } = await loggedIn();
    const next = await hangar.refreshSession.execute({ refreshToken: session.refreshToken });
    clock.advance(REFRESH_TOKEN_REUSE_INTERVAL_MS - 1);
    const again = await hangar.refreshSession.execute({ refreshToken: session.refreshToken });
    expect(again.refreshToken).to.equal(next.refreshToken);
    await hangar.authenticate.execute({ authorization: `Bearer ${again.accessToken}` });
    await hangar.authenticate.execute({ authorization: `Bearer ${next.accessToken}` });
    clock.advance(1);
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: session.refreshToken }), 'INVALID_REFRESH_TOKEN');
    await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${next.accessToken}` }), 'UNAUTHORIZED');
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: next.refreshToken }), 'INVALID_REFRESH_TOKEN');
    await hangar.activity.flush();
    const logged = (await hangar.listLogs.execute({ userId: alice.userId, page: 1, limit: 10 })).items;
    expect(logged.map((entry) => [entry.method, entry.path, entry.statusCode, entry.metadata.reason, entry.metadata.session_id])).to.deep.include([
      'POST',
      '/auth/refresh',
      401,
      'refresh_token_reuse',
      sessionId,
    ]);
  });

  it('refuses an unknown refresh token with INVALID_REFRESH_TOKEN', async () => {
    const { hangar } = await loggedIn();
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: 'x'.repeat(40) }), 'INVALID_REFRESH_TOKEN');
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: '' }), 'INVALID_REFRESH_TOKEN');
  });

  it('refuses an access token presented as a refresh token', async () => {
    const { hangar, session } = await loggedIn();
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: session.accessToken }), 'INVALID_REFRESH_TOKEN');
  });

  it('works after the access token expired (that is what it is for)', async () => {
    const { hangar, clock, session } = await loggedIn();
    clock.advance(3 * 3600_000);
    await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` }), 'UNAUTHORIZED');
    const next = await hangar.refreshSession.execute({ refreshToken: session.refreshToken });
    await hangar.authenticate.execute({ authorization: `Bearer ${next.accessToken}` });
  });
});
