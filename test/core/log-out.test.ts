import { createMemoryHangar, passwordSignIn, DEFAULT_PASSWORD, expectDomainError } from '../support/memory-hangar.js';

async function loggedIn() {
  const world = createMemoryHangar();
  await world.registerConfirmed('alice@example.com');
  const { session } = await passwordSignIn(world.hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD });
  const principal = await world.hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` });
  if (principal.kind !== 'session') throw new Error('expected a session principal');
  return { ...world, session, sessionId: principal.sessionId };
}

describe('LogOut', () => {
  it('ends the session: its access token is refused with UNAUTHORIZED at once', async () => {
    const { hangar, session, sessionId } = await loggedIn();
    await hangar.logOut.execute({ sessionId });
    await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` }), 'UNAUTHORIZED');
  });

  it('ends the session: its refresh token is refused with INVALID_REFRESH_TOKEN', async () => {
    const { hangar, session, sessionId } = await loggedIn();
    await hangar.logOut.execute({ sessionId });
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: session.refreshToken }), 'INVALID_REFRESH_TOKEN');
  });

  it('also ends access tokens minted by earlier refreshes of the same session', async () => {
    const { hangar, session, sessionId } = await loggedIn();
    const next = await hangar.refreshSession.execute({ refreshToken: session.refreshToken });
    await hangar.logOut.execute({ sessionId });
    await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${next.accessToken}` }), 'UNAUTHORIZED');
    await expectDomainError(hangar.refreshSession.execute({ refreshToken: next.refreshToken }), 'INVALID_REFRESH_TOKEN');
  });

  it('is idempotent', async () => {
    const { hangar, sessionId } = await loggedIn();
    await hangar.logOut.execute({ sessionId });
    await hangar.logOut.execute({ sessionId });
  });

  it('leaves the user’s other sessions working', async () => {
    const { hangar, sessionId } = await loggedIn();
    const other = (await passwordSignIn(hangar, { email: 'alice@example.com', password: DEFAULT_PASSWORD })).session;
    await hangar.logOut.execute({ sessionId });
    await hangar.authenticate.execute({ authorization: `Bearer ${other.accessToken}` });
    await hangar.refreshSession.execute({ refreshToken: other.refreshToken });
  });
});
