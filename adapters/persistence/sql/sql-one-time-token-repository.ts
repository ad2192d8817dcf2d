import type { Kysely } from 'kysely';
import type { OneTimeToken, OneTimeTokenPurpose, OneTimeTokenRepository } from '../../../core/accounts/one-time-token-repository.js';
import { toMillis } from './rows.js';
import type { HangarDatabase } from './schema.js';

/**
 * {@link OneTimeTokenRepository} over `one_time_tokens`. `consume` is one DELETE … RETURNING
 * guarded by purpose and expiry, so a token is used at most once even with several processes.
 * A token is valid while `now` is before `expiresAt`.
 */
export class SqlOneTimeTokenRepository implements OneTimeTokenRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  /** @throws the driver's error on a duplicate id or token hash, or an unknown user (foreign key) */
  async create(token: OneTimeToken): Promise<void> {
    await this.db
      .insertInto('one_time_tokens')
      .values({
        id: token.id,
        user_id: token.userId,
        purpose: token.purpose,
        token_hash: token.tokenHash,
        redirect_to: token.redirectTo,
        expires_at: toMillis(token.expiresAt),
        created_at: toMillis(token.createdAt),
      })
      .execute();
  }

  async consume(options: { purpose: OneTimeTokenPurpose; tokenHash: string; now: Date }): Promise<{ userId: string; redirectTo: string | null } | undefined> {
    const row = await this.db
      .deleteFrom('one_time_tokens')
      .where('token_hash', '=', options.tokenHash)
      .where('purpose', '=', options.purpose)
      .where('expires_at', '>', toMillis(options.now))
      .returning(['user_id', 'redirect_to'])
      .executeTakeFirst();
    return row && { userId: row.user_id, redirectTo: row.redirect_to };
  }

  async deleteForUser(options: { userId: string; purpose: OneTimeTokenPurpose }): Promise<void> {
    await this.db.deleteFrom('one_time_tokens').where('user_id', '=', options.userId).where('purpose', '=', options.purpose).execute();
  }

  /** One DELETE on `one_time_tokens_expires_at` (migration 0009): the table stays small, as issuing tokens is rate-limited. */
  async deleteExpired(options: { now: Date }): Promise<number> {
    const result = await this.db.deleteFrom('one_time_tokens').where('expires_at', '<=', toMillis(options.now)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
