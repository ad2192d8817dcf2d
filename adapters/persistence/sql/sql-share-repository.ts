import { type Kysely, type Selectable, sql } from 'kysely';
import type { Share } from '../../../core/shares/share.js';
import type { ShareRepository } from '../../../core/shares/share-repository.js';
import { toDate, toMillis, toNullableDate, toNullableMillis, toNullableNumber, toNumber } from './rows.js';
import type { HangarDatabase, SharesTable } from './schema.js';

function toShare(row: Selectable<SharesTable>): Share {
  return {
    id: row.id,
    userId: row.user_id,
    fileId: row.file_id,
    fileRecordId: row.file_record_id,
    passwordHash: row.password_hash,
    expiresAt: toNullableDate(row.expires_at),
    maxDownloads: toNullableNumber(row.max_downloads),
    downloads: toNumber(row.downloads),
    createdAt: toDate(row.created_at),
    apiKeyId: row.api_key_id,
  };
}

/**
 * {@link ShareRepository} over `shares` (migration 0014), whose rows go with their file and user
 * (`on delete cascade`), and with the API key that made them (`api_key_id`, migration 0043). `claimDownload` is one conditional UPDATE (`downloads < max_downloads`,
 * not expired): the database's row lock orders concurrent claims, on any number of processes.
 */
export class SqlShareRepository implements ShareRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async insert(share: Share): Promise<void> {
    await this.db
      .insertInto('shares')
      .values({
        id: share.id,
        user_id: share.userId,
        file_id: share.fileId,
        file_record_id: share.fileRecordId,
        password_hash: share.passwordHash,
        expires_at: toNullableMillis(share.expiresAt),
        max_downloads: share.maxDownloads,
        downloads: share.downloads,
        created_at: toMillis(share.createdAt),
        api_key_id: share.apiKeyId,
      })
      .execute();
  }

  async findById(shareId: string): Promise<Share | undefined> {
    const row = await this.db.selectFrom('shares').selectAll().where('id', '=', shareId).executeTakeFirst();
    return row && toShare(row);
  }

  async listByFile(options: { userId: string; fileId: string }): Promise<Share[]> {
    const rows = await this.db
      .selectFrom('shares')
      .selectAll()
      .where('user_id', '=', options.userId)
      .where('file_id', '=', options.fileId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toShare);
  }

  async delete(options: { userId: string; shareId: string }): Promise<boolean> {
    const result = await this.db.deleteFrom('shares').where('id', '=', options.shareId).where('user_id', '=', options.userId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async claimDownload(options: { shareId: string; now: Date }): Promise<boolean> {
    const now = toMillis(options.now);
    const result = await this.db
      .updateTable('shares')
      .set({ downloads: sql<number>`downloads + 1` })
      .where('id', '=', options.shareId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .where((eb) => eb.or([eb('max_downloads', 'is', null), eb('downloads', '<', eb.ref('max_downloads'))]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
