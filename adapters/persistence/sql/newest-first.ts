import type { SelectQueryBuilder } from 'kysely';
import type { Window } from '../../../core/shared/pagination.js';
import { toNumber } from './rows.js';

/**
 * Runs one page of a listing, newest first (`created_at`, then `id`, descending — the order of
 * every list in the spec), together with the count of all matching rows.
 * `query` is a `selectFrom(table).where(…)` over a table that has `created_at` and `id` columns
 * (typed loosely: Kysely cannot express "any table with these columns").
 * @returns the page's rows and the total, in two statements run concurrently
 */
export async function newestFirstPage<Row>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table with created_at and id, which Kysely cannot express
  query: SelectQueryBuilder<any, any, object>,
  window: Window,
): Promise<{ rows: Row[]; total: number }> {
  const [count, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow(),
    query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(window.limit).offset(window.offset).execute(),
  ]);
  return { rows: rows as Row[], total: toNumber(count.total) };
}
