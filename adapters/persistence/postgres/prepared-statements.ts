import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** SQLSTATE of "cached plan must not change result type": the schema changed under a prepared statement. */
const PLAN_RESULT_CHANGED = '0A000';

/**
 * Names of prepared statements by SQL text, shared by every path that prepares (so one text has one
 * name on a connection): `hangar_<24 hex of SHA-256>`. When the schema changed under a prepared
 * statement (a newer release's migration added a column while this process runs), {@link rename}
 * gives the text a new name, prepared afresh on each connection.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private renamed = 0;

  /** The name `sql` is prepared under. */
  of(sql: string): string {
    let name = this.names.get(sql);
    if (!name) this.names.set(sql, (name = this.nameOf(sql, 0)));
    return name;
  }

  /** Gives `sql` a name never used before (see the class). */
  rename(sql: string): void {
    this.names.set(sql, this.nameOf(sql, ++this.renamed));
  }

  private nameOf(sql: string, generation: number): string {
    return `hangar_${createHash('sha256').update(`${generation} ${sql}`).digest('hex').slice(0, 24)}`;
  }
}

/** True when `error` is Postgres saying the schema changed under a prepared statement (see {@link StatementNames}). */
export function planResultChanged(error: unknown): boolean {
  return (error as { code?: unknown }).code === PLAN_RESULT_CHANGED;
}

/**
 * The pool Kysely's PostgresDialect is given: `pool`, except that a statement whose SQL text is in
 * `repeated` (the texts of `PrecompiledQuery`s and the one-statement upload: a bounded set, each run
 * again and again with new values) runs as a named prepared statement, parsed and planned once per
 * connection (node-postgres keeps the names per connection). On Postgres 15 here, the upload's
 * statement took 0.93 ms a round trip unnamed and 0.56 ms named (bench/README.md, "Postgres:
 * prepared statements"). Every other statement (built per request, with lists of varying length)
 * runs unnamed, as before. When the schema changed under a prepared statement, the statement runs
 * again unnamed and its text gets a new name; inside a transaction that retry fails with the
 * transaction (it was aborted by the first error), which rolls back as any failed statement does.
 */
export function preparingPool(pool: pg.Pool, repeated: ReadonlySet<string>, names: StatementNames): PostgresPool {
  return {
    connect: async (): Promise<PostgresPoolClient> => {
      const client = await pool.connect();
      return {
        query: ((textOrCursor: unknown, values?: readonly unknown[]) => {
          if (typeof textOrCursor !== 'string' || !repeated.has(textOrCursor)) return client.query(textOrCursor as never, values as never);
          return runPrepared(client, textOrCursor, values ?? [], names);
        }) as unknown as PostgresPoolClient['query'],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

async function runPrepared(client: pg.PoolClient, text: string, values: readonly unknown[], names: StatementNames): Promise<pg.QueryResult> {
  try {
    return await client.query({ name: names.of(text), text, values: values as unknown[] });
  } catch (error) {
    if (!planResultChanged(error)) throw error;
    names.rename(text);
    return client.query({ text, values: values as unknown[] });
  }
}
