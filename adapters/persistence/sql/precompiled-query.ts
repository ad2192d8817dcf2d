import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import { directReadsOf } from './direct-access.js';
import { type LookupKind, sharedLookupsOf } from './shared-lookups.js';
import type { HangarDatabase } from './schema.js';

/** One parameter of the compiled SQL: an argument of `execute` (by position) or a constant the builder bound. */
type Slot = { argument: number } | { constant: unknown };

/**
 * A query that Kysely builds and compiles once and that then runs with new parameter values, for
 * the lookups on every request's path (an API key by its hash, a user by id, a file by its file
 * id). Building and compiling a query with Kysely costs more than SQLite takes to run an indexed
 * lookup (bench/README.md, "auth"); the SQL text is the same every time, so it is made once.
 *
 * `build` receives the database and one marker value per argument, and must pass each marker to the query builder as a
 * value (`where('key_hash', '=', keyHash)`), never use it in JavaScript: the markers are replaced
 * by the arguments of {@link execute}, position by position, in the compiled parameters.
 * Constants the builder binds itself (a `limit`) are kept.
 * The database is given on each call (a repository's own), and must be the same one every time:
 * the SQL is compiled for its dialect on the first call.
 * Where the database has a direct reader (SQLite, see `registerDirectAccess`), the query runs
 * through it when it can, and through Kysely otherwise. Where it has shared lookups (Postgres, see
 * `registerSharedLookups`), a lookup (`cacheable` or `invalidatedBy`) runs as a named prepared
 * statement, and one with `invalidatedBy` is answered from the process's lookup cache while the
 * change feed has announced no change of its key.
 * @example new PrecompiledQuery((db, hash: string) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash))
 */
export class PrecompiledQuery<Row, Args extends unknown[]> {
  private compiledOnce: { sql: string; slots: Slot[] } | undefined;

  /**
   * @param options.cacheable the query is a lookup whose rows may be answered from the reader's
   *   cache while the database is unchanged (see `DirectReader`; SQLite only): the lookups every
   *   request repeats (an API key by its hash, the user, the custom domain). Its rows must then be
   *   treated as read-only by every caller.
   * @param options.invalidatedBy the kind of key the first argument is (LookupKind): the query is then
   *   also answered from a database's shared lookup cache where one is registered (Postgres,
   *   `registerSharedLookups`), kept until the change feed announces a change of that key. Its rows
   *   are then read-only too.
   */
  constructor(
    private readonly build: (db: Kysely<HangarDatabase>, ...markers: Args) => Compilable<Row>,
    private readonly options: { cacheable?: boolean; invalidatedBy?: LookupKind } = {},
  ) {}

  /**
   * The rows the query returns on `db` for `args`. A cacheable query first waits at the reader's
   * gate when it has one (`CachedReadGate`: at most until the end of the event loop's turn).
   * @throws the driver's error
   */
  async execute(db: Kysely<HangarDatabase>, ...args: Args): Promise<Row[]> {
    const { sql, parameters } = this.bind(db, args);
    const reader = directReadsOf(db);
    if (reader) {
      if (this.options.cacheable) {
        const gate = reader.beforeCachedRead?.();
        if (gate) await gate;
      }
      // The direct reader takes the SQL and parameters as they are: no query object on that path.
      const direct = reader.read(sql, parameters, this.options.cacheable);
      if (direct) return direct as Row[];
    }
    const shared = sharedLookupsOf(db);
    const kind = this.options.invalidatedBy;
    if (shared?.cache && kind) {
      const key = parameters.length === 1 && typeof parameters[0] === 'string' ? `${sql}\u0000${parameters[0]}` : `${sql}\u0000${JSON.stringify(parameters)}`;
      const hit = shared.cache.get(key);
      if (hit) return hit as Row[];
      const stamp = shared.cache.stamp();
      const rows = await this.read(db, sql, parameters);
      shared.cache.put({ stamp, key, tag: `${kind}:${String(args[0])}`, kind, rows });
      return rows;
    }
    return this.read(db, sql, parameters);
  }

  /**
   * Runs the statement: a lookup (cacheable or invalidatedBy, read-only by contract) as a named
   * prepared statement where the database offers it, anything else through Kysely.
   */
  private async read(db: Kysely<HangarDatabase>, sql: string, parameters: unknown[]): Promise<Row[]> {
    const prepared = this.options.cacheable || this.options.invalidatedBy ? sharedLookupsOf(db)?.prepared : undefined;
    if (prepared) return (await prepared(sql, parameters)) as Row[];
    const result = await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters));
    return result.rows;
  }

  /**
   * The statement for `args`, compiled for `db`'s dialect, to run elsewhere (a step of a
   * `TransactionScript`, on a transaction): the SQL compiled once, with this call's parameters.
   */
  compiled(db: Kysely<HangarDatabase>, ...args: Args): CompiledQuery<Row> {
    const { sql, parameters } = this.bind(db, args);
    return CompiledQuery.raw(sql, parameters) as CompiledQuery<Row>;
  }

  /** The SQL (compiled on the first call) and the positional parameters for `args`. */
  private bind(db: Kysely<HangarDatabase>, args: Args): { sql: string; parameters: unknown[] } {
    const { sql, slots } = (this.compiledOnce ??= this.compile(db, args.length));
    return { sql, parameters: slots.map((slot) => ('argument' in slot ? args[slot.argument] : slot.constant)) };
  }

  /** The first row on `db` for `args`, or undefined. */
  async first(db: Kysely<HangarDatabase>, ...args: Args): Promise<Row | undefined> {
    return (await this.execute(db, ...args))[0];
  }

  /** @throws Error when the built query does not use every marker exactly once as a parameter */
  private compile(db: Kysely<HangarDatabase>, arity: number): { sql: string; slots: Slot[] } {
    const markers = Array.from({ length: arity }, (_, i) => `\u0000precompiled-argument-${i}\u0000`);
    const { sql, parameters } = this.build(db, ...(markers as Args)).compile();
    const slots = parameters.map((value): Slot => {
      const argument = typeof value === 'string' ? markers.indexOf(value) : -1;
      return argument >= 0 ? { argument } : { constant: value };
    });
    const used = slots.flatMap((slot) => ('argument' in slot ? [slot.argument] : [])).sort((a, b) => a - b);
    if (used.length !== arity || used.some((argument, i) => argument !== i)) {
      throw new Error(`A precompiled query must bind each of its ${arity} arguments once as a parameter: ${sql}`);
    }
    return { sql, slots };
  }
}
