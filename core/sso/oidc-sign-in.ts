import { DEFAULT_IMAGE_METADATA_MODE } from '../files/image-metadata/image-metadata-mode.js';
import { TOKEN_LENGTH } from '../accounts/account-options.js';
import type { PasswordHasher } from '../accounts/password-hasher.js';
import type { SessionIssuer, SessionTokens, SessionDevice } from '../accounts/session-issuer.js';
import { normaliseEmail, type User } from '../accounts/user.js';
import type { UserRepository } from '../accounts/user-repository.js';
import type { RegistrationGate } from '../invites/registration-gate.js';
import { PlanCatalog } from '../plans/plan.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/id-generator.js';
import type { SecretDigest } from '../shared/secret-digest.js';
import type { RateLimits } from '../shared/rate-limits.js';
import { MINUTE_MS } from '../shared/time.js';
import type { OidcIdentity, OidcProvider } from './oidc-provider.js';
import type { OidcFlowRepository } from './oidc-flow-repository.js';
import type { OidcIdentityRepository } from './oidc-identity-repository.js';

/** How long a user may take at the provider between the redirect and the callback: 10 minutes, in ms. */
export const OIDC_FLOW_TTL_MS = 10 * MINUTE_MS;
/** How long the dashboard has to exchange a hand-over code: 1 minute, in ms. */
export const SIGN_IN_CODE_TTL_MS = MINUTE_MS;

function requireProvider(provider: OidcProvider | undefined): OidcProvider {
  if (!provider) throw new DomainError('OIDC_NOT_CONFIGURED', 'Single sign-on is not configured on this server.');
  return provider;
}

/** Whether single sign-on is on, and the name of its button. */
export class GetSignInProviders {
  constructor(private readonly deps: { provider?: OidcProvider; gate: RegistrationGate }) {}

  /** @returns `oidc`: null when OIDC is off; `registration`: the REGISTRATION mode */
  execute(): { oidc: { name: string } | null; registration: RegistrationGate['mode'] } {
    return { oidc: this.deps.provider ? { name: this.deps.provider.displayName } : null, registration: this.deps.gate.mode };
  }
}

/**
 * Starts a sign-in through the OpenID provider: draws state, nonce and a PKCE verifier, stores
 * them (by the state's digest) for {@link OIDC_FLOW_TTL_MS}, and returns the provider's
 * authorization URL to send the browser to. The flow lives in the database, so the callback may
 * land on any process.
 * @throws DomainError OIDC_NOT_CONFIGURED (404), OIDC_PROVIDER_ERROR (502)
 */
export class BeginOidcSignIn {
  constructor(private readonly deps: { provider?: OidcProvider; flows: OidcFlowRepository; digest: SecretDigest; clock: Clock; limits: RateLimits }) {}

  /**
   * @param input.invite an invite token, kept with the flow for a first sign-in under `REGISTRATION=invite`
   * @param input.client the client's address (see RateLimits), when the host knows it: 30 starts a minute each
   * @throws DomainError OIDC_NOT_CONFIGURED, RATE_LIMITED (429), OIDC_PROVIDER_ERROR
   */
  async execute(input: { invite?: string; client?: string } = {}): Promise<{ authorizationUrl: string }> {
    const provider = requireProvider(this.deps.provider);
    await this.deps.limits.oidcStart(input.client);
    const secrets = provider.newSecrets();
    const authorizationUrl = await provider.authorizationUrl(secrets);
    await this.deps.flows.createFlow({
      stateHash: this.deps.digest.sha256(secrets.state),
      nonce: secrets.nonce,
      codeVerifier: secrets.codeVerifier,
      inviteHash: input.invite === undefined || input.invite === '' ? null : this.deps.digest.sha256(input.invite),
      expiresAt: new Date(this.deps.clock.now().getTime() + OIDC_FLOW_TTL_MS),
    });
    return { authorizationUrl };
  }
}

export interface CompleteOidcSignInDeps {
  provider?: OidcProvider;
  flows: OidcFlowRepository;
  identities: OidcIdentityRepository;
  users: UserRepository;
  passwords: PasswordHasher;
  gate: RegistrationGate;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
}

/**
 * Finishes a sign-in on the provider's callback and returns a single-use hand-over code (valid
 * {@link SIGN_IN_CODE_TTL_MS}) that the dashboard exchanges for a session ({@link ExchangeSignInCode}),
 * so no token travels in a URL. The flow is taken once (a replayed or forged state is refused),
 * then the provider checks code, PKCE verifier and nonce. The account:
 * - the one linked to (issuer, subject), when there is one;
 * - else, the provider must vouch for the e-mail (`email_verified`): an existing account with that
 *   address is linked when it is confirmed (an unconfirmed one is refused: whoever registered it
 *   without confirming may not be its owner); otherwise a new, confirmed account is created, when
 *   the RegistrationGate allows (REGISTRATION; an invite given at the start is used up), with a
 *   random password nobody knows (a password reset sets one).
 * Hangar's own second factor is not asked: the provider's sign-in stands for it.
 * @throws DomainError OIDC_NOT_CONFIGURED (404), OIDC_STATE_INVALID, OIDC_FAILED, INVALID_EMAIL, INVITE_INVALID (400),
 *         OIDC_EMAIL_UNVERIFIED, EMAIL_NOT_VERIFIED, REGISTRATION_CLOSED, INVITE_REQUIRED (403), OIDC_PROVIDER_ERROR (502)
 */
export class CompleteOidcSignIn {
  constructor(private readonly deps: CompleteOidcSignInDeps) {}

  /**
   * @param input.state the callback's `state` parameter
   * @param input.callbackUrl the full callback URL the browser requested
   */
  async execute(input: { state: string; callbackUrl: string }): Promise<{ code: string; userId: string }> {
    const provider = requireProvider(this.deps.provider);
    const now = this.deps.clock.now();
    const flow = input.state === '' ? undefined : await this.deps.flows.consumeFlow({ stateHash: this.deps.digest.sha256(input.state), now });
    if (!flow) throw new DomainError('OIDC_STATE_INVALID', 'This sign-in expired or was already used. Start again.');
    const identity = await provider.complete({
      callbackUrl: input.callbackUrl,
      secrets: { state: input.state, nonce: flow.nonce, codeVerifier: flow.codeVerifier },
    });
    const userId = await this.accountOf(identity, flow.inviteHash ?? undefined);
    const code = this.deps.ids.base62(TOKEN_LENGTH);
    await this.deps.flows.createCode({
      codeHash: this.deps.digest.sha256(code),
      userId,
      expiresAt: new Date(this.deps.clock.now().getTime() + SIGN_IN_CODE_TTL_MS),
    });
    return { code, userId };
  }

  private async accountOf(identity: OidcIdentity, inviteHash: string | undefined): Promise<string> {
    const { issuer, subject } = identity;
    const linked = await this.deps.identities.find({ issuer, subject });
    if (linked) return linked.userId;
    if (identity.email === undefined || !identity.emailVerified) {
      throw new DomainError(
        'OIDC_EMAIL_UNVERIFIED',
        'The identity provider did not confirm that your e-mail address is verified, so no account can be matched or created. Verify it with the provider and try again.',
      );
    }
    const email = normaliseEmail(identity.email);
    let user = await this.deps.users.findByEmail(email);
    if (!user) user = await this.createAccount(email, inviteHash);
    if (user.emailConfirmedAt === null) {
      throw new DomainError(
        'EMAIL_NOT_VERIFIED',
        'An account with this address is waiting for its e-mail confirmation: confirm it with the link we sent, then sign in again.',
      );
    }
    const created = await this.deps.identities.create({ issuer, subject, userId: user.id, email, createdAt: this.deps.clock.now() });
    if (created) return user.id;
    // Linked meanwhile by a concurrent callback (another tab, another process): that link wins.
    const winner = await this.deps.identities.find({ issuer, subject });
    if (!winner) throw new Error('OIDC identity link vanished after a conflicting insert');
    return winner.userId;
  }

  /** Creates the confirmed account for `email`, or returns the one a concurrent request created. */
  private async createAccount(email: string, inviteHash: string | undefined): Promise<User> {
    const userId = this.deps.ids.uuid();
    const ticket = await this.deps.gate.admit({ userId, inviteHash });
    try {
      const now = this.deps.clock.now();
      const user: User = {
        id: userId,
        email,
        passwordHash: await this.deps.passwords.hash(this.deps.ids.base62(TOKEN_LENGTH)),
        emailConfirmedAt: now,
        maxUploadSizeBytes: null,
        imageMetadata: DEFAULT_IMAGE_METADATA_MODE,
        lastEmailSentAt: null,
        lastResetEmailSentAt: null,
        planName: ticket.plan.name,
        trialEndsAt: PlanCatalog.trialEnd(ticket.plan, now),
        accessUntil: null,
        subscriptionCanceledAt: null,
        role: 'user',
        suspendedAt: null,
        storageLimitBytes: null,
        fileCountLimit: null,
        createdAt: now,
        updatedAt: now,
      };
      if (await this.deps.users.create(user)) return user;
      await ticket.release();
      const existing = await this.deps.users.findByEmail(email);
      if (!existing) throw new Error('An account with this e-mail address vanished after a conflicting insert');
      return existing;
    } catch (error) {
      await ticket.release();
      throw error;
    }
  }
}

/**
 * Exchanges a hand-over code from {@link CompleteOidcSignIn} for a session, as logging in does.
 * Each code works once, within {@link SIGN_IN_CODE_TTL_MS}.
 * @throws DomainError INVALID_TOKEN (400) for an unknown, used or expired code
 */
export class ExchangeSignInCode {
  constructor(private readonly deps: { flows: OidcFlowRepository; users: UserRepository; issuer: SessionIssuer; digest: SecretDigest; clock: Clock }) {}

  /** @param input.client the client's address, when the host knows it */
  async execute(input: { code: string; client?: string; device?: SessionDevice }): Promise<{ user: User; session: SessionTokens }> {
    const taken = await this.deps.flows.consumeCode({ codeHash: this.deps.digest.sha256(input.code), now: this.deps.clock.now() });
    const user = taken && (await this.deps.users.findById(taken.userId));
    if (!user) throw new DomainError('INVALID_TOKEN', 'This sign-in code is unknown, used or expired. Sign in again.');
    return { user, session: await this.deps.issuer.open(user.id, input.device) };
  }
}
