/**
 * `url` (a `postgres://` or `postgresql://` connection string) with its password replaced by
 * `***`, for messages and logs. Kept apart from `postgres-database.ts` so that code naming a
 * database in a message (the admin CLI) does not load the `pg` driver on SQLite.
 */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}
