import { CompiledQuery, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import type { ActivityKind, ActivityLogEntry, ActivityPosition } from '../../../core/activity/activity-log.js';
import type { ActivityLogRepository } from '../../../core/activity/activity-log-repository.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import type { SqlExecutor } from './sql-executor.js';
import { repeatedStatement } from './precompiled-query.js';
import { toDate, toMillis, toNullableNumber, toNumber } from './rows.js';
import type { ActivityLogsTable, HangarDatabase } from './schema.js';

/**
 * Rows per INSERT statement, largest first: a batch is cut into statements of these sizes only, so
 * every statement's SQL is one of five texts, which the database layer prepares once and reuses
 * (preparing a statement of hundreds of rows costs more than inserting them). 8 parameters a row, far below SQLite's and
 * Postgres's parameter limits.
 */
const INSERT_SIZES = [500, 100, 20, 5, 1] as const;

/** Parameters of one row of the INSERT: id, user_id, method, path, status_code, request_size_bytes, created_at, metadata. */
const ROW_PARAMETERS = 8;

/**
 * The `actions` kind as SQL, written out (not bound parameters) so that the partial index of
 * migration 0017, whose predicate is exactly this text, serves it. Mirrors READ_METHODS.
 */
const ACTIONS_SQL = sql<boolean>`method not in ('GET', 'HEAD', 'OPTIONS')`;
const READS_SQL = sql<boolean>`method in ('GET', 'HEAD', 'OPTIONS')`;

/** Entries deleted per statement (and transaction) when pruning or deleting an account's log: short transactions, bounded memory for the returned account ids. */
const PRUNE_CHUNK = 5000;

/**
 * How many of `userIds` each account has, as [account id, count] pairs sorted by account id: the
 * order in which a transaction touches `activity_log_totals` rows, so concurrent transactions (several
 * processes) lock them alike.
 */
function countByAccount(userIds: Iterable<string>): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const userId of userIds) counts.set(userId, (counts.get(userId) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `count` cut into INSERT_SIZES, largest first (e.g. 1,234 → 500, 500, 100, 100, 20, 5, 5, 1, 1, 1, 1). */
function insertSizes(count: number): number[] {
  const sizes: number[] = [];
  for (const size of INSERT_SIZES) for (; count >= size; count -= size) sizes.push(size);
  return sizes;
}

function toEntry(row: Selectable<ActivityLogsTable>): ActivityLogEntry {
  return {
    id: row.id,
    userId: row.user_id,
    method: row.method,
    path: row.path,
    statusCode: toNumber(row.status_code),
    requestSizeBytes: toNullableNumber(row.request_size_bytes),
    createdAt: toDate(row.created_at),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

/**
 * {@link ActivityLogRepository} over `activity_logs`. `metadata` is stored as JSON text, so it
 * comes back as JSON gives it (a Date as its ISO string, undefined members left out).
 * `insertMany` is one transaction of `INSERT … SELECT … WHERE EXISTS (the user)` statements (SQL
 * compiled once per statement size, parameters bound per batch; on Postgres named prepared statements,
 * `repeatedStatement`): entries of deleted accounts are skipped without a foreign-key error. The same transaction adds each account's entries to
 * `activity_log_totals` (migration 0008, with the same EXISTS), and pruning subtracts what it deletes,
 * so `list` reads its total instead of counting the account's entries. On SQLite with a database file the transaction runs on the
 * WAL worker's connection (`SqlExecutor.batch`): a 1,000-row batch is ~20 ms of SQLite work that would
 * otherwise stall every request in flight on the event loop (decision 0001 in docs/decisions/). On Postgres an account deleted between the
 * EXISTS and the foreign-key check (READ COMMITTED: the EXISTS saw the row the deletion was removing)
 * fails the batch with a foreign-key violation; nothing is written then, and the batch is tried once
 * more, when the EXISTS no longer sees the account.
 */
export class SqlActivityLogRepository implements ActivityLogRepository {
  private readonly db: Kysely<HangarDatabase>;

  /** @param executor the database, with the fast paths its adapter offers (SqlExecutor) */
  constructor(private readonly executor: SqlExecutor) {
    this.db = executor.db;
  }

  /** The INSERT statement's SQL for each of INSERT_SIZES, compiled for this database once. */
  private readonly insertSql = new Map<number, string>();

  /**
   * @throws the driver's unique-violation error when an `id` exists already, DATABASE_UNAVAILABLE
   *         on an outage; nothing is stored then
   */
  async insertMany(entries: readonly ActivityLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const statements: CompiledQuery[] = [];
    let start = 0;
    for (const size of insertSizes(entries.length)) {
      const parameters: unknown[] = [];
      for (const e of entries.slice(start, (start += size))) {
        parameters.push(e.id, e.userId, e.method, e.path, e.statusCode, e.requestSizeBytes, toMillis(e.createdAt), JSON.stringify(e.metadata));
      }
      statements.push(CompiledQuery.raw(this.insertSqlOf(size), parameters));
    }
    for (const [userId, count] of countByAccount(entries.map((e) => e.userId)))
      statements.push(CompiledQuery.raw(this.addToTotalSql(), [userId, count, userId]));
    // On SQLite with a file, a worker thread's connection writes the batch (SqlExecutor.batch).
    try {
      await this.executor.batch(statements);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      await this.executor.batch(statements);
    }
  }

  private totalSql: string | undefined;

  /** The SQL that adds entries to an account's total, if the account exists; parameters: user id, entries, user id. */
  private addToTotalSql(): string {
    this.totalSql ??= repeatedStatement(
      sql`
      insert into activity_log_totals (user_id, entries)
      select cast(${''} as text), cast(${0} as bigint)
      where exists (select 1 from users where users.id = cast(${''} as text))
      on conflict (user_id) do update set entries = activity_log_totals.entries + excluded.entries
    `.compile(this.db).sql,
    );
    return this.totalSql;
  }

  /** The SQL of an INSERT of `size` rows; its parameters are each row's ROW_PARAMETERS values in order. */
  private insertSqlOf(size: number): string {
    let text = this.insertSql.get(size);
    if (text === undefined) {
      // Casts type the VALUES columns for Postgres (they would be text otherwise); SQLite and
      // Postgres both name them column1, column2…
      const row = sql`(
        cast(${''} as text), cast(${''} as text), cast(${''} as text), cast(${''} as text),
        cast(${0} as integer), cast(${0} as bigint), cast(${0} as bigint), cast(${''} as text)
      )`;
      const compiled = sql`
        insert into activity_logs (id, user_id, method, path, status_code, request_size_bytes, created_at, metadata)
        select v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8
        from (values ${sql.join(Array.from({ length: size }, () => row))}) as v
        where exists (select 1 from users where users.id = v.column2)
      `.compile(this.db);
      if (compiled.parameters.length !== size * ROW_PARAMETERS)
        throw new Error(`activity_logs insert of ${size} rows compiled with ${compiled.parameters.length} parameters`);
      // One of a few texts run again and again: on Postgres a named statement, parsed and planned once per connection.
      text = repeatedStatement(compiled.sql);
      this.insertSql.set(size, text);
    }
    return text;
  }

  /**
   * The page on `(user_id, created_at, id)` (a `before` position is a range on that index). The
   * total of `all` is read from `activity_log_totals` (one row); a kind's total is counted on the
   * account's entries.
   */
  async list(options: { userId: string; window: Window; kind?: ActivityKind; before?: ActivityPosition }): Promise<Paged<ActivityLogEntry>> {
    const kind = options.kind ?? 'all';
    let query = this.db.selectFrom('activity_logs').where('user_id', '=', options.userId);
    if (kind === 'actions') query = query.where(ACTIONS_SQL);
    if (kind === 'reads') query = query.where(READS_SQL);
    let page = query;
    const before = options.before;
    if (before) {
      const at = toMillis(before.createdAt);
      page = page.where((eb) => eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', before.id)])]));
    }
    const [rows, total] = await Promise.all([
      page.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.window.limit).offset(options.window.offset).execute(),
      kind === 'all'
        ? this.db
            .selectFrom('activity_log_totals')
            .select('entries')
            .where('user_id', '=', options.userId)
            .executeTakeFirst()
            .then((row) => (row ? toNumber(row.entries) : 0))
        : query
            .select((eb) => eb.fn.countAll().as('entries'))
            .executeTakeFirst()
            .then((row) => (row ? toNumber(row.entries) : 0)),
    ]);
    return { items: rows.map(toEntry), total };
  }

  /** Deletes the entries created before `before`, in steps (see {@link deleteWhere}). */
  deleteBefore(before: Date): Promise<number> {
    const cutoff = toMillis(before);
    return this.deleteWhere((eb) => eb('created_at', '<', cutoff));
  }

  /** Deletes the account's entries, in steps found through the index on `(user_id, created_at, id)` (see {@link deleteWhere}). */
  deleteForAccount(userId: string): Promise<number> {
    return this.deleteWhere((eb) => eb('user_id', '=', userId));
  }

  /**
   * Deletes the entries that `condition` selects in transactions of at most PRUNE_CHUNK entries,
   * each subtracting from the accounts' totals exactly the entries it deleted (`RETURNING`, so two
   * processes deleting at once never subtract one entry twice). @returns how many were deleted
   */
  private async deleteWhere(condition: (eb: ExpressionBuilder<HangarDatabase, 'activity_logs'>) => Expression<SqlBool>): Promise<number> {
    let deleted = 0;
    for (;;) {
      const count = await this.db.transaction().execute(async (trx) => {
        const rows = await trx
          .deleteFrom('activity_logs')
          .where('id', 'in', (eb) => eb.selectFrom('activity_logs').select('id').where(condition).limit(PRUNE_CHUNK))
          .returning('user_id')
          .execute();
        for (const [userId, count] of countByAccount(rows.map((row) => row.user_id))) {
          await trx
            .updateTable('activity_log_totals')
            .set({ entries: sql<number>`entries - ${count}` })
            .where('user_id', '=', userId)
            .execute();
        }
        return rows.length;
      });
      deleted += count;
      if (count < PRUNE_CHUNK) return deleted;
    }
  }
}

/** Whether `error` is Postgres's foreign_key_violation (SQLSTATE 23503): an account deleted while its entries were being written. */
function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503';
}
