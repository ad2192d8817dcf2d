import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import type { LookupKind } from './shared-lookups.js';
import type { SqlExecutor } from './sql-executor.js';
import type { HangarDatabase } from './schema.js';

/** One parameter of the compiled SQL: a named parameter of `execute`, or a constant the builder bound. */
type Slot = { name: string } | { constant: unknown };

/**
 * SQL texts that run again and again with new values: every {@link PrecompiledQuery}'s (added when
 * it is compiled) and statements an adapter declares with {@link repeatedStatement}. A bounded set
 * (one text per query object and dialect), which a database adapter may prepare once per
 * connection (Postgres: `preparingPool`).
 */
export const REPEATED_STATEMENTS = new Set<string>();

/** Declares `sql` one of the {@link REPEATED_STATEMENTS}. @returns `sql` */
export function repeatedStatement(sql: string): string {
  REPEATED_STATEMENTS.add(sql);
  return sql;
}

/** The named parameters of a {@link PrecompiledQuery}: an object of SQL values. */
export type QueryParameters = Record<string, unknown>;

/** Options of a {@link PrecompiledQuery}. */
export interface PrecompiledQueryOptions<Params extends QueryParameters> {
  /**
   * The query is a lookup whose rows may be answered from the SQLite fast path's cache while the
   * database is unchanged (see `DirectReader`): the lookups every request repeats (an API key by its
   * hash, the user, the custom domain). Its rows must then be treated as read-only by every caller.
   */
  cacheable?: boolean;
  /**
   * The kind of key (LookupKind) parameter `key` is: the query is then also answered from Postgres's
   * shared lookup cache when the executor has one (`SharedLookups.cache`), kept until the change
   * feed announces a change of that key (tag `<kind>:<value of key>`). Its rows are then read-only too.
   * With `column` instead of `key`, the tag's value is that column of the first row found: a lookup
   * by another key than the one notifications name (an API key by id; its changes are announced by
   * its hash). Nothing is kept then when no row is found.
   */
  invalidatedBy?: { kind: LookupKind; key: keyof Params & string } | { kind: LookupKind; column: string };
  /**
   * The best plan depends on the values (a listing's page: a rare search needle wants its index, a
   * common one the list order): the query is left out of {@link REPEATED_STATEMENTS}, so a database
   * that prepares those plans it anew for each execution's values.
   */
  plannedPerExecution?: boolean;
}

/**
 * A query that Kysely builds and compiles once and that then runs with new parameter values, for
 * the lookups and writes on every request's path (an API key by its hash, a user by id, a file by
 * its file id, an upload's statements). Building and compiling a query with Kysely costs more than
 * SQLite takes to run an indexed lookup (bench/README.md, "auth"); the SQL text is the same every
 * time, so it is made once.
 *
 * `build` receives the database and an object of markers, one per named parameter, and must pass
 * each parameter it reads to the query builder as a value (`where('key_hash', '=', p.keyHash)`),
 * never use it in JavaScript: the markers are replaced by the values given to {@link execute} or
 * {@link compiled}, by name, in the compiled parameters. A parameter may be used more than once.
 * Constants the builder binds itself (a `limit`) are kept. The database passed on each call must be
 * of the same dialect every time: the SQL is compiled for it on the first call.
 *
 * How it runs is the executor's ({@link SqlExecutor}): through the SQLite fast path's direct reader
 * when the executor has one and it answers, as a named prepared statement (Postgres, lookups only),
 * from Postgres's shared lookup cache (`invalidatedBy`), or through Kysely.
 * @example new PrecompiledQuery((db, p: { keyHash: string }) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', p.keyHash))
 */
export class PrecompiledQuery<Row, Params extends QueryParameters> {
  private compiledOnce: { sql: string; slots: Slot[] } | undefined;

  constructor(
    private readonly build: (db: Kysely<HangarDatabase>, params: Params) => Compilable<Row>,
    private readonly options: PrecompiledQueryOptions<Params> = {},
  ) {}

  /**
   * The rows the query returns on the executor's database for `params`. A cacheable query first
   * waits at the direct reader's gate when it has one (`CachedReadGate`), a query kept in the shared
   * lookup cache at that cache's gate (`SharedLookupCache.gate`): each at most until the end of the
   * event loop's turn.
   * @throws the driver's error; Error when the built query does not bind each parameter as a value (see the class)
   */
  async execute(executor: SqlExecutor, params: Params): Promise<Row[]> {
    const { sql, parameters } = this.bind(executor.db, params);
    const direct = executor.direct;
    if (direct) {
      if (this.options.cacheable) {
        const gate = direct.beforeCachedRead?.();
        if (gate) await gate;
      }
      // The direct reader takes the SQL and parameters as they are: no query object on that path.
      const rows = direct.read(sql, parameters, this.options.cacheable);
      if (rows) return rows as Row[];
    }
    const cache = executor.lookups?.cache;
    const invalidatedBy = this.options.invalidatedBy;
    if (cache && invalidatedBy) {
      const gate = cache.gate();
      if (gate) await gate;
      const key = parameters.length === 1 && typeof parameters[0] === 'string' ? `${sql}\u0000${parameters[0]}` : `${sql}\u0000${JSON.stringify(parameters)}`;
      const hit = cache.get(key);
      if (hit) return hit as Row[];
      const { kind } = invalidatedBy;
      const tag =
        'key' in invalidatedBy
          ? `${kind}:${String(params[invalidatedBy.key])}`
          : (rows: readonly unknown[]) => {
              const value = (rows[0] as Record<string, unknown> | undefined)?.[invalidatedBy.column];
              return value === undefined || value === null ? undefined : `${kind}:${value as string | number}`;
            };
      return (await cache.load({ key, tag, kind, read: () => this.read(executor, sql, parameters) })) as Row[];
    }
    return this.read(executor, sql, parameters);
  }

  /** The first row for `params`, or undefined. @throws as {@link execute} */
  async first(executor: SqlExecutor, params: Params): Promise<Row | undefined> {
    return (await this.execute(executor, params))[0];
  }

  /**
   * The statement for `params`, compiled for `db`'s dialect, to run elsewhere (a step of a
   * `TransactionScript`, on a transaction): the SQL compiled once, with this call's parameters.
   * @throws Error when the built query does not bind each parameter as a value (see the class)
   */
  compiled(db: Kysely<HangarDatabase>, params: Params): CompiledQuery<Row> {
    const { sql, parameters } = this.bind(db, params);
    return CompiledQuery.raw(sql, parameters);
  }

  /**
   * Runs the statement: a lookup (cacheable or invalidatedBy, read-only by contract) as a named
   * prepared statement where the executor offers it (Postgres), anything else through Kysely.
   */
  private async read(executor: SqlExecutor, sql: string, parameters: unknown[]): Promise<Row[]> {
    const prepared = this.options.cacheable || this.options.invalidatedBy ? executor.lookups?.prepared : undefined;
    if (prepared) return (await prepared(sql, parameters)) as Row[];
    const result = await executor.db.executeQuery<Row>(CompiledQuery.raw(sql, parameters));
    return result.rows;
  }

  /** The SQL (compiled on the first call) and the positional parameters the driver takes for `params`. */
  private bind(db: Kysely<HangarDatabase>, params: Params): { sql: string; parameters: unknown[] } {
    const { sql, slots } = (this.compiledOnce ??= this.compile(db, params));
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      parameters[i] = 'name' in slot ? params[slot.name] : slot.constant;
    }
    return { sql, parameters };
  }

  /**
   * Builds the query with markers in place of the parameters and compiles it.
   * @param example the parameters of the first call: each of them must be bound as a value too
   * @throws Error when a parameter read (or given) is not bound as a value, or appears in the SQL text itself
   */
  private compile(db: Kysely<HangarDatabase>, example: Params): { sql: string; slots: Slot[] } {
    const markerOf = (name: string) => `\u0000precompiled-parameter:${name}\u0000`;
    const read = new Set<string>();
    const markers = new Proxy({} as Params, {
      get: (_target, name) => {
        if (typeof name !== 'string') return undefined;
        read.add(name);
        return markerOf(name);
      },
    });
    const { sql, parameters } = this.build(db, markers).compile();
    const names = new Map([...read].map((name) => [markerOf(name), name]));
    const slots = parameters.map((value): Slot => {
      const name = typeof value === 'string' ? names.get(value) : undefined;
      return name !== undefined ? { name } : { constant: value };
    });
    const bound = new Set(slots.flatMap((slot) => ('name' in slot ? [slot.name] : [])));
    const unbound = [...new Set([...read, ...Object.keys(example)])].filter((name) => !bound.has(name)).sort();
    if (unbound.length > 0 || sql.includes('\u0000precompiled-parameter:')) {
      throw new Error(`A precompiled query must bind each of its parameters as a value (${unbound.join(', ') || 'a marker is in the SQL text'}): ${sql}`);
    }
    if (!this.options.plannedPerExecution) REPEATED_STATEMENTS.add(sql);
    return { sql, slots };
  }
}
