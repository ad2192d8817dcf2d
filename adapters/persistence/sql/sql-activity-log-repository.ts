import { type Kysely, type Selectable, sql } from 'kysely';
import type { ActivityLogEntry, ActivityLogRepository } from '../../../core/activity/activity-log.js';
import type { Paged, Window } from '../../../core/shared/pagination.js';
import { newestFirstPage } from './newest-first.js';
import { toDate, toMillis, toNullableNumber, toNumber } from './rows.js';
import type { ActivityLogsTable, HangarDatabase } from './schema.js';

/**
 * Rows per INSERT statement, largest first: a batch is cut into statements of these sizes only, so
 * every statement's SQL is one of five texts, which the database layer prepares once and reuses
 * (preparing a 500-row statement cost 5 µs a row). 8 parameters a row, far below SQLite's and
 * Postgres's parameter limits.
 */
const INSERT_SIZES = [500, 100, 20, 5, 1] as const;

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
 * `insertMany` is one transaction of `INSERT … SELECT … WHERE EXISTS (the user)` statements: the
 * first statement is a write (SQLite takes its write lock at once), and entries of deleted
 * accounts are skipped without a foreign-key error. (On Postgres an account deleted between the
 * EXISTS and the foreign-key check still fails the batch; nothing is written then, and the
 * recorder's retry skips the entry.)
 */
export class SqlActivityLogRepository implements ActivityLogRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  /** @throws the driver's unique-violation error when an `id` exists already; nothing is stored then */
  async insertMany(entries: readonly ActivityLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      let start = 0;
      for (const size of insertSizes(entries.length)) {
        // Casts type the VALUES columns for Postgres (they would be text otherwise); SQLite and
        // Postgres both name them column1, column2…
        const rows = entries.slice(start, (start += size)).map(
          (e) => sql`(
            cast(${e.id} as text), cast(${e.userId} as text), cast(${e.method} as text), cast(${e.path} as text),
            cast(${e.statusCode} as integer), cast(${e.requestSizeBytes} as bigint), cast(${toMillis(e.createdAt)} as bigint),
            cast(${JSON.stringify(e.metadata)} as text)
          )`,
        );
        await sql`
          insert into activity_logs (id, user_id, method, path, status_code, request_size_bytes, created_at, metadata)
          select v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8
          from (values ${sql.join(rows)}) as v
          where exists (select 1 from users where users.id = v.column2)
        `.execute(trx);
      }
    });
  }

  async list(options: { userId: string; window: Window }): Promise<Paged<ActivityLogEntry>> {
    const { rows, total } = await newestFirstPage<Selectable<ActivityLogsTable>>(
      this.db.selectFrom('activity_logs').where('user_id', '=', options.userId),
      options.window,
    );
    return { items: rows.map(toEntry), total };
  }

  async deleteBefore(before: Date): Promise<number> {
    const result = await this.db.deleteFrom('activity_logs').where('created_at', '<', toMillis(before)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
