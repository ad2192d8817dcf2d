import type { RefreshToken, RotationResult, Session, SessionRepository } from '../../../core/accounts/session-repository.js';
import { copyDate, copyNullableDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';

function copySession(session: Session): Session {
  return {
    id: session.id,
    userId: session.userId,
    createdAt: copyDate(session.createdAt),
    revokedAt: copyNullableDate(session.revokedAt),
    lastUsedAt: copyDate(session.lastUsedAt),
    userAgent: session.userAgent,
    ip: session.ip,
    secondFactorAt: copyNullableDate(session.secondFactorAt),
  };
}

function copyRefreshToken(token: RefreshToken): RefreshToken {
  return { tokenHash: token.tokenHash, sessionId: token.sessionId, createdAt: copyDate(token.createdAt), rotatedAt: copyNullableDate(token.rotatedAt) };
}

/**
 * {@link SessionRepository} held in process memory (a {@link MemoryDatabase}). `rotate` checks
 * and writes with no await in between, so it is atomic on the one JavaScript thread. A revoked
 * session makes every one of its tokens `invalid`, rotated or not.
 */
export class MemorySessionRepository implements SessionRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when the session id or the token hash already exists */
  async create(options: { session: Session; refreshToken: RefreshToken }): Promise<void> {
    if (this.db.sessions.has(options.session.id)) throw new Error(`A session with id ${options.session.id} already exists.`);
    if (this.db.refreshTokens.has(options.refreshToken.tokenHash)) throw new Error('A refresh token with this hash already exists.');
    this.db.sessions.set(options.session.id, copySession(options.session));
    this.db.refreshTokens.set(options.refreshToken.tokenHash, copyRefreshToken(options.refreshToken));
  }

  async findById(id: string): Promise<Session | undefined> {
    const session = this.db.sessions.get(id);
    return session && copySession(session);
  }

  /** @throws Error when `next.tokenHash` already exists (nothing is changed then) */
  async rotate(options: { tokenHash: string; next: Omit<RefreshToken, 'sessionId'>; sealedSuccessor?: string; now: Date }): Promise<RotationResult> {
    const token = this.db.refreshTokens.get(options.tokenHash);
    const session = token && this.db.sessions.get(token.sessionId);
    if (!token || !session || session.revokedAt !== null) return { kind: 'invalid' };
    if (token.rotatedAt !== null)
      return { kind: 'reused', session: copySession(session), rotatedAt: copyDate(token.rotatedAt), sealedSuccessor: token.sealedSuccessor ?? null };
    if (this.db.refreshTokens.has(options.next.tokenHash)) throw new Error('A refresh token with this hash already exists.');
    token.rotatedAt = copyDate(options.now);
    token.sealedSuccessor = options.sealedSuccessor ?? null;
    this.db.refreshTokens.set(options.next.tokenHash, copyRefreshToken({ ...options.next, sessionId: session.id }));
    return { kind: 'rotated', session: copySession(session) };
  }

  async touch(options: { sessionId: string; at: Date; minIntervalMs: number }): Promise<void> {
    const session = this.db.sessions.get(options.sessionId);
    if (session && session.lastUsedAt.getTime() <= options.at.getTime() - options.minIntervalMs) session.lastUsedAt = copyDate(options.at);
  }

  async listLive(options: { userId: string; usedSince: Date }): Promise<Session[]> {
    return [...this.db.sessions.values()]
      .filter((s) => s.userId === options.userId && s.revokedAt === null && s.lastUsedAt.getTime() >= options.usedSince.getTime())
      .sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime() || (a.id < b.id ? -1 : 1))
      .map(copySession);
  }

  async revokeIdle(options: { usedBefore: Date; at: Date }): Promise<number> {
    let revoked = 0;
    for (const session of this.db.sessions.values()) {
      if (session.revokedAt === null && session.lastUsedAt.getTime() < options.usedBefore.getTime()) {
        session.revokedAt = copyDate(options.at);
        revoked += 1;
      }
    }
    return revoked;
  }

  async markSecondFactor(options: { sessionId: string; at: Date }): Promise<void> {
    const session = this.db.sessions.get(options.sessionId);
    if (session && session.revokedAt === null && session.secondFactorAt === null) session.secondFactorAt = copyDate(options.at);
  }

  async revoke(options: { sessionId: string; at: Date }): Promise<void> {
    const session = this.db.sessions.get(options.sessionId);
    if (session && session.revokedAt === null) session.revokedAt = copyDate(options.at);
  }

  async revokeAllForUser(options: { userId: string; at: Date }): Promise<void> {
    for (const session of this.db.sessions.values()) {
      if (session.userId === options.userId && session.revokedAt === null) session.revokedAt = copyDate(options.at);
    }
  }

  async purge(options: { before: Date }): Promise<{ sessions: number; refreshTokens: number }> {
    const before = options.before.getTime();
    const removed = new Set<string>();
    for (const [id, session] of this.db.sessions) {
      if (session.revokedAt !== null && session.revokedAt.getTime() < before) {
        this.db.sessions.delete(id);
        removed.add(id);
      }
    }
    let refreshTokens = 0;
    for (const [hash, token] of this.db.refreshTokens) {
      if (removed.has(token.sessionId) || (token.rotatedAt !== null && token.rotatedAt.getTime() < before)) {
        this.db.refreshTokens.delete(hash);
        refreshTokens += 1;
      }
    }
    return { sessions: removed.size, refreshTokens };
  }
}
