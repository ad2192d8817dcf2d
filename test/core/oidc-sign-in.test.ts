import { expect } from 'chai';
import { OpenIdClientProvider } from '../../adapters/sso/openid-client-provider.js';
import type { OidcFlowRepository } from '../../core/sso/oidc-flow-repository.js';
import { createMemoryHangar, expectDomainError, PRO_PLAN, TRIAL_PLAN } from '../support/memory-hangar.js';
import type { HangarOptions, HangarPorts } from '../../core/index.js';
import {
  browseUntil,
  startTestOidcProvider,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  type TestOidcAccount,
  type TestOidcProvider,
} from '../support/oidc-test-provider.js';

const CALLBACK = 'http://api.test/auth/oidc/callback';

describe('OIDC sign-in (against a real OpenID provider)', function () {
  this.timeout(20_000);
  let idp: TestOidcProvider;

  before(async () => {
    idp = await startTestOidcProvider();
    idp.useRedirectUri(CALLBACK);
  });
  after(async () => {
    await idp.close();
  });

  function world(options: Partial<HangarOptions> = {}, ports: (defaults: HangarPorts) => Partial<HangarPorts> = () => ({})) {
    const oidc = new OpenIdClientProvider({
      issuer: idp.issuer,
      clientId: TEST_CLIENT_ID,
      clientSecret: TEST_CLIENT_SECRET,
      redirectUri: CALLBACK,
      displayName: 'Test IdP',
      allowHttp: true,
    });
    return createMemoryHangar(options, (defaults) => ({ oidc, ...ports(defaults) }));
  }

  /** Signs in at the provider as `account` and returns where the provider sends the browser back. */
  async function toCallback(w: ReturnType<typeof world>, account: TestOidcAccount, invite?: string): Promise<URL> {
    idp.signInAs = account;
    const { authorizationUrl } = await w.hangar.beginOidcSignIn.execute({ invite });
    return browseUntil(authorizationUrl, (url) => url.href.startsWith(CALLBACK));
  }

  function complete(w: ReturnType<typeof world>, callback: URL) {
    return w.hangar.completeOidcSignIn.execute({ state: callback.searchParams.get('state') ?? '', callbackUrl: callback.href });
  }

  async function signIn(w: ReturnType<typeof world>, account: TestOidcAccount, invite?: string) {
    const { code } = await complete(w, await toCallback(w, account, invite));
    return w.hangar.exchangeSignInCode.execute({ code });
  }

  const alice: TestOidcAccount = { sub: 'alice-sub', email: 'Alice@Example.com', email_verified: true };

  it('lets one client address start 30 sign-ins a minute (each stores a flow), and refuses the 31st with RATE_LIMITED', async () => {
    const w = world();
    for (let i = 0; i < 30; i++) await w.hangar.beginOidcSignIn.execute({ client: '203.0.113.7' });
    await expectDomainError(w.hangar.beginOidcSignIn.execute({ client: '203.0.113.7' }), 'RATE_LIMITED');
    expect((await w.hangar.beginOidcSignIn.execute({ client: '203.0.113.8' })).authorizationUrl).to.be.a('string');
  });

  it('sends the browser to the provider with PKCE (S256), state and nonce', async () => {
    const w = world();
    const { authorizationUrl } = await w.hangar.beginOidcSignIn.execute();
    const url = new URL(authorizationUrl);
    expect(url.origin).to.equal(idp.issuer);
    expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
    for (const name of ['code_challenge', 'state', 'nonce']) expect(url.searchParams.get(name)).to.be.a('string').with.length.above(20);
    expect(url.searchParams.get('redirect_uri')).to.equal(CALLBACK);
  });

  it('creates a confirmed account on the first sign-in and finds it on the second', async () => {
    const w = world();
    const first = await signIn(w, alice);
    expect(first.user.email).to.equal('alice@example.com');
    expect(first.user.emailConfirmedAt).to.not.equal(null);
    expect(first.user.planName).to.equal(TRIAL_PLAN.name);
    const principal = await w.hangar.authenticate.execute({ authorization: `Bearer ${first.session.accessToken}` });
    expect(principal.userId).to.equal(first.user.id);

    const second = await signIn(w, { ...alice, email: 'alice-renamed@example.com' });
    expect(second.user.id).to.equal(first.user.id);
    expect((await w.hangar.listAccounts.execute({ page: 1, limit: 10 })).total).to.equal(1);
  });

  it('links the first sign-in to the confirmed account with the same verified address', async () => {
    const w = world();
    const existing = await w.registerConfirmed('bob@example.com');
    const { user } = await signIn(w, { sub: 'bob-sub', email: 'bob@example.com', email_verified: true });
    expect(user.id).to.equal(existing.userId);
    // The password still works as before.
    await w.hangar.logIn.execute({ email: 'bob@example.com', password: existing.password });
  });

  it('refuses to link an account whose address was never confirmed', async () => {
    const w = world();
    await w.hangar.registerAccount.execute({ email: 'carol@example.com', password: 'someone-elses' });
    const callback = await toCallback(w, { sub: 'carol-sub', email: 'carol@example.com', email_verified: true });
    await expectDomainError(complete(w, callback), 'EMAIL_NOT_VERIFIED');
    expect(await w.repos.oidcIdentities.find({ issuer: idp.issuer, subject: 'carol-sub' })).to.equal(undefined);
  });

  it('refuses an address the provider did not verify, or no address, and creates nothing', async () => {
    const w = world();
    await expectDomainError(complete(w, await toCallback(w, { sub: 'dave-sub', email: 'dave@example.com', email_verified: false })), 'OIDC_EMAIL_UNVERIFIED');
    await expectDomainError(complete(w, await toCallback(w, { sub: 'erin-sub' })), 'OIDC_EMAIL_UNVERIFIED');
    expect((await w.hangar.listAccounts.execute({ page: 1, limit: 10 })).total).to.equal(0);
  });

  it('refuses a replayed callback, an unknown state and a state changed on the way', async () => {
    const w = world();
    const callback = await toCallback(w, alice);
    await complete(w, callback);
    await expectDomainError(complete(w, callback), 'OIDC_STATE_INVALID');
    await expectDomainError(w.hangar.completeOidcSignIn.execute({ state: 'made-up', callbackUrl: `${CALLBACK}?code=x&state=made-up` }), 'OIDC_STATE_INVALID');

    // A valid state of another sign-in with this sign-in's code: the provider's state check refuses it.
    const mine = await toCallback(w, alice);
    const { authorizationUrl } = await w.hangar.beginOidcSignIn.execute();
    const otherState = new URL(authorizationUrl).searchParams.get('state')!;
    const swapped = new URL(mine);
    swapped.searchParams.set('state', otherState);
    await expectDomainError(w.hangar.completeOidcSignIn.execute({ state: otherState, callbackUrl: swapped.href }), 'OIDC_FAILED');
  });

  it('refuses an ID token whose nonce is not the one of the flow', async () => {
    const w = world({}, (defaults) => ({
      oidcFlows: {
        ...bind(defaults.oidcFlows),
        consumeFlow: async (options) => {
          const flow = await defaults.oidcFlows.consumeFlow(options);
          return flow && { ...flow, nonce: 'another-nonce' };
        },
      },
    }));
    await expectDomainError(complete(w, await toCallback(w, alice)), 'OIDC_FAILED');
    expect((await w.hangar.listAccounts.execute({ page: 1, limit: 10 })).total).to.equal(0);
  });

  it('hands over a code that works once', async () => {
    const w = world();
    const { code } = await complete(w, await toCallback(w, alice));
    await w.hangar.exchangeSignInCode.execute({ code });
    await expectDomainError(w.hangar.exchangeSignInCode.execute({ code }), 'INVALID_TOKEN');
  });

  it('with REGISTRATION=closed, creates no account but signs in to an existing one', async () => {
    const w = world();
    const existing = await w.registerConfirmed('grace@example.com');
    const closed = createMemoryHangar({ registration: 'closed' }, () => ({ ...w.ports }));
    const cw = { ...w, hangar: closed.hangar };
    await expectDomainError(complete(cw, await toCallback(cw, alice)), 'REGISTRATION_CLOSED');
    expect(await w.repos.users.findByEmail('alice@example.com')).to.equal(undefined);
    const { user } = await signIn(cw, { sub: 'grace-sub', email: 'grace@example.com', email_verified: true });
    expect(user.id).to.equal(existing.userId);
  });

  it('with REGISTRATION=invite, creates the account only with an invite, on its plan, once', async () => {
    const w = world({ registration: 'invite' });
    await expectDomainError(complete(w, await toCallback(w, alice)), 'INVITE_REQUIRED');
    const { token } = await w.hangar.createInvite.execute({ planName: PRO_PLAN.name });
    const { user } = await signIn(w, alice, token);
    expect(user.planName).to.equal(PRO_PLAN.name);
    await expectDomainError(complete(w, await toCallback(w, { sub: 'frank-sub', email: 'frank@example.com', email_verified: true }, token)), 'INVITE_INVALID');
    // The linked account signs in without an invite.
    expect((await signIn(w, alice)).user.id).to.equal(user.id);
  });

  it('answers OIDC_PROVIDER_ERROR when the provider cannot be reached, and stores no flow', async () => {
    const oidc = new OpenIdClientProvider({
      issuer: 'http://127.0.0.1:9',
      clientId: TEST_CLIENT_ID,
      clientSecret: TEST_CLIENT_SECRET,
      redirectUri: CALLBACK,
      displayName: 'Down',
      allowHttp: true,
      timeoutSeconds: 2,
    });
    const w = createMemoryHangar({}, () => ({ oidc }));
    await expectDomainError(w.hangar.beginOidcSignIn.execute(), 'OIDC_PROVIDER_ERROR');
    expect(await w.repos.oidcFlows.deleteExpired({ now: new Date(8.64e15) })).to.equal(0);
  });

  it('answers OIDC_NOT_CONFIGURED without a provider', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(hangar.beginOidcSignIn.execute(), 'OIDC_NOT_CONFIGURED');
    expect(hangar.getSignInProviders.execute()).to.deep.equal({ oidc: null, registration: 'open' });
  });
});

/** Every method of `repository`, bound to it, so a test can replace one. */
function bind(repository: OidcFlowRepository): OidcFlowRepository {
  return {
    createFlow: (flow) => repository.createFlow(flow),
    consumeFlow: (options) => repository.consumeFlow(options),
    createCode: (code) => repository.createCode(code),
    consumeCode: (options) => repository.consumeCode(options),
    deleteExpired: (options) => repository.deleteExpired(options),
  };
}
