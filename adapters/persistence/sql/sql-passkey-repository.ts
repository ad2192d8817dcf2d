import type { Kysely, Selectable } from 'kysely';
import type { Passkey } from '../../../core/passkeys/passkey.js';
import type { PasskeyRepository } from '../../../core/passkeys/passkey-repository.js';
import { toDate, toMillis, toNullableDate, toNumber } from './rows.js';
import type { HangarDatabase, PasskeysTable } from './schema.js';

function toPasskey(row: Selectable<PasskeysTable>): Passkey {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: toNumber(row.counter),
    transports: JSON.parse(row.transports) as string[],
    createdAt: toDate(row.created_at),
    lastUsedAt: toNullableDate(row.last_used_at),
  };
}

/**
 * {@link PasskeyRepository} over `passkeys` (migration 0023). The unique `credential_id` decides
 * duplicates (INSERT … ON CONFLICT DO NOTHING, so two processes registering the same credential
 * cannot both succeed); `recordUse` is one guarded UPDATE.
 */
export class SqlPasskeyRepository implements PasskeyRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  /** @throws the driver's error for an unknown user (foreign key) or a duplicate id */
  async insert(passkey: Passkey): Promise<boolean> {
    const result = await this.db
      .insertInto('passkeys')
      .values({
        id: passkey.id,
        user_id: passkey.userId,
        name: passkey.name,
        credential_id: passkey.credentialId,
        public_key: passkey.publicKey,
        counter: passkey.counter,
        transports: JSON.stringify(passkey.transports),
        created_at: toMillis(passkey.createdAt),
        last_used_at: passkey.lastUsedAt === null ? null : toMillis(passkey.lastUsedAt),
      })
      .onConflict((conflict) => conflict.column('credential_id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async listForUser(userId: string): Promise<Passkey[]> {
    const rows = await this.db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
    return rows.map(toPasskey);
  }

  async findByCredentialId(credentialId: string): Promise<Passkey | undefined> {
    const row = await this.db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
    return row && toPasskey(row);
  }

  async rename(options: { userId: string; id: string; name: string }): Promise<Passkey | undefined> {
    const row = await this.db
      .updateTable('passkeys')
      .set({ name: options.name })
      .where('id', '=', options.id)
      .where('user_id', '=', options.userId)
      .returningAll()
      .executeTakeFirst();
    return row && toPasskey(row);
  }

  async delete(options: { userId: string; id: string }): Promise<boolean> {
    const result = await this.db.deleteFrom('passkeys').where('id', '=', options.id).where('user_id', '=', options.userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async recordUse(options: { id: string; previousCounter: number; counter: number; at: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('passkeys')
      .set({ counter: options.counter, last_used_at: toMillis(options.at) })
      .where('id', '=', options.id)
      .where('counter', '=', options.previousCounter)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
