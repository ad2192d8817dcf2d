import { type Insertable, type Kysely, type Selectable } from 'kysely';
import { isPostgres } from './dialect.js';
import type { ApiKey } from '../../../core/api-keys/api-key.js';
import { KEY_SCOPES, isApiKeyScope } from '../../../core/api-keys/api-key-scopes.js';
import type { ApiKeyRepository } from '../../../core/api-keys/api-key-repository.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { newestFirstPage } from './newest-first.js';
import { toDate, toMillis, toNullableDate, toNullableMillis, toNumber } from './rows.js';
import type { ApiKeysTable, HangarDatabase } from './schema.js';
import { PrecompiledQuery } from './precompiled-query.js';
import type { SqlExecutor } from './sql-executor.js';

function toApiKey(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    keyPrefix: row.key_prefix,
    keyHash: row.key_hash,
    createdAt: toDate(row.created_at),
    lastUsedAt: toNullableDate(row.last_used_at),
    scopes: KEY_SCOPES.filter((scope) => row.scopes.split(' ').includes(scope)),
    expiresAt: toNullableDate(row.expires_at),
  };
}

/** The row of `key` in `api_keys`. */
function rowOf(key: ApiKey): Insertable<ApiKeysTable> {
  return {
    id: key.id,
    user_id: key.userId,
    name: key.name,
    key_prefix: key.keyPrefix,
    key_hash: key.keyHash,
    created_at: toMillis(key.createdAt),
    last_used_at: toNullableMillis(key.lastUsedAt),
    scopes: scopesColumn(key.scopes),
    expires_at: toNullableMillis(key.expiresAt),
  };
}

/** The stored form of a key's scopes: space-separated (RFC 6749 §3.3), known scopes only. */
function scopesColumn(scopes: readonly string[]): string {
  return scopes.filter(isApiKeyScope).join(' ');
}

/**
 * {@link ApiKeyRepository} over `api_keys`. `touch` is one conditional UPDATE: it writes when
 * `last_used_at` is null or at least `minIntervalMs` before `at` (the bound the Authenticate use
 * case checks before calling it).
 */
export class SqlApiKeyRepository implements ApiKeyRepository {
  /** On every API-key request: compiled once. */
  private readonly byHash = new PrecompiledQuery((db, p: { keyHash: string }) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', p.keyHash), {
    cacheable: true,
    invalidatedBy: { kind: 'api_key', key: 'keyHash' },
  });

  /**
   * On every signed URL an API key made (ReadSignedFile): compiled once, kept in the lookup caches
   * (Postgres: tagged with the row's key hash, the value api_keys' change notifications carry).
   */
  private readonly byId = new PrecompiledQuery((db, p: { id: string }) => db.selectFrom('api_keys').selectAll().where('id', '=', p.id), {
    cacheable: true,
    invalidatedBy: { kind: 'api_key', column: 'key_hash' },
  });

  private readonly db: Kysely<HangarDatabase>;

  /** @param executor the database, with the fast paths its adapter offers (SqlExecutor) */
  constructor(private readonly executor: SqlExecutor) {
    this.db = executor.db;
  }

  /** @throws the driver's error on a duplicate id or key hash, or an unknown user (foreign key) */
  async create(key: ApiKey): Promise<void> {
    await this.db.insertInto('api_keys').values(rowOf(key)).execute();
  }

  /**
   * One transaction: the user's row is locked first (Postgres `FOR UPDATE`; on SQLite the
   * transaction holds the write lock from its `BEGIN IMMEDIATE`), so creations for one account take
   * turns and the count each one reads is the one it inserts after. The count uses the
   * `(user_id, created_at, id)` index.
   * @throws the driver's error on a duplicate id or key hash, or an unknown user (foreign key)
   */
  async createWithin(key: ApiKey, options: { maxPerUser: number; now: Date }): Promise<boolean> {
    const now = toMillis(options.now);
    return this.db.transaction().execute(async (trx) => {
      await trx
        .selectFrom('users')
        .select('id')
        .where('id', '=', key.userId)
        .$call((query) => (isPostgres(trx) ? query.forUpdate() : query))
        .executeTakeFirst();
      const { live } = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number | string>().as('live'))
        .where('user_id', '=', key.userId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirstOrThrow();
      if (toNumber(live) >= options.maxPerUser) return false;
      await trx.insertInto('api_keys').values(rowOf(key)).execute();
      return true;
    });
  }

  async findById(id: string): Promise<ApiKey | undefined> {
    const row = await this.byId.first(this.executor, { id });
    return row && toApiKey(row);
  }

  async findByHash(keyHash: string): Promise<ApiKey | undefined> {
    const row = await this.byHash.first(this.executor, { keyHash });
    return row && toApiKey(row);
  }

  async list(options: { userId: string; window: Window }): Promise<Paged<ApiKey>> {
    const { rows, total } = await newestFirstPage<Selectable<ApiKeysTable>>(
      this.db.selectFrom('api_keys').where('user_id', '=', options.userId),
      options.window,
    );
    return { items: rows.map(toApiKey), total };
  }

  async delete(options: { userId: string; id: string }): Promise<boolean> {
    const result = await this.db.deleteFrom('api_keys').where('id', '=', options.id).where('user_id', '=', options.userId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async deleteAllForUser(options: { userId: string }): Promise<number> {
    const result = await this.db.deleteFrom('api_keys').where('user_id', '=', options.userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async touch(options: { id: string; at: Date; minIntervalMs: number }): Promise<void> {
    const at = toMillis(options.at);
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', options.id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', at - options.minIntervalMs)]))
      .execute();
  }
}
