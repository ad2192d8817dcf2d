import type { MfaChallenge, MfaRepository, TotpFactor } from '../../../core/accounts/mfa-repository.js';
import { copyDate, copyNullableDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';

function copyFactor(factor: TotpFactor): TotpFactor {
  return { ...factor, confirmedAt: copyNullableDate(factor.confirmedAt), createdAt: copyDate(factor.createdAt) };
}

/**
 * {@link MfaRepository} held in process memory (a {@link MemoryDatabase}). Every check-and-write
 * runs with no await in between, so it is atomic on the one JavaScript thread.
 */
export class MemoryMfaRepository implements MfaRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async findTotp(userId: string): Promise<TotpFactor | undefined> {
    const factor = this.db.totpFactors.get(userId);
    return factor && copyFactor(factor);
  }

  async savePendingTotp(options: { userId: string; sealedSecret: string; createdAt: Date }): Promise<boolean> {
    const existing = this.db.totpFactors.get(options.userId);
    if (existing && existing.confirmedAt !== null) return false;
    this.db.totpFactors.set(options.userId, {
      userId: options.userId,
      sealedSecret: options.sealedSecret,
      confirmedAt: null,
      lastTimeStep: null,
      createdAt: copyDate(options.createdAt),
    });
    return true;
  }

  async confirmTotp(options: { userId: string; sealedSecret: string; at: Date; timeStep: number; recoveryCodeHashes: readonly string[] }): Promise<boolean> {
    const factor = this.db.totpFactors.get(options.userId);
    if (!factor || factor.confirmedAt !== null || factor.sealedSecret !== options.sealedSecret) return false;
    factor.confirmedAt = copyDate(options.at);
    factor.lastTimeStep = options.timeStep;
    this.db.recoveryCodes.set(options.userId, new Map(options.recoveryCodeHashes.map((hash) => [hash, null])));
    return true;
  }

  async claimTimeStep(options: { userId: string; timeStep: number }): Promise<boolean> {
    const factor = this.db.totpFactors.get(options.userId);
    if (!factor || factor.confirmedAt === null) return false;
    if (factor.lastTimeStep !== null && factor.lastTimeStep >= options.timeStep) return false;
    factor.lastTimeStep = options.timeStep;
    return true;
  }

  async useRecoveryCode(options: { userId: string; codeHash: string; at: Date }): Promise<boolean> {
    const codes = this.db.recoveryCodes.get(options.userId);
    if (!codes || codes.get(options.codeHash) !== null) return false;
    codes.set(options.codeHash, copyDate(options.at));
    return true;
  }

  async countRecoveryCodes(userId: string): Promise<number> {
    return [...(this.db.recoveryCodes.get(userId)?.values() ?? [])].filter((usedAt) => usedAt === null).length;
  }

  async deleteTotp(userId: string): Promise<void> {
    this.db.totpFactors.delete(userId);
    this.db.recoveryCodes.delete(userId);
  }

  /** @throws Error when the token hash already exists */
  async createChallenge(challenge: MfaChallenge): Promise<void> {
    if (this.db.mfaChallenges.has(challenge.tokenHash)) throw new Error('An MFA challenge with this hash already exists.');
    this.db.mfaChallenges.set(challenge.tokenHash, { ...challenge, createdAt: copyDate(challenge.createdAt), expiresAt: copyDate(challenge.expiresAt) });
  }

  async findChallenge(options: { tokenHash: string; now: Date }): Promise<MfaChallenge | undefined> {
    const challenge = this.db.mfaChallenges.get(options.tokenHash);
    if (!challenge || challenge.expiresAt.getTime() <= options.now.getTime()) return undefined;
    return { ...challenge, createdAt: copyDate(challenge.createdAt), expiresAt: copyDate(challenge.expiresAt) };
  }

  async consumeChallenge(options: { tokenHash: string; now: Date }): Promise<boolean> {
    const challenge = this.db.mfaChallenges.get(options.tokenHash);
    if (!challenge) return false;
    this.db.mfaChallenges.delete(options.tokenHash);
    return challenge.expiresAt.getTime() > options.now.getTime();
  }

  async deleteExpiredChallenges(options: { now: Date }): Promise<number> {
    let removed = 0;
    for (const [hash, challenge] of this.db.mfaChallenges) {
      if (challenge.expiresAt.getTime() <= options.now.getTime()) {
        this.db.mfaChallenges.delete(hash);
        removed += 1;
      }
    }
    return removed;
  }
}
