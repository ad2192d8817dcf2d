import type { Clock } from '../shared/clock.js';
import type { SessionRepository } from './session-repository.js';

/** Ends the caller's session: its access tokens and refresh tokens stop working at once. Idempotent. */
export class LogOut {
  constructor(private readonly deps: { sessions: SessionRepository; clock: Clock }) {}

  async execute(input: { sessionId: string }): Promise<void> {
    await this.deps.sessions.revoke({ sessionId: input.sessionId, at: this.deps.clock.now() });
  }
}
