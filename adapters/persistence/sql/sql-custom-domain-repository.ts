import type { Kysely, Selectable } from 'kysely';
import type { CustomDomain, DnsRecord } from '../../../core/domains/custom-domain.js';
import type { CustomDomainRepository } from '../../../core/domains/custom-domain-repository.js';
import { toDate, toMillis } from './rows.js';
import type { CustomDomainsTable, HangarDatabase } from './schema.js';
import { PrecompiledQuery } from './precompiled-query.js';
import type { SqlExecutor } from './sql-executor.js';

/** The unique index that keeps a hostname to one account (migration 0004). */
const HOSTNAME_UNIQUE_INDEX = 'custom_domains_hostname_unique';

function toCustomDomain(row: Selectable<CustomDomainsTable>): CustomDomain {
  return {
    userId: row.user_id,
    hostname: row.hostname,
    providerId: row.provider_id,
    verificationStatus: row.verification_status,
    sslStatus: row.ssl_status,
    dnsRecords: JSON.parse(row.dns_records) as DnsRecord[],
    errors: JSON.parse(row.errors) as string[],
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/**
 * True when `error` is the driver's unique violation of the hostname index: better-sqlite3's
 * `SQLITE_CONSTRAINT_UNIQUE` ("UNIQUE constraint failed: custom_domains.hostname") or
 * node-postgres's SQLSTATE `23505` on `custom_domains_hostname_unique`.
 */
export function isHostnameUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') return typeof message === 'string' && message.includes('custom_domains.hostname');
  if (code === '23505') return constraint === HOSTNAME_UNIQUE_INDEX;
  return false;
}

/**
 * {@link CustomDomainRepository} over `custom_domains` (SQLite or Postgres through Kysely).
 * `save` is one `INSERT … ON CONFLICT (user_id) DO UPDATE`: it replaces the account's row, and the
 * unique index on `hostname` refuses a hostname another account holds, which answers `taken`
 * (nothing written), also when two accounts race. DNS records and errors are stored as JSON text.
 * The row goes with its user (ON DELETE CASCADE).
 */
export class SqlCustomDomainRepository implements CustomDomainRepository {
  /** On every request that shows addresses: compiled once. */
  private readonly byUser = new PrecompiledQuery((db, p: { userId: string }) => db.selectFrom('custom_domains').selectAll().where('user_id', '=', p.userId), {
    cacheable: true,
    invalidatedBy: { kind: 'domain_of', key: 'userId' },
  });
  /** On every content read on a custom hostname whose answer HostnameDirectory does not hold: compiled once. */
  private readonly byHostname = new PrecompiledQuery(
    (db, p: { hostname: string }) => db.selectFrom('custom_domains').selectAll().where('hostname', '=', p.hostname),
    {
      cacheable: true,
      invalidatedBy: { kind: 'hostname', key: 'hostname' },
    },
  );

  private readonly db: Kysely<HangarDatabase>;

  /** @param executor the database, with the fast paths its adapter offers (SqlExecutor) */
  constructor(private readonly executor: SqlExecutor) {
    this.db = executor.db;
  }

  async findByUser(userId: string): Promise<CustomDomain | undefined> {
    const row = await this.byUser.first(this.executor, { userId });
    return row && toCustomDomain(row);
  }

  async findByHostname(hostname: string): Promise<CustomDomain | undefined> {
    const row = await this.byHostname.first(this.executor, { hostname });
    return row && toCustomDomain(row);
  }

  /** @throws the driver's error for anything but a taken hostname, e.g. an unknown user (foreign key) */
  async save(domain: CustomDomain): Promise<'saved' | 'taken'> {
    const row = {
      user_id: domain.userId,
      hostname: domain.hostname,
      provider_id: domain.providerId,
      verification_status: domain.verificationStatus,
      ssl_status: domain.sslStatus,
      dns_records: JSON.stringify(domain.dnsRecords),
      errors: JSON.stringify(domain.errors),
      created_at: toMillis(domain.createdAt),
      updated_at: toMillis(domain.updatedAt),
    };
    try {
      await this.db
        .insertInto('custom_domains')
        .values(row)
        .onConflict((conflict) =>
          conflict.column('user_id').doUpdateSet({
            hostname: row.hostname,
            provider_id: row.provider_id,
            verification_status: row.verification_status,
            ssl_status: row.ssl_status,
            dns_records: row.dns_records,
            errors: row.errors,
            created_at: row.created_at,
            updated_at: row.updated_at,
          }),
        )
        .execute();
      return 'saved';
    } catch (error) {
      if (isHostnameUniqueViolation(error)) return 'taken';
      throw error;
    }
  }

  async delete(userId: string): Promise<void> {
    await this.db.deleteFrom('custom_domains').where('user_id', '=', userId).execute();
  }
}
