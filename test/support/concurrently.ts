/**
 * Maps `items` through `task` with at most `limit` tasks in flight at once, and resolves with the
 * results in the order of `items` (as `Promise.all(items.map(task))` would, without starting every
 * task at once). For tests that check hundreds of independent queries: on a database behind a
 * connection pool (Postgres, 4 connections in the contract suites) the round trips overlap instead
 * of queueing one behind the other; on an in-process adapter the order of work is unchanged.
 * Rejects with the first task's error; no task starts after it (those under way run to their end).
 * @param limit at least 1
 */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await task(items[index], index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
