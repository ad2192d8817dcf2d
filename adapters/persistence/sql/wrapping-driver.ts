import type { DatabaseConnection, DatabaseIntrospector, Dialect, DialectAdapter, Driver, Kysely, QueryCompiler, TransactionSettings } from 'kysely';

/** `dialect` with its driver wrapped by `wrap` (adapter, query compiler and introspector unchanged). */
export function withWrappedDriver(dialect: Dialect, wrap: (driver: Driver) => Driver): Dialect {
  return {
    createAdapter: (): DialectAdapter => dialect.createAdapter(),
    createDriver: (): Driver => wrap(dialect.createDriver()),
    createQueryCompiler: (): QueryCompiler => dialect.createQueryCompiler(),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Dialect interface declares this parameter Kysely<any>
    createIntrospector: (db: Kysely<any>): DatabaseIntrospector => dialect.createIntrospector(db),
  };
}

/**
 * A Kysely driver that hands out its own connection objects (`wrap`) around those of `inner`, and
 * passes every call on to `inner` with the connection unwrapped. Subclasses override the calls
 * they watch (write-observer.ts, group-commit.ts) and call `super` for the passing on.
 */
export abstract class WrappingDriver<C extends DatabaseConnection> implements Driver {
  private readonly inners = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(protected readonly inner: Driver) {}

  /** This driver's connection around `connection` (one of `inner`'s). */
  protected abstract wrap(connection: DatabaseConnection): C;

  /** `inner`'s connection under `connection` (itself when it is not one of this driver's). */
  protected unwrap(connection: DatabaseConnection): DatabaseConnection {
    return this.inners.get(connection) ?? connection;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    const wrapped = this.wrap(connection);
    this.inners.set(wrapped, connection);
    return wrapped;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(this.unwrap(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(this.unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(this.unwrap(connection));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    return this.inner.savepoint!(this.unwrap(connection), name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2]): Promise<void> {
    return this.inner.rollbackToSavepoint!(this.unwrap(connection), name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2]): Promise<void> {
    return this.inner.releaseSavepoint!(this.unwrap(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
