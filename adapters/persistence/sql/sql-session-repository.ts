import { type Kysely, type Selectable, sql } from 'kysely';
import type { RefreshToken, RotationResult, Session, SessionRepository } from '../../../core/accounts/session-repository.js';
import { toDate, toMillis, toNullableDate, toNullableMillis } from './rows.js';
import type { HangarDatabase, SessionsTable } from './schema.js';
import { PrecompiledQuery } from './precompiled-query.js';
import type { SqlExecutor } from './sql-executor.js';

function toSession(row: Selectable<SessionsTable>): Session {
  return {
    id: row.id,
    userId: row.user_id,
    createdAt: toDate(row.created_at),
    revokedAt: toNullableDate(row.revoked_at),
    lastUsedAt: toDate(row.last_used_at ?? row.created_at),
    userAgent: row.user_agent,
    ip: row.ip,
    secondFactorAt: toNullableDate(row.second_factor_at),
  };
}

/**
 * {@link SessionRepository} over `sessions` and `refresh_tokens`. `rotate` is a transaction whose
 * first statement is a compare-and-set UPDATE on the old token's `rotated_at` (only while null and
 * the session is live): of several concurrent rotations of one token, in one process or many,
 * exactly one wins and the others see `reused`. A revoked session makes every one of its tokens
 * `invalid`, rotated or not.
 */
export class SqlSessionRepository implements SessionRepository {
  /** On every request with a session token: compiled once. */
  private readonly byId = new PrecompiledQuery((db, p: { id: string }) => db.selectFrom('sessions').selectAll().where('id', '=', p.id), {
    cacheable: true,
    invalidatedBy: { kind: 'session', key: 'id' },
  });

  /** Sessions, then refresh tokens, removed per transaction by `purge`. */
  private readonly purgeChunk: number;

  private readonly db: Kysely<HangarDatabase>;

  /**
   * @param executor the database, with the fast paths its adapter offers (SqlExecutor)
   * @param options.purgeChunk rows `purge` removes per transaction (default {@link PURGE_CHUNK}; tests set it low)
   */
  constructor(
    private readonly executor: SqlExecutor,
    options: { purgeChunk?: number } = {},
  ) {
    this.db = executor.db;
    this.purgeChunk = options.purgeChunk ?? PURGE_CHUNK;
  }

  /** @throws the driver's error on a duplicate id or token hash, or an unknown user; then nothing is stored */
  async create(options: { session: Session; refreshToken: RefreshToken }): Promise<void> {
    const { session, refreshToken } = options;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('sessions')
        .values({
          id: session.id,
          user_id: session.userId,
          created_at: toMillis(session.createdAt),
          revoked_at: toNullableMillis(session.revokedAt),
          last_used_at: toMillis(session.lastUsedAt),
          user_agent: session.userAgent,
          ip: session.ip,
          second_factor_at: toNullableMillis(session.secondFactorAt),
        })
        .execute();
      await trx
        .insertInto('refresh_tokens')
        .values({
          token_hash: refreshToken.tokenHash,
          session_id: session.id,
          created_at: toMillis(refreshToken.createdAt),
          rotated_at: toNullableMillis(refreshToken.rotatedAt),
        })
        .execute();
    });
  }

  async findById(id: string): Promise<Session | undefined> {
    const row = await this.byId.first(this.executor, { id });
    return row && toSession(row);
  }

  /** @throws the driver's error when `next.tokenHash` already exists; the old token is then left current */
  async rotate(options: { tokenHash: string; next: Omit<RefreshToken, 'sessionId'>; sealedSuccessor?: string; now: Date }): Promise<RotationResult> {
    // The UPDATE comes first so that SQLite takes its write lock at once (a read first could not
    // be upgraded under contention) and Postgres locks the token row before anything is decided.
    return this.db.transaction().execute(async (trx): Promise<RotationResult> => {
      const claimed = await trx
        .updateTable('refresh_tokens')
        .set({ rotated_at: toMillis(options.now), sealed_successor: options.sealedSuccessor ?? null })
        .where('token_hash', '=', options.tokenHash)
        .where('rotated_at', 'is', null)
        .where((eb) =>
          eb.exists(
            eb.selectFrom('sessions').select('sessions.id').whereRef('sessions.id', '=', 'refresh_tokens.session_id').where('sessions.revoked_at', 'is', null),
          ),
        )
        .returning('session_id')
        .executeTakeFirst();

      if (claimed) {
        await trx
          .insertInto('refresh_tokens')
          .values({
            token_hash: options.next.tokenHash,
            session_id: claimed.session_id,
            created_at: toMillis(options.next.createdAt),
            rotated_at: toNullableMillis(options.next.rotatedAt),
          })
          .execute();
        const session = await trx.selectFrom('sessions').selectAll().where('id', '=', claimed.session_id).executeTakeFirstOrThrow();
        return { kind: 'rotated', session: toSession(session) };
      }

      const found = await trx
        .selectFrom('refresh_tokens')
        .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
        .selectAll('sessions')
        .select(['refresh_tokens.rotated_at', 'refresh_tokens.sealed_successor'])
        .where('refresh_tokens.token_hash', '=', options.tokenHash)
        .executeTakeFirst();
      if (!found || found.revoked_at !== null || found.rotated_at === null) return { kind: 'invalid' };
      const { rotated_at: rotatedAt, sealed_successor: sealedSuccessor, ...session } = found;
      return { kind: 'reused', session: toSession(session), rotatedAt: toDate(rotatedAt), sealedSuccessor };
    });
  }

  /** One conditional UPDATE (by primary key). */
  async touch(options: { sessionId: string; at: Date; minIntervalMs: number }): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ last_used_at: toMillis(options.at) })
      .where('id', '=', options.sessionId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', toMillis(options.at) - options.minIntervalMs)]))
      .execute();
  }

  async listLive(options: { userId: string; usedSince: Date }): Promise<Session[]> {
    const rows = await this.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', options.userId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb(eb.fn.coalesce('last_used_at', 'created_at'), '>=', toMillis(options.usedSince)))
      .orderBy(sql`coalesce(last_used_at, created_at)`, 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toSession);
  }

  /** Sessions older than migration 0022 that were never used since have `last_used_at` backfilled, so the partial index covers all. */
  async revokeIdle(options: { usedBefore: Date; at: Date }): Promise<number> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: toMillis(options.at) })
      .where('revoked_at', 'is', null)
      .where('last_used_at', '<', toMillis(options.usedBefore))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** One conditional UPDATE (by primary key); the change feed tells every process's lookup cache. */
  async markSecondFactor(options: { sessionId: string; at: Date }): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ second_factor_at: toMillis(options.at) })
      .where('id', '=', options.sessionId)
      .where('revoked_at', 'is', null)
      .where('second_factor_at', 'is', null)
      .execute();
  }

  async revoke(options: { sessionId: string; at: Date }): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: toMillis(options.at) })
      .where('id', '=', options.sessionId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async revokeAllForUser(options: { userId: string; at: Date }): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: toMillis(options.at) })
      .where('user_id', '=', options.userId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /**
   * In short transactions of at most `purgeChunk` sessions (with their refresh tokens) and then
   * `purgeChunk` rotated refresh tokens each, found by the indexes of migration 0009, so that a
   * first purge of millions of rows never holds the write lock long. A session revoked or a token
   * rotated while it runs is left for the next run if it was not yet before `before`.
   */
  async purge(options: { before: Date }): Promise<{ sessions: number; refreshTokens: number }> {
    const before = toMillis(options.before);
    let sessions = 0;
    let refreshTokens = 0;
    for (;;) {
      const removed = await this.db.transaction().execute(async (trx) => {
        const ids = (await trx.selectFrom('sessions').select('id').where('revoked_at', '<', before).limit(this.purgeChunk).execute()).map((row) => row.id);
        if (ids.length === 0) return 0;
        const tokens = await trx.deleteFrom('refresh_tokens').where('session_id', 'in', ids).executeTakeFirst();
        refreshTokens += Number(tokens.numDeletedRows);
        await trx.deleteFrom('sessions').where('id', 'in', ids).execute();
        return ids.length;
      });
      sessions += removed;
      if (removed < this.purgeChunk) break;
    }
    for (;;) {
      const rotated = this.db.selectFrom('refresh_tokens').select('token_hash').where('rotated_at', '<', before).limit(this.purgeChunk);
      const result = await this.db.deleteFrom('refresh_tokens').where('token_hash', 'in', rotated).executeTakeFirst();
      const removed = Number(result.numDeletedRows);
      refreshTokens += removed;
      if (removed < this.purgeChunk) break;
    }
    return { sessions, refreshTokens };
  }
}

/** Default rows per transaction of {@link SqlSessionRepository.purge}: well under every driver's bound-parameter limit. */
export const PURGE_CHUNK = 1_000;
