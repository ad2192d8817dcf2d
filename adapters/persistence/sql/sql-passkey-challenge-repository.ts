import type { Kysely } from 'kysely';
import type { PasskeyCeremony, PasskeyChallenge, PasskeyChallengeRepository } from '../../../core/passkeys/passkey-challenge-repository.js';
import { toMillis } from './rows.js';
import type { HangarDatabase } from './schema.js';

/**
 * {@link PasskeyChallengeRepository} over `passkey_challenges` (migration 0024). `take` is one
 * DELETE … RETURNING guarded by ceremony and expiry, so a challenge is answered at most once even
 * with several processes.
 */
export class SqlPasskeyChallengeRepository implements PasskeyChallengeRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  /** @throws the driver's error on a duplicate challenge or an unknown user (foreign key) */
  async create(challenge: PasskeyChallenge): Promise<void> {
    await this.db
      .insertInto('passkey_challenges')
      .values({
        challenge: challenge.challenge,
        ceremony: challenge.ceremony,
        user_id: challenge.userId,
        expires_at: toMillis(challenge.expiresAt),
        created_at: toMillis(challenge.createdAt),
      })
      .execute();
  }

  async take(options: { challenge: string; ceremony: PasskeyCeremony; now: Date }): Promise<{ userId: string | null } | undefined> {
    const row = await this.db
      .deleteFrom('passkey_challenges')
      .where('challenge', '=', options.challenge)
      .where('ceremony', '=', options.ceremony)
      .where('expires_at', '>', toMillis(options.now))
      .returning(['user_id'])
      .executeTakeFirst();
    return row && { userId: row.user_id };
  }

  /** One DELETE on `passkey_challenges_expires_at`. */
  async deleteExpired(options: { now: Date }): Promise<number> {
    const result = await this.db.deleteFrom('passkey_challenges').where('expires_at', '<=', toMillis(options.now)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
