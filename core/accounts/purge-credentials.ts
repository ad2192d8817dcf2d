import type { Clock } from '../shared/clock.js';
import { DAY_MS } from '../shared/time.js';
import type { OneTimeTokenRepository } from './one-time-token-repository.js';
import type { SessionRepository } from './session-repository.js';
import type { OidcFlowRepository } from '../sso/oidc-repositories.js';

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
  /** Expired OIDC sign-in flows and hand-over codes. */
  oidcFlows: number;
}

/**
 * Removes credentials that can no longer be used, so that their tables do not grow for ever: every
 * one-time token (e-mail confirmation, password reset) and OIDC sign-in flow or hand-over code past its expiry, and sessions revoked and
 * refresh tokens rotated more than {@link CREDENTIAL_RETENTION_DAYS} days ago (a dashboard that
 * refreshes every 15 minutes adds ~100 rotated tokens a day). Nothing a user can still use is
 * removed: a live session keeps its current refresh token however old it is. The server runs it
 * hourly with the activity log's pruning (apps/server/start.ts); an embedding host calls `execute`.
 */
export class PurgeCredentials {
  constructor(private readonly deps: { tokens: OneTimeTokenRepository; sessions: SessionRepository; oidcFlows?: OidcFlowRepository; clock: Clock; retentionDays?: number }) {}

  /** @returns how many one-time tokens, sessions and refresh tokens were removed */
  async execute(): Promise<PurgedCredentials> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - (this.deps.retentionDays ?? CREDENTIAL_RETENTION_DAYS) * DAY_MS);
    const oneTimeTokens = await this.deps.tokens.deleteExpired({ now });
    const { sessions, refreshTokens } = await this.deps.sessions.purge({ before });
    const oidcFlows = (await this.deps.oidcFlows?.deleteExpired({ now })) ?? 0;
    return { oneTimeTokens, sessions, refreshTokens, oidcFlows };
  }
}
