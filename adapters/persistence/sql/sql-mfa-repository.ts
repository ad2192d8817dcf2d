import { type Kysely, type Selectable } from 'kysely';
import type { MfaChallenge, MfaRepository, TotpFactor } from '../../../core/accounts/mfa-repository.js';
import { toDate, toMillis, toNullableDate, toNullableNumber } from './rows.js';
import type { HangarDatabase, TotpFactorsTable } from './schema.js';

function toFactor(row: Selectable<TotpFactorsTable>): TotpFactor {
  return {
    userId: row.user_id,
    sealedSecret: row.sealed_secret,
    confirmedAt: toNullableDate(row.confirmed_at),
    lastTimeStep: toNullableNumber(row.last_time_step),
    createdAt: toDate(row.created_at),
  };
}

/**
 * {@link MfaRepository} over `totp_factors`, `recovery_codes` and `mfa_challenges` (migration
 * 0021). Each "use once" is a single conditional statement (UPDATE … WHERE still unused, DELETE …
 * RETURNING), so of simultaneous uses in any number of processes exactly one sees its row change.
 */
export class SqlMfaRepository implements MfaRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async findTotp(userId: string): Promise<TotpFactor | undefined> {
    const row = await this.db.selectFrom('totp_factors').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return row && toFactor(row);
  }

  /** An upsert whose update applies only to an unconfirmed row. @throws the driver's error for an unknown user */
  async savePendingTotp(options: { userId: string; sealedSecret: string; createdAt: Date }): Promise<boolean> {
    const row = await this.db
      .insertInto('totp_factors')
      .values({
        user_id: options.userId,
        sealed_secret: options.sealedSecret,
        confirmed_at: null,
        last_time_step: null,
        created_at: toMillis(options.createdAt),
      })
      .onConflict((oc) =>
        oc
          .column('user_id')
          .doUpdateSet({ sealed_secret: options.sealedSecret, created_at: toMillis(options.createdAt), last_time_step: null })
          .where('totp_factors.confirmed_at', 'is', null),
      )
      .returning('user_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async confirmTotp(options: { userId: string; sealedSecret: string; at: Date; timeStep: number; recoveryCodeHashes: readonly string[] }): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const confirmed = await trx
        .updateTable('totp_factors')
        .set({ confirmed_at: toMillis(options.at), last_time_step: options.timeStep })
        .where('user_id', '=', options.userId)
        .where('confirmed_at', 'is', null)
        .where('sealed_secret', '=', options.sealedSecret)
        .executeTakeFirst();
      if (Number(confirmed.numUpdatedRows) !== 1) return false;
      await trx.deleteFrom('recovery_codes').where('user_id', '=', options.userId).execute();
      if (options.recoveryCodeHashes.length > 0) {
        await trx
          .insertInto('recovery_codes')
          .values(options.recoveryCodeHashes.map((hash) => ({ user_id: options.userId, code_hash: hash, used_at: null })))
          .execute();
      }
      return true;
    });
  }

  async claimTimeStep(options: { userId: string; timeStep: number }): Promise<boolean> {
    const result = await this.db
      .updateTable('totp_factors')
      .set({ last_time_step: options.timeStep })
      .where('user_id', '=', options.userId)
      .where('confirmed_at', 'is not', null)
      .where((eb) => eb.or([eb('last_time_step', 'is', null), eb('last_time_step', '<', options.timeStep)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async useRecoveryCode(options: { userId: string; codeHash: string; at: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('recovery_codes')
      .set({ used_at: toMillis(options.at) })
      .where('user_id', '=', options.userId)
      .where('code_hash', '=', options.codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async countRecoveryCodes(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async deleteTotp(userId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await trx.deleteFrom('totp_factors').where('user_id', '=', userId).execute();
    });
  }

  async createChallenge(challenge: MfaChallenge): Promise<void> {
    await this.db
      .insertInto('mfa_challenges')
      .values({
        token_hash: challenge.tokenHash,
        user_id: challenge.userId,
        created_at: toMillis(challenge.createdAt),
        expires_at: toMillis(challenge.expiresAt),
      })
      .execute();
  }

  async findChallenge(options: { tokenHash: string; now: Date }): Promise<MfaChallenge | undefined> {
    const row = await this.db
      .selectFrom('mfa_challenges')
      .selectAll()
      .where('token_hash', '=', options.tokenHash)
      .where('expires_at', '>', toMillis(options.now))
      .executeTakeFirst();
    return row && { tokenHash: row.token_hash, userId: row.user_id, createdAt: toDate(row.created_at), expiresAt: toDate(row.expires_at) };
  }

  async consumeChallenge(options: { tokenHash: string; now: Date }): Promise<boolean> {
    const result = await this.db
      .deleteFrom('mfa_challenges')
      .where('token_hash', '=', options.tokenHash)
      .where('expires_at', '>', toMillis(options.now))
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async deleteExpiredChallenges(options: { now: Date }): Promise<number> {
    const result = await this.db.deleteFrom('mfa_challenges').where('expires_at', '<=', toMillis(options.now)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
