import { expect } from 'chai';
import { OtplibTotp } from '../../adapters/crypto/otplib-totp.js';
import { createMemoryHangar, DEFAULT_PASSWORD, expectDomainError, passwordSignIn } from '../support/memory-hangar.js';

const totp = new OtplibTotp();
const STEP_MS = 30_000;

/** An account with TOTP on: its secret, its recovery codes, and a code generator on the world's clock. */
async function enrolled() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const { secret, otpauthUri } = await world.hangar.startTotpEnrolment.execute({ userId: alice.userId });
  const codeNow = () => totp.codeAt({ secret, at: world.clock.now() });
  const { recoveryCodes } = await world.hangar.confirmTotpEnrolment.execute({ userId: alice.userId, code: await codeNow() });
  // The next code must be of a later step than the one that confirmed the enrolment.
  world.clock.advance(STEP_MS);
  const logIn = async () => {
    const result = await world.hangar.logIn.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    if (result.mfaToken === undefined) throw new Error('expected the second step');
    return result.mfaToken;
  };
  return { ...world, alice, secret, otpauthUri, recoveryCodes, codeNow, logIn };
}

describe('TOTP two-factor sign-in', () => {
  it('enrols: a base32 secret and an otpauth URI naming the account, then 10 distinct recovery codes for a right code', async () => {
    const { secret, otpauthUri, recoveryCodes, hangar, alice } = await enrolled();
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).to.match(/^otpauth:\/\/totp\/Hangar:alice%40example\.com\?/);
    expect(otpauthUri).to.contain(`secret=${secret}`);
    expect(recoveryCodes).to.have.length(10);
    expect(new Set(recoveryCodes).size).to.equal(10);
    expect(await hangar.getMfaStatus.execute({ userId: alice.userId })).to.deep.equal({ totp: 'on', recoveryCodesLeft: 10 });
  });

  it('does not ask for a code until the enrolment is confirmed, and refuses a wrong confirmation code', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    const { secret } = await world.hangar.startTotpEnrolment.execute({ userId: alice.userId });
    expect((await world.hangar.logIn.execute({ email: alice.email, password: DEFAULT_PASSWORD })).session).to.not.equal(undefined);
    const wrong = await totp.codeAt({ secret, at: new Date(world.clock.now().getTime() + 10 * STEP_MS) });
    await expectDomainError(world.hangar.confirmTotpEnrolment.execute({ userId: alice.userId, code: wrong }), 'INVALID_MFA_CODE');
    expect(await world.hangar.getMfaStatus.execute({ userId: alice.userId })).to.deep.equal({ totp: 'pending', recoveryCodesLeft: 0 });
  });

  it('login answers an mfa_token instead of a session; a valid TOTP code completes it with a working session', async () => {
    const { hangar, logIn, codeNow, alice } = await enrolled();
    const first = await hangar.logIn.execute({ email: alice.email, password: DEFAULT_PASSWORD });
    expect(first.session).to.equal(undefined);
    expect(first.mfaToken).to.match(/^[0-9A-Za-z]{40}$/);
    const { user, session } = await hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: await codeNow() });
    expect(user.id).to.equal(alice.userId);
    const principal = await hangar.authenticate.execute({ authorization: `Bearer ${session.accessToken}` });
    expect(principal.userId).to.equal(alice.userId);
  });

  it('accepts the previous step’s code (clock drift) and refuses one two steps old (expired)', async () => {
    const { hangar, logIn, secret, clock } = await enrolled();
    // One step past the enrolment's, whose code is used up already.
    clock.advance(STEP_MS);
    const previous = await totp.codeAt({ secret, at: new Date(clock.now().getTime() - STEP_MS) });
    await hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: previous });
    clock.advance(3 * STEP_MS);
    const stale = await totp.codeAt({ secret, at: new Date(clock.now().getTime() - 2 * STEP_MS) });
    await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: stale }), 'INVALID_MFA_CODE');
  });

  it('refuses a code replayed within its window, and an earlier step’s code after a later one was used', async () => {
    const { hangar, logIn, codeNow, secret, clock } = await enrolled();
    const code = await codeNow();
    await hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code });
    await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code }), 'INVALID_MFA_CODE');
    clock.advance(STEP_MS);
    await hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: await codeNow() });
    const earlier = await totp.codeAt({ secret, at: new Date(clock.now().getTime() - STEP_MS) });
    await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: earlier }), 'INVALID_MFA_CODE');
  });

  it('accepts each recovery code once (spaces and dashes ignored), and counts what is left', async () => {
    const { hangar, logIn, recoveryCodes, alice } = await enrolled();
    const [code] = recoveryCodes;
    await hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: `${code.slice(0, 5)}-${code.slice(5)} ` });
    await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code }), 'INVALID_MFA_CODE');
    await hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: recoveryCodes[1] });
    expect((await hangar.getMfaStatus.execute({ userId: alice.userId })).recoveryCodesLeft).to.equal(8);
  });

  it('an mfa_token is single use and lasts 5 minutes', async () => {
    const { hangar, logIn, codeNow, clock } = await enrolled();
    const token = await logIn();
    await hangar.completeMfaSignIn.execute({ mfaToken: token, code: await codeNow() });
    clock.advance(STEP_MS);
    await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: token, code: await codeNow() }), 'INVALID_MFA_TOKEN');
    const late = await logIn();
    clock.advance(5 * 60_000);
    await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: late, code: await codeNow() }), 'INVALID_MFA_TOKEN');
    await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: 'made-up', code: await codeNow() }), 'INVALID_MFA_TOKEN');
  });

  it('a wrong code leaves the mfa_token usable; after 5 wrong codes the account is rate-limited, even with the right one', async () => {
    const { hangar, logIn, codeNow, clock } = await enrolled();
    const token = await logIn();
    await expectDomainError(
      hangar.completeMfaSignIn.execute({ mfaToken: token, code: '000000' === (await codeNow()) ? '111111' : '000000' }),
      'INVALID_MFA_CODE',
    );
    await hangar.completeMfaSignIn.execute({ mfaToken: token, code: await codeNow() });
    // The right code gave its point back: one wrong code counted so far, four more reach the limit.
    for (let i = 0; i < 4; i++)
      await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: `wrong-recovery-code-${i}` }), 'INVALID_MFA_CODE');
    clock.advance(STEP_MS);
    const limited = await expectDomainError(hangar.completeMfaSignIn.execute({ mfaToken: await logIn(), code: await codeNow() }), 'RATE_LIMITED');
    expect((limited.details as { retry_after_seconds: number }).retry_after_seconds).to.be.greaterThan(0);
  });

  it('is turned off only with a current code; then login opens a session again', async () => {
    const { hangar, alice, codeNow, clock } = await enrolled();
    await expectDomainError(hangar.disableTotp.execute({ userId: alice.userId, code: 'not-a-code' }), 'INVALID_MFA_CODE');
    expect((await hangar.getMfaStatus.execute({ userId: alice.userId })).totp).to.equal('on');
    await hangar.disableTotp.execute({ userId: alice.userId, code: await codeNow() });
    expect(await hangar.getMfaStatus.execute({ userId: alice.userId })).to.deep.equal({ totp: 'off', recoveryCodesLeft: 0 });
    await passwordSignIn(hangar, { email: alice.email, password: DEFAULT_PASSWORD });
    clock.advance(STEP_MS);
    await expectDomainError(hangar.disableTotp.execute({ userId: alice.userId, code: await codeNow() }), 'MFA_NOT_ENABLED');
  });

  it('refuses a second enrolment while TOTP is on', async () => {
    const { hangar, alice } = await enrolled();
    await expectDomainError(hangar.startTotpEnrolment.execute({ userId: alice.userId }), 'MFA_ALREADY_ENABLED');
  });

  it('keeps the secret sealed in the repository, never in clear', async () => {
    const { repos, alice, secret } = await enrolled();
    const factor = await repos.mfa.findTotp(alice.userId);
    expect(factor?.sealedSecret).to.be.a('string').and.not.contain(secret);
  });

  it('is turned off by the operator (users reset-mfa) for an owner who lost the authenticator: the password alone signs in again', async () => {
    const { hangar, logIn } = await enrolled();
    await logIn();
    expect(await hangar.resetTwoFactor.execute({ email: 'Alice@Example.com' })).to.deep.equal({ email: 'alice@example.com', removed: true });
    const again = await hangar.logIn.execute({ email: 'alice@example.com', password: DEFAULT_PASSWORD });
    expect(again.mfaToken).to.equal(undefined);
    expect(again.session).to.not.equal(undefined);
    expect(await hangar.resetTwoFactor.execute({ email: 'alice@example.com' })).to.deep.equal({ email: 'alice@example.com', removed: false });
    await expectDomainError(hangar.resetTwoFactor.execute({ email: 'nobody@example.com' }), 'USER_NOT_FOUND');
  });
});
