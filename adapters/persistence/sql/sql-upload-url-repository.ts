import type { Kysely, Selectable } from 'kysely';
import type { UploadUrlClaim, UploadUrlGrant } from '../../../core/files/upload-urls.js';
import type { UploadUrlRepository } from '../../../core/files/upload-url-repository.js';
import { toDate, toMillis, toNullableDate, toNullableMillis, toNullableNumber } from './rows.js';
import type { HangarDatabase, UploadUrlsTable } from './schema.js';

function toGrant(row: Selectable<UploadUrlsTable>): UploadUrlGrant {
  return {
    id: row.id,
    userId: row.user_id,
    expiresAt: toDate(row.expires_at),
    maxSizeBytes: toNullableNumber(row.max_size_bytes),
    contentTypes: row.content_types === null ? null : (JSON.parse(row.content_types) as string[]),
    name: row.name,
    isPublic: row.is_public === 1,
    fileExpiresAt: toNullableDate(row.file_expires_at),
    createdAt: toDate(row.created_at),
    resumableUploadId: row.resumable_upload_id,
    apiKeyId: row.api_key_id ?? null,
  };
}

/**
 * {@link UploadUrlRepository} over `upload_urls` (migration 0046). `claim` is one conditional UPDATE
 * (`used_at is null`): the database's row lock orders concurrent claims, on any number of processes,
 * and exactly one of them changes the row.
 */
export class SqlUploadUrlRepository implements UploadUrlRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async insert(grant: UploadUrlGrant): Promise<void> {
    await this.db
      .insertInto('upload_urls')
      .values({
        id: grant.id,
        user_id: grant.userId,
        expires_at: toMillis(grant.expiresAt),
        max_size_bytes: grant.maxSizeBytes,
        content_types: grant.contentTypes === null ? null : JSON.stringify(grant.contentTypes),
        name: grant.name,
        is_public: grant.isPublic ? 1 : 0,
        file_expires_at: toNullableMillis(grant.fileExpiresAt),
        created_at: toMillis(grant.createdAt),
        used_at: null,
        resumable_upload_id: grant.resumableUploadId,
        api_key_id: grant.apiKeyId,
      })
      .execute();
  }

  async find(id: string): Promise<UploadUrlGrant | undefined> {
    const row = await this.db.selectFrom('upload_urls').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toGrant(row);
  }

  async findWithSigningKey(id: string): Promise<{ grant: UploadUrlGrant; signingKey: string | null } | undefined> {
    const row = await this.db
      .selectFrom('upload_urls')
      .innerJoin('users', 'users.id', 'upload_urls.user_id')
      .selectAll('upload_urls')
      .select('users.signing_key')
      .where('upload_urls.id', '=', id)
      .executeTakeFirst();
    return row && { grant: toGrant(row), signingKey: row.signing_key };
  }

  async claim(options: { id: string; now: Date }): Promise<UploadUrlClaim> {
    const result = await this.db
      .updateTable('upload_urls')
      .set({ used_at: toMillis(options.now) })
      .where('id', '=', options.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) return 'claimed';
    const row = await this.db.selectFrom('upload_urls').select('id').where('id', '=', options.id).executeTakeFirst();
    return row ? 'used' : 'not_found';
  }

  async attachResumableUpload(options: { id: string; uploadId: string }): Promise<void> {
    await this.db.updateTable('upload_urls').set({ resumable_upload_id: options.uploadId }).where('id', '=', options.id).execute();
  }

  async release(id: string): Promise<void> {
    await this.db.updateTable('upload_urls').set({ used_at: null }).where('id', '=', id).execute();
  }

  async deleteExpired(before: Date): Promise<number> {
    const result = await this.db.deleteFrom('upload_urls').where('expires_at', '<', toMillis(before)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
