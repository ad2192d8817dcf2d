import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { AccountDirectory, AccountSearch, AccountSort, AccountSummary } from '../../../core/admin/account-directory.js';
import type { Paged } from '../../../core/shared/pagination.js';
import { toNumber } from './rows.js';
import type { HangarDatabase } from './schema.js';
import { toUser } from './sql-user-repository.js';

/** The column each sort orders by (the select's aliases, or users' own columns). */
const SORT_COLUMNS: Record<string, string> = {
  created: 'users.created_at',
  email: 'users.email',
  storage: 'storage_total',
  files: 'files_total',
  last_seen: 'last_seen',
};

/** `%` and `_` of a LIKE pattern taken as themselves (escape character `\`). */
function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * {@link AccountDirectory} over `users`, joined with `account_totals` (one row per account, kept
 * with every file change) and correlated subqueries for the last session use (index on
 * sessions.user_id) and the second factors. It reads no file record. A search is one statement for
 * the page and one for the count; the list is meant for administrators, not for the request path.
 */
export class SqlAccountDirectory implements AccountDirectory {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  private summaries() {
    return this.db
      .selectFrom('users')
      .leftJoin('account_totals', 'account_totals.user_id', 'users.id')
      .selectAll('users')
      .select((eb) => [
        eb.fn.coalesce('account_totals.storage_bytes', sql<number>`0`).as('storage_total'),
        eb.fn.coalesce('account_totals.files_count', sql<number>`0`).as('files_total'),
        eb.fn
          .coalesce(
            eb
              .selectFrom('sessions')
              .select((s) => s.fn.max('sessions.last_used_at').as('m'))
              .whereRef('sessions.user_id', '=', 'users.id'),
            sql<number>`0`,
          )
          .as('last_seen'),
        eb
          .or([
            eb.exists(
              eb
                .selectFrom('totp_factors')
                .select('totp_factors.user_id')
                .whereRef('totp_factors.user_id', '=', 'users.id')
                .where('totp_factors.confirmed_at', 'is not', null),
            ),
            eb.exists(eb.selectFrom('passkeys').select('passkeys.user_id').whereRef('passkeys.user_id', '=', 'users.id')),
          ])
          .as('mfa'),
      ]);
  }

  async search(search: AccountSearch): Promise<Paged<AccountSummary>> {
    const where = (eb: ExpressionBuilder<HangarDatabase, 'users'>) => {
      const conditions = [];
      if (search.query) conditions.push(sql<boolean>`users.email like ${`%${likeEscaped(search.query.trim().toLowerCase())}%`} escape '\\'`);
      if (search.status === 'active') conditions.push(eb('users.suspended_at', 'is', null));
      if (search.status === 'suspended') conditions.push(eb('users.suspended_at', 'is not', null));
      if (search.status === 'unconfirmed') conditions.push(eb('users.email_confirmed_at', 'is', null));
      if (search.plan !== undefined) conditions.push(eb('users.plan_name', '=', search.plan));
      if (search.role !== undefined) conditions.push(eb('users.role', '=', search.role));
      return eb.and(conditions);
    };
    const { column, direction } = orderOf(search.sort);
    const [count, rows] = await Promise.all([
      this.db
        .selectFrom('users')
        .where(where)
        .select((eb) => eb.fn.countAll().as('total'))
        .executeTakeFirstOrThrow(),
      this.summaries()
        .where(where)
        .orderBy(sql.ref(column), direction)
        .orderBy('users.id', direction)
        .limit(search.window.limit)
        .offset(search.window.offset)
        .execute(),
    ]);
    return { items: rows.map(toSummary), total: toNumber(count.total) };
  }

  async summary(userId: string): Promise<AccountSummary | undefined> {
    const row = await this.summaries().where('users.id', '=', userId).executeTakeFirst();
    return row && toSummary(row);
  }
}

function orderOf(sort: AccountSort): { column: string; direction: 'asc' | 'desc' } {
  const descending = sort.startsWith('-');
  return { column: SORT_COLUMNS[descending ? sort.slice(1) : sort], direction: descending ? 'desc' : 'asc' };
}

function toSummary(row: Parameters<typeof toUser>[0] & { storage_total: unknown; files_total: unknown; last_seen: unknown; mfa: unknown }): AccountSummary {
  const lastSeen = toNumber(row.last_seen as number);
  return {
    user: toUser(row),
    storageBytes: toNumber(row.storage_total as number),
    filesCount: toNumber(row.files_total as number),
    lastSeenAt: lastSeen === 0 ? null : new Date(lastSeen),
    mfaEnabled: row.mfa === true || Number(row.mfa) === 1,
  };
}
