import { type Kysely, sql, type SqlBool } from 'kysely';
import type { ImageVariantRecord, ImageVariantRepository, VariantClaim, VariantKey, VariantStored } from '../../../core/images/image-variant-repository.js';
import { isPostgres } from './dialect.js';
import { toMillis, toNumber } from './rows.js';
import type { HangarDatabase } from './schema.js';

/**
 * {@link ImageVariantRepository} over `image_variants` (migration 0012) and `account_totals`.
 *
 * Atomicity across processes: `claim` is one transaction that first locks the file's `files` row
 * (Postgres `FOR UPDATE`; on SQLite the transaction holds the database's write lock from its
 * `BEGIN IMMEDIATE`), so claims of one file take turns and the per-file count cannot be passed by
 * two claims at once; the file's delete (`SqlFileRepository.deleteMany`) takes the same row lock
 * first. `markStored` updates the variant's row (its lock) before `account_totals` (the order the
 * file delete also follows), so a variant stored while its file is deleted is either subtracted
 * by the delete or finds its claim gone.
 */
export class SqlImageVariantRepository implements ImageVariantRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async claim(options: VariantKey & { token: string; now: Date; leaseMs: number; maxPerFile: number }): Promise<VariantClaim> {
    const now = toMillis(options.now);
    return this.db.transaction().execute(async (trx): Promise<VariantClaim> => {
      const file = await trx
        .selectFrom('files')
        .select('id')
        .where('id', '=', options.fileRecordId)
        .$call((query) => (isPostgres(trx) ? query.forUpdate() : query))
        .executeTakeFirst();
      if (!file) return 'gone';
      const row = await trx
        .selectFrom('image_variants')
        .select(['state', 'claimed_until'])
        .where('file_record_id', '=', options.fileRecordId)
        .where('variant', '=', options.variant)
        .executeTakeFirst();
      if (row?.state === 'stored') return 'stored';
      if (row && toNumber(row.claimed_until) > now) return 'busy';
      // A new variant, or an expired claim (its holder died) taken over: either must fit under the
      // cap, which counts stored variants and live claims (not the expired one).
      const held = await trx
        .selectFrom('image_variants')
        .select((eb) => eb.fn.countAll<number | string>().as('held'))
        .where('file_record_id', '=', options.fileRecordId)
        .where(sql<SqlBool>`(state = 'stored' or claimed_until > ${now})`)
        .executeTakeFirstOrThrow();
      const full = toNumber(held.held) >= options.maxPerFile;
      if (row) {
        const expired = trx.deleteFrom('image_variants').where('file_record_id', '=', options.fileRecordId).where('variant', '=', options.variant);
        if (full) {
          await expired.execute();
          return 'full';
        }
        await trx
          .updateTable('image_variants')
          .set({ claim_token: options.token, claimed_until: now + options.leaseMs })
          .where('file_record_id', '=', options.fileRecordId)
          .where('variant', '=', options.variant)
          .execute();
        return 'claimed';
      }
      if (full) return 'full';
      await trx
        .insertInto('image_variants')
        .values({
          file_record_id: options.fileRecordId,
          variant: options.variant,
          user_id: options.userId,
          state: 'computing',
          claim_token: options.token,
          claimed_until: now + options.leaseMs,
          size: 0,
          created_at: now,
        })
        .execute();
      return 'claimed';
    });
  }

  async markStored(options: VariantKey & { token: string; sizeBytes: number; storageLimitBytes: number }): Promise<VariantStored> {
    return this.db.transaction().execute(async (trx): Promise<VariantStored> => {
      const claimed = await trx
        .updateTable('image_variants')
        .set({ state: 'stored', claim_token: null, claimed_until: 0, size: options.sizeBytes })
        .where('file_record_id', '=', options.fileRecordId)
        .where('variant', '=', options.variant)
        .where('state', '=', 'computing')
        .where('claim_token', '=', options.token)
        .returning('user_id')
        .executeTakeFirst();
      if (!claimed) return 'lost';
      const counted = await trx
        .updateTable('account_totals')
        .set({ storage_bytes: sql<number>`storage_bytes + ${options.sizeBytes}` })
        .where('user_id', '=', claimed.user_id)
        .where(sql<SqlBool>`storage_bytes + ${options.sizeBytes} <= ${options.storageLimitBytes}`)
        .executeTakeFirst();
      if (Number(counted.numUpdatedRows) === 1) return 'stored';
      await trx.deleteFrom('image_variants').where('file_record_id', '=', options.fileRecordId).where('variant', '=', options.variant).execute();
      return 'storage_limit_reached';
    });
  }

  async release(options: VariantKey & { token: string }): Promise<void> {
    await this.db
      .deleteFrom('image_variants')
      .where('file_record_id', '=', options.fileRecordId)
      .where('variant', '=', options.variant)
      .where('state', '=', 'computing')
      .where('claim_token', '=', options.token)
      .execute();
  }

  async forget(options: VariantKey): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const removed = await trx
        .deleteFrom('image_variants')
        .where('file_record_id', '=', options.fileRecordId)
        .where('variant', '=', options.variant)
        .where('state', '=', 'stored')
        .returning(['user_id', 'size'])
        .executeTakeFirst();
      if (!removed) return;
      await trx
        .updateTable('account_totals')
        .set({ storage_bytes: sql<number>`storage_bytes - ${toNumber(removed.size)}` })
        .where('user_id', '=', removed.user_id)
        .execute();
    });
  }

  async list(options: { fileRecordId: string }): Promise<ImageVariantRecord[]> {
    const rows = await this.db
      .selectFrom('image_variants')
      .select(['variant', 'state', 'size'])
      .where('file_record_id', '=', options.fileRecordId)
      .orderBy('variant')
      .execute();
    return rows.map((row) => ({ variant: row.variant, state: row.state, sizeBytes: toNumber(row.size) }));
  }
}
