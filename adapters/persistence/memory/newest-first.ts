/**
 * Orders records newest first: `createdAt` descending, then `id` descending (code-unit order,
 * which equals the databases' byte order for the ASCII UUIDs used as ids).
 */
export function newestFirst(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
