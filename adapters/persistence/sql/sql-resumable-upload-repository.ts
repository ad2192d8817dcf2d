import { type CompiledQuery, type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import { PrecompiledQuery } from './precompiled-query.js';
import type { QuotaLimits } from '../../../core/files/file-repository.js';
import type { CreateUploadResult, ResumableUpload, ResumableUploadRepository } from '../../../core/files/resumable-upload-repository.js';
import { toDate, toNullableDate, toNullableMillis, toNumber } from './rows.js';
import type { HangarDatabase, ResumableUploadsTable } from './schema.js';

/**
 * {@link ResumableUploadRepository} over `resumable_uploads` and the reservation columns of
 * `account_totals` (migration 0019). `create` and `delete` write both in one transaction; the
 * totals row is the lock that orders them with file inserts (a conditional UPDATE, re-checked by
 * Postgres on the latest row version, serialised by SQLite's write lock), so reservations and files
 * never exceed a plan together. The write lease is a conditional UPDATE of the upload row.
 */
export class SqlResumableUploadRepository implements ResumableUploadRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  // A PATCH runs these (find, take the lease, advance): built once, and on Postgres named prepared
  // statements (parsed once per connection).
  private readonly byId = new PrecompiledQuery((db, p: { id: string }) => db.selectFrom('resumable_uploads').selectAll().where('id', '=', p.id));
  private readonly takeLease = new PrecompiledQuery((db, p: { id: string; offset: number; owner: string; now: number; until: number }) =>
    db
      .updateTable('resumable_uploads')
      .set({ lease_owner: p.owner, leased_until: p.until })
      .where('id', '=', p.id)
      .where('status', '=', 'uploading')
      .where('upload_offset', '=', p.offset)
      .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('leased_until', '<=', p.now)])),
  );
  private readonly renewLease = new PrecompiledQuery((db, p: { id: string; owner: string; until: number }) =>
    db.updateTable('resumable_uploads').set({ leased_until: p.until }).where('id', '=', p.id).where('lease_owner', '=', p.owner),
  );
  private readonly advanceOnly = advanceQuery(false);
  private readonly advanceAndRelease = advanceQuery(true);
  private readonly releaseLease = new PrecompiledQuery((db, p: { id: string; owner: string }) =>
    db.updateTable('resumable_uploads').set({ lease_owner: null, leased_until: null }).where('id', '=', p.id).where('lease_owner', '=', p.owner),
  );

  /** @throws the driver's unique-violation error when `id` or `fileId` is taken (nothing stored then) */
  async create(upload: ResumableUpload, limits: QuotaLimits, options: { maxOpenUploads?: number } = {}): Promise<CreateUploadResult> {
    const maxOpen = options.maxOpenUploads;
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('account_totals')
        .values({ user_id: upload.userId, storage_bytes: 0, files_count: 0 })
        .onConflict((conflict) => conflict.column('user_id').doNothing())
        .execute();
      const claimed = await trx
        .updateTable('account_totals')
        .set({ reserved_bytes: sql<number>`reserved_bytes + ${upload.length}`, reserved_files: sql<number>`reserved_files + 1` })
        .where('user_id', '=', upload.userId)
        .where(sql<SqlBool>`files_count + reserved_files + 1 <= ${limits.fileCountLimit}`)
        .where(sql<SqlBool>`storage_bytes + reserved_bytes + ${upload.length} <= ${limits.storageLimitBytes}`)
        // Reserved files are the unfinished uploads, one each.
        .$if(maxOpen !== undefined, (query) => query.where(sql<SqlBool>`reserved_files + 1 <= ${maxOpen}`))
        .executeTakeFirst();
      if (claimed.numUpdatedRows === 0n) {
        const row = await trx.selectFrom('account_totals').select(['files_count', 'reserved_files']).where('user_id', '=', upload.userId).executeTakeFirst();
        if (maxOpen !== undefined && toNumber(row?.reserved_files ?? 0) + 1 > maxOpen) return 'open_uploads_limit_reached';
        return toNumber(row?.files_count ?? 0) + toNumber(row?.reserved_files ?? 0) + 1 > limits.fileCountLimit
          ? 'file_count_limit_reached'
          : 'storage_limit_reached';
      }
      await trx
        .insertInto('resumable_uploads')
        .values({
          id: upload.id,
          user_id: upload.userId,
          file_id: upload.fileId,
          length: upload.length,
          upload_offset: upload.offset,
          content_type: upload.contentType,
          name: upload.name,
          is_public: upload.isPublic ? 1 : 0,
          file_expires_at: toNullableMillis(upload.fileExpiresAt),
          expires_at: upload.expiresAt.getTime(),
          partial_state: JSON.stringify(upload.state),
          status: upload.status,
          lease_owner: null,
          leased_until: null,
          created_at: upload.createdAt.getTime(),
        })
        .execute();
      return 'inserted' as const;
    });
  }

  async find(id: string): Promise<ResumableUpload | undefined> {
    const row = (await this.db.executeQuery(this.byId.compiled(this.db, { id }))).rows[0];
    return row && toUpload(row);
  }

  async lock(options: { id: string; offset: number; owner: string; now: number; until: number }): Promise<boolean> {
    const { id, offset, owner, now, until } = options;
    return this.updated(this.takeLease.compiled(this.db, { id, offset, owner, now, until }));
  }

  async renew(options: { id: string; owner: string; until: number }): Promise<boolean> {
    return this.updated(this.renewLease.compiled(this.db, { id: options.id, owner: options.owner, until: options.until }));
  }

  async advance(options: { id: string; owner: string; offset: number; state: ResumableUpload['state']; release?: boolean }): Promise<boolean> {
    const params = { id: options.id, owner: options.owner, offset: options.offset, state: JSON.stringify(options.state) };
    return this.updated((options.release ? this.advanceAndRelease : this.advanceOnly).compiled(this.db, params));
  }

  async unlock(options: { id: string; owner: string }): Promise<void> {
    await this.db.executeQuery(this.releaseLease.compiled(this.db, { id: options.id, owner: options.owner }));
  }

  /** Whether `update` changed a row. */
  private async updated(update: CompiledQuery): Promise<boolean> {
    const result = await this.db.executeQuery(update);
    return (result.numAffectedRows ?? 0n) > 0n;
  }

  /** Deletes the upload row first, then releases its reservation: the lock order of FileRepository.insert's completion. */
  async delete(options: { id: string; unleasedAt?: number }): Promise<ResumableUpload | undefined> {
    return this.db.transaction().execute(async (trx) => {
      let query = trx.deleteFrom('resumable_uploads').where('id', '=', options.id);
      const unleasedAt = options.unleasedAt;
      if (unleasedAt !== undefined) query = query.where((eb) => eb.or([eb('lease_owner', 'is', null), eb('leased_until', '<=', unleasedAt)]));
      const row = await query.returningAll().executeTakeFirst();
      if (!row) return undefined;
      const upload = toUpload(row);
      if (upload.status === 'uploading') {
        await trx
          .updateTable('account_totals')
          .set({ reserved_bytes: sql<number>`reserved_bytes - ${upload.length}`, reserved_files: sql<number>`reserved_files - 1` })
          .where('user_id', '=', upload.userId)
          .execute();
      }
      return upload;
    });
  }

  async findExpired(options: { now: Date; limit: number }): Promise<ResumableUpload[]> {
    const rows = await this.db
      .selectFrom('resumable_uploads')
      .selectAll()
      .where('expires_at', '<=', options.now.getTime())
      .orderBy('expires_at')
      .limit(options.limit)
      .execute();
    return rows.map(toUpload);
  }

  async findByUser(options: { userId: string; limit: number }): Promise<ResumableUpload[]> {
    const rows = await this.db.selectFrom('resumable_uploads').selectAll().where('user_id', '=', options.userId).limit(options.limit).execute();
    return rows.map(toUpload);
  }
}

/** The UPDATE of {@link SqlResumableUploadRepository.advance}: the new offset and partial state (JSON), and with `release` the end of the lease. */
function advanceQuery(release: boolean) {
  return new PrecompiledQuery((db, p: { id: string; owner: string; offset: number; state: string }) =>
    db
      .updateTable('resumable_uploads')
      .set({ upload_offset: p.offset, partial_state: p.state, ...(release ? { lease_owner: null, leased_until: null } : {}) })
      .where('id', '=', p.id)
      .where('lease_owner', '=', p.owner)
      .where('status', '=', 'uploading'),
  );
}

function toUpload(row: Selectable<ResumableUploadsTable>): ResumableUpload {
  return {
    id: row.id,
    userId: row.user_id,
    fileId: row.file_id,
    length: toNumber(row.length),
    offset: toNumber(row.upload_offset),
    contentType: row.content_type,
    name: row.name,
    isPublic: row.is_public === 1,
    fileExpiresAt: toNullableDate(row.file_expires_at),
    expiresAt: toDate(row.expires_at),
    state: JSON.parse(row.partial_state) as ResumableUpload['state'],
    status: row.status === 'complete' ? 'complete' : 'uploading',
    createdAt: toDate(row.created_at),
  };
}
