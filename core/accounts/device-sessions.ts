import { SESSION_IDLE_DAYS } from './account-options.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { DAY_MS } from '../shared/time.js';
import type { Session, SessionRepository } from './session-repository.js';

/** One live session as its owner sees it (`GET /auth/sessions`). */
export interface DeviceSession {
  /** The session id, the `sid` claim of its access tokens. */
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  userAgent: string | null;
  ip: string | null;
  /** True for the session of the token that asked. */
  current: boolean;
}

/**
 * Lists the account's live sessions, one per signed-in device (docs/account-security.md): not
 * revoked and used within `sessionIdleDays`, most recently used first, marking the caller's own.
 */
export class ListSessions {
  constructor(private readonly deps: { sessions: SessionRepository; clock: Clock; sessionIdleDays?: number }) {}

  async execute(input: { userId: string; currentSessionId?: string }): Promise<DeviceSession[]> {
    const usedSince = new Date(this.deps.clock.now().getTime() - (this.deps.sessionIdleDays ?? SESSION_IDLE_DAYS) * DAY_MS);
    const sessions = await this.deps.sessions.listLive({ userId: input.userId, usedSince });
    return sessions.map((session: Session) => ({
      id: session.id,
      createdAt: session.createdAt,
      lastUsedAt: session.lastUsedAt,
      userAgent: session.userAgent,
      ip: session.ip,
      current: session.id === input.currentSessionId,
    }));
  }
}

/**
 * Ends one session of the account ("sign out" of a device): its refresh token stops at once and
 * its access tokens within the 1 s every revocation has across processes (docs/scale-out.md).
 * Ending the caller's own session is a logout.
 * @throws DomainError SESSION_NOT_FOUND (404) for an id that is not a live session of this account
 */
export class EndSession {
  constructor(private readonly deps: { sessions: SessionRepository; clock: Clock }) {}

  async execute(input: { userId: string; sessionId: string }): Promise<void> {
    const session = await this.deps.sessions.findById(input.sessionId);
    if (!session || session.userId !== input.userId || session.revokedAt !== null) {
      throw new DomainError('SESSION_NOT_FOUND', 'No signed-in session with this id on this account.');
    }
    await this.deps.sessions.revoke({ sessionId: session.id, at: this.deps.clock.now() });
  }
}
