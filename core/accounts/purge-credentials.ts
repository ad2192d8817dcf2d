import type { Clock } from '../shared/clock.js';
import { DAY_MS } from '../shared/time.js';
import type { PasskeyChallengeRepository } from '../passkeys/passkey-challenge-repository.js';
import { SESSION_IDLE_DAYS } from './account-options.js';
import type { MfaRepository } from './mfa-repository.js';
import type { OneTimeTokenRepository } from './one-time-token-repository.js';
import type { SessionRepository } from './session-repository.js';
import type { OidcFlowRepository } from '../sso/oidc-flow-repository.js';

/**
 * How long a revoked session and a rotated refresh token are kept, in days: while kept, presenting
 * a rotated token is reported as reuse (and ends its session, see RefreshSession); afterwards it is
 * refused as unknown. Longer than any access token lives, so a removed session ends no access that
 * was still valid.
 */
export const CREDENTIAL_RETENTION_DAYS = 30;

/** What one {@link PurgeCredentials} run removed. */
export interface PurgedCredentials {
  oneTimeTokens: number;
  sessions: number;
  refreshTokens: number;
  /** Passkey challenges past their expiry, never answered. */
  passkeyChallenges: number;
  /** Sessions ended now for being idle past the limit (removed by a later run, with the revoked ones). */
  idleSessions: number;
  /** Pending two-step sign-ins (`mfa_token`) past their 5 minutes. */
  mfaChallenges: number;
  /** Expired OIDC sign-in flows and hand-over codes. */
  oidcFlows: number;
}

/**
 * Removes credentials that can no longer be used, so that their tables do not grow for ever: every
 * one-time token (e-mail confirmation, password reset), passkey challenge and OIDC sign-in flow or hand-over code past its expiry, and sessions revoked and
 * refresh tokens rotated more than {@link CREDENTIAL_RETENTION_DAYS} days ago (a dashboard that
 * refreshes every 15 minutes adds ~100 rotated tokens a day). Sessions idle for longer than
 * `sessionIdleDays` are revoked (they were refused already), and expired `mfa_token`s removed. Nothing a user can still use is
 * removed: a live session keeps its current refresh token however old it is. The server runs it
 * hourly with the activity log's pruning (core/hangar-runtime.ts).
 */
export class PurgeCredentials {
  constructor(
    private readonly deps: {
      tokens: OneTimeTokenRepository;
      sessions: SessionRepository;
      mfa: MfaRepository;
      passkeyChallenges: PasskeyChallengeRepository;
      oidcFlows?: OidcFlowRepository;
      clock: Clock;
      retentionDays?: number;
      sessionIdleDays?: number;
    },
  ) {}

  /** @returns how many one-time tokens, sessions, refresh tokens and pending sign-ins and passkey challenges were removed, and idle sessions ended */
  async execute(): Promise<PurgedCredentials> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - (this.deps.retentionDays ?? CREDENTIAL_RETENTION_DAYS) * DAY_MS);
    const oneTimeTokens = await this.deps.tokens.deleteExpired({ now });
    const idleSessions = await this.deps.sessions.revokeIdle({
      usedBefore: new Date(now.getTime() - (this.deps.sessionIdleDays ?? SESSION_IDLE_DAYS) * DAY_MS),
      at: now,
    });
    const { sessions, refreshTokens } = await this.deps.sessions.purge({ before });
    const mfaChallenges = await this.deps.mfa.deleteExpiredChallenges({ now });
    const passkeyChallenges = await this.deps.passkeyChallenges.deleteExpired({ now });
    const oidcFlows = (await this.deps.oidcFlows?.deleteExpired({ now })) ?? 0;
    return { oneTimeTokens, sessions, refreshTokens, idleSessions, mfaChallenges, passkeyChallenges, oidcFlows };
  }
}
