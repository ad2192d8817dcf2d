import type { Kysely } from 'kysely';
import type { SigningKeyRepository } from '../../../core/files/signing-key-repository.js';
import type { HangarDatabase } from './schema.js';

/**
 * {@link SigningKeyRepository} over `users.signing_key` (migration 0013). `ensure` is a conditional
 * UPDATE (`where signing_key is null`) then a read, so of concurrent first calls, on any number of
 * processes, the first commit wins and every call returns its key.
 */
export class SqlSigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async ensure(options: { userId: string; candidate: string }): Promise<string | undefined> {
    await this.db.updateTable('users').set({ signing_key: options.candidate }).where('id', '=', options.userId).where('signing_key', 'is', null).execute();
    const row = await this.db.selectFrom('users').select('signing_key').where('id', '=', options.userId).executeTakeFirst();
    return row?.signing_key ?? undefined;
  }

  async replace(options: { userId: string; key: string }): Promise<boolean> {
    const result = await this.db.updateTable('users').set({ signing_key: options.key }).where('id', '=', options.userId).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
