import { type Kysely, type Selectable, type Updateable, sql } from 'kysely';
import type { OneTimeTokenPurpose } from '../../../core/accounts/one-time-token-repository.js';
import type { Role, User } from '../../../core/accounts/user.js';
import type { AdminAccountChanges, UserRepository } from '../../../core/accounts/user-repository.js';
import { DEFAULT_IMAGE_METADATA_MODE, type ImageMetadataMode, isImageMetadataMode } from '../../../core/files/image-metadata/image-metadata-mode.js';
import { isPostgres } from './dialect.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { toDate, toMillis, toNullableDate, toNullableMillis, toNullableNumber, toNumber } from './rows.js';
import type { HangarDatabase, UsersTable } from './schema.js';
import { PrecompiledQuery } from './precompiled-query.js';
import type { SqlExecutor } from './sql-executor.js';

/** A `users` row as the core's {@link User}. */
export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    emailConfirmedAt: toNullableDate(row.email_confirmed_at),
    maxUploadSizeBytes: toNullableNumber(row.max_upload_size_bytes),
    // A row read on a schema before migration 0048 (upgrade tests) lacks the column: the default.
    imageMetadata: isImageMetadataMode(row.image_metadata) ? row.image_metadata : DEFAULT_IMAGE_METADATA_MODE,
    lastEmailSentAt: toNullableDate(row.last_email_sent_at),
    lastResetEmailSentAt: toNullableDate(row.last_reset_email_sent_at),
    planName: row.plan_name,
    trialEndsAt: toNullableDate(row.trial_ends_at),
    accessUntil: toNullableDate(row.access_until),
    subscriptionCanceledAt: toNullableDate(row.subscription_canceled_at),
    role: row.role === 'admin' ? 'admin' : 'user',
    // `?? null`: a row read on a schema before migration 0045 (upgrade tests) lacks these columns.
    suspendedAt: toNullableDate(row.suspended_at ?? null),
    storageLimitBytes: toNullableNumber(row.storage_limit_bytes ?? null),
    fileCountLimit: toNullableNumber(row.file_count_limit ?? null),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/**
 * {@link UserRepository} over the `users` table (SQLite or Postgres through Kysely). Every write
 * is one statement but `applyAdminChanges` (one transaction, see there); `claimEmailSlot` is a
 * conditional UPDATE, so two processes never both claim.
 * `delete` removes the row and leaves the rest to the schema's ON DELETE CASCADE foreign keys
 * (SQLite needs `foreign_keys=ON`, which openSqliteDatabase sets). Updates of an unknown user id
 * change nothing. Driver errors (database down, disk full) reject as they are.
 */
export class SqlUserRepository implements UserRepository {
  /** On most requests (the account's plan and settings): compiled once. */
  private readonly byId = new PrecompiledQuery((db, p: { id: string }) => db.selectFrom('users').selectAll().where('id', '=', p.id), {
    cacheable: true,
    invalidatedBy: { kind: 'account', key: 'id' },
  });

  private readonly db: Kysely<HangarDatabase>;

  /** @param executor the database, with the fast paths its adapter offers (SqlExecutor) */
  constructor(private readonly executor: SqlExecutor) {
    this.db = executor.db;
  }

  /** @throws the driver's unique-violation error when the `id` exists (a caller bug); a taken e-mail resolves false */
  async create(user: User): Promise<boolean> {
    const result = await this.db
      .insertInto('users')
      .values({
        id: user.id,
        email: user.email,
        password_hash: user.passwordHash,
        email_confirmed_at: toNullableMillis(user.emailConfirmedAt),
        max_upload_size_bytes: user.maxUploadSizeBytes,
        last_email_sent_at: toNullableMillis(user.lastEmailSentAt),
        last_reset_email_sent_at: toNullableMillis(user.lastResetEmailSentAt),
        plan_name: user.planName,
        trial_ends_at: toNullableMillis(user.trialEndsAt),
        access_until: toNullableMillis(user.accessUntil),
        subscription_canceled_at: toNullableMillis(user.subscriptionCanceledAt),
        // The columns of migration 0045 are written only when they differ from their defaults, so
        // an account is created the same way on a schema that predates them (the upgrade tests
        // create accounts on earlier schemas, then migrate).
        ...(user.role !== 'user' && { role: user.role }),
        ...(user.suspendedAt !== null && { suspended_at: toMillis(user.suspendedAt) }),
        ...(user.storageLimitBytes !== null && { storage_limit_bytes: user.storageLimitBytes }),
        ...(user.fileCountLimit !== null && { file_count_limit: user.fileCountLimit }),
        ...(user.imageMetadata !== DEFAULT_IMAGE_METADATA_MODE && { image_metadata: user.imageMetadata }),
        created_at: toMillis(user.createdAt),
        updated_at: toMillis(user.updatedAt),
      })
      .onConflict((conflict) => conflict.column('email').doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async findById(id: string): Promise<User | undefined> {
    const row = await this.byId.first(this.executor, { id });
    return row && toUser(row);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return row && toUser(row);
  }

  async markEmailConfirmed(options: { userId: string; at: Date }): Promise<void> {
    const at = toMillis(options.at);
    await this.db
      .updateTable('users')
      .set({ email_confirmed_at: sql<number>`coalesce(email_confirmed_at, ${at})`, updated_at: at })
      .where('id', '=', options.userId)
      .execute();
  }

  async setPasswordHash(options: { userId: string; passwordHash: string; at: Date }): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ password_hash: options.passwordHash, updated_at: toMillis(options.at) })
      .where('id', '=', options.userId)
      .execute();
  }

  async setMaxUploadSize(options: { userId: string; maxUploadSizeBytes: number | null; at: Date }): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ max_upload_size_bytes: options.maxUploadSizeBytes, updated_at: toMillis(options.at) })
      .where('id', '=', options.userId)
      .execute();
  }

  async setImageMetadata(options: { userId: string; mode: ImageMetadataMode; at: Date }): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ image_metadata: options.mode, updated_at: toMillis(options.at) })
      .where('id', '=', options.userId)
      .execute();
  }

  async setPlan(options: { userId: string; planName: string; trialEndsAt: Date | null; at: Date }): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ plan_name: options.planName, trial_ends_at: toNullableMillis(options.trialEndsAt), updated_at: toMillis(options.at) })
      .where('id', '=', options.userId)
      .execute();
  }

  async setSubscription(options: { userId: string; accessUntil?: Date | null; subscriptionCanceledAt?: Date | null; at: Date }): Promise<void> {
    const changes: Updateable<UsersTable> = { updated_at: toMillis(options.at) };
    if (options.accessUntil !== undefined) changes.access_until = toNullableMillis(options.accessUntil);
    if (options.subscriptionCanceledAt !== undefined) changes.subscription_canceled_at = toNullableMillis(options.subscriptionCanceledAt);
    await this.db.updateTable('users').set(changes).where('id', '=', options.userId).execute();
  }

  async setRole(options: { userId: string; role: Role; at: Date }): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ role: options.role, updated_at: toMillis(options.at) })
      .where('id', '=', options.userId)
      .execute();
  }

  async setSuspended(options: { userId: string; suspendedAt: Date | null; at: Date }): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ suspended_at: toNullableMillis(options.suspendedAt), updated_at: toMillis(options.at) })
      .where('id', '=', options.userId)
      .execute();
  }

  async setLimits(options: { userId: string; storageLimitBytes?: number | null; fileCountLimit?: number | null; at: Date }): Promise<void> {
    const changes: Updateable<UsersTable> = { updated_at: toMillis(options.at) };
    if (options.storageLimitBytes !== undefined) changes.storage_limit_bytes = options.storageLimitBytes;
    if (options.fileCountLimit !== undefined) changes.file_count_limit = options.fileCountLimit;
    await this.db.updateTable('users').set(changes).where('id', '=', options.userId).execute();
  }

  async countActiveAdmins(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('total'))
      .where('role', '=', 'admin')
      .where('suspended_at', 'is', null)
      .executeTakeFirstOrThrow();
    return toNumber(row.total);
  }

  /**
   * One transaction. With `keepAnAdmin` it first reads the active administrators' rows, ordered by
   * id and locked (Postgres `FOR UPDATE`, so two such transactions take turns and the second one
   * re-reads the rows the first changed; on SQLite the transaction holds the write lock from its
   * `BEGIN IMMEDIATE`), then writes every field in one UPDATE.
   */
  async applyAdminChanges(options: {
    userId: string;
    changes: AdminAccountChanges;
    keepAnAdmin: boolean;
    at: Date;
  }): Promise<'applied' | 'last_admin' | 'not_found'> {
    const c = options.changes;
    const set: Updateable<UsersTable> = { updated_at: toMillis(options.at) };
    if (c.planName !== undefined) set.plan_name = c.planName;
    if (c.trialEndsAt !== undefined) set.trial_ends_at = toNullableMillis(c.trialEndsAt);
    if (c.role !== undefined) set.role = c.role;
    if (c.suspendedAt !== undefined) set.suspended_at = toNullableMillis(c.suspendedAt);
    if (c.maxUploadSizeBytes !== undefined) set.max_upload_size_bytes = c.maxUploadSizeBytes;
    if (c.storageLimitBytes !== undefined) set.storage_limit_bytes = c.storageLimitBytes;
    if (c.fileCountLimit !== undefined) set.file_count_limit = c.fileCountLimit;
    return this.db.transaction().execute(async (trx) => {
      if (options.keepAnAdmin) {
        const admins = await trx
          .selectFrom('users')
          .select('id')
          .where('role', '=', 'admin')
          .where('suspended_at', 'is', null)
          .orderBy('id')
          .$call((query) => (isPostgres(trx) ? query.forUpdate() : query))
          .execute();
        if (admins.some((row) => row.id === options.userId) && admins.length <= 1) return 'last_admin';
      }
      const result = await trx.updateTable('users').set(set).where('id', '=', options.userId).executeTakeFirst();
      return (result.numUpdatedRows ?? 0n) > 0n ? 'applied' : 'not_found';
    });
  }

  async list(options: { window: Window }): Promise<Paged<User>> {
    const [count, rows] = await Promise.all([
      this.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('total'))
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('users')
        .selectAll()
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(options.window.limit)
        .offset(options.window.offset)
        .execute(),
    ]);
    return { items: rows.map(toUser), total: toNumber(count.total) };
  }

  async delete(userId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async claimEmailSlot(options: { userId: string; purpose: OneTimeTokenPurpose; now: Date; minIntervalMs: number }): Promise<boolean> {
    const now = toMillis(options.now);
    const slot = options.purpose === 'email_confirmation' ? 'last_email_sent_at' : 'last_reset_email_sent_at';
    const result = await this.db
      .updateTable('users')
      .set({ [slot]: now })
      .where('id', '=', options.userId)
      .where((eb) => eb.or([eb(slot, 'is', null), eb(slot, '<=', now - options.minIntervalMs)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
