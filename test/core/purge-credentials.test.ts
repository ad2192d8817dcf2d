import { expect } from 'chai';
import { CREDENTIAL_RETENTION_DAYS, REFRESH_TOKEN_REUSE_INTERVAL_MS } from '../../core/index.js';
import { createMemoryHangar, passwordSignIn, DEFAULT_PASSWORD, expectDomainError } from '../support/memory-hangar.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RETENTION = CREDENTIAL_RETENTION_DAYS * DAY;

describe('PurgeCredentials', () => {
  it('removes an expired confirmation link, keeps one still valid, and either link works as before', async () => {
    const world = createMemoryHangar();
    await world.hangar.registerAccount.execute({ email: 'old@example.com', password: DEFAULT_PASSWORD });
    const expired = world.lastToken('old@example.com', 'confirm');
    world.clock.advance(24 * HOUR + 1000);
    await world.hangar.registerAccount.execute({ email: 'new@example.com', password: DEFAULT_PASSWORD });

    expect(await world.hangar.purgeCredentials.execute()).to.deep.equal({
      oneTimeTokens: 1,
      sessions: 0,
      refreshTokens: 0,
      idleSessions: 0,
      mfaChallenges: 0,
      passkeyChallenges: 0,
      oidcFlows: 0,
    });

    await expectDomainError(world.hangar.confirmEmail.execute({ token: expired }), 'INVALID_TOKEN');
    await world.hangar.confirmEmail.execute({ token: world.lastToken('new@example.com', 'confirm') });
  });

  it(`forgets sessions revoked and refresh tokens rotated more than ${CREDENTIAL_RETENTION_DAYS} days ago, and nothing a user can still use`, async () => {
    // Sessions idle past SESSION_IDLE_DAYS end by themselves (session-idle.test.ts): a longer limit here keeps them live.
    const world = createMemoryHangar({ sessionIdleDays: 365 });
    const { hangar, clock } = world;
    await world.registerConfirmed('alice@example.com');
    const logIn = async () => (await passwordSignIn(hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD })).session;
    // A dashboard session that refreshes now and then, a session logged out, and a session never refreshed.
    const kept = await logIn();
    const loggedOut = await logIn();
    const idle = await logIn();
    const rotated = await hangar.refreshSession.execute({ refreshToken: kept.refreshToken });
    const principal = await hangar.authenticate.execute({ authorization: `Bearer ${loggedOut.accessToken}` });
    if (principal.kind !== 'session') throw new Error('expected a session principal');
    await hangar.logOut.execute({ sessionId: principal.sessionId });

    clock.advance(RETENTION - 1000);
    expect(await hangar.purgeCredentials.execute(), 'nothing is old enough yet').to.deep.equal({
      oneTimeTokens: 0,
      sessions: 0,
      refreshTokens: 0,
      idleSessions: 0,
      mfaChallenges: 0,
      passkeyChallenges: 0,
      oidcFlows: 0,
    });
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: loggedOut.refreshToken }), 'INVALID_REFRESH_TOKEN');

    clock.advance(2000);
    // The logged-out session with its token, and the first token of the kept session (rotated away).
    expect(await hangar.purgeCredentials.execute()).to.deep.equal({
      oneTimeTokens: 0,
      sessions: 1,
      refreshTokens: 2,
      idleSessions: 0,
      mfaChallenges: 0,
      passkeyChallenges: 0,
      oidcFlows: 0,
    });

    // The current tokens of live sessions work, however old.
    const again = await hangar.refreshSession.execute({ refreshToken: rotated.refreshToken });
    await hangar.authenticate.execute({ authorization: `Bearer ${again.accessToken}` });
    const idleAgain = await hangar.refreshSession.execute({ refreshToken: idle.refreshToken });
    await hangar.authenticate.execute({ authorization: `Bearer ${idleAgain.accessToken}` });
    // A token rotated that long ago is refused as unknown: no longer reported as reuse, so the session it
    // belonged to stays alive (reuse of a recent one still ends the session, as RefreshSession's tests show).
    clock.advance(REFRESH_TOKEN_REUSE_INTERVAL_MS);
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: kept.refreshToken }), 'INVALID_REFRESH_TOKEN');
    await hangar.authenticate.execute({ authorization: `Bearer ${again.accessToken}` });
    // The purged session's refresh token stays refused.
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: loggedOut.refreshToken }), 'INVALID_REFRESH_TOKEN');
  });
  // An access token naming a session that no longer exists is refused: authenticate.test.ts ("refuses a valid JWT whose session does not exist").
});
