import type { CustomDomain } from '../../../core/domains/custom-domain.js';
import type { CustomDomainRepository } from '../../../core/domains/custom-domain-repository.js';
import { copyDate } from './copy-date.js';
import { MemoryDatabase } from './memory-database.js';

/** A copy sharing no mutable object (records, errors, dates) with `domain`. */
function copyCustomDomain(domain: CustomDomain): CustomDomain {
  return {
    userId: domain.userId,
    hostname: domain.hostname,
    providerId: domain.providerId,
    verificationStatus: domain.verificationStatus,
    sslStatus: domain.sslStatus,
    dnsRecords: domain.dnsRecords.map((record) => ({ ...record })),
    errors: [...domain.errors],
    createdAt: copyDate(domain.createdAt),
    updatedAt: copyDate(domain.updatedAt),
  };
}

/**
 * {@link CustomDomainRepository} held in process memory (a {@link MemoryDatabase}): one row per
 * account, and a unique index from hostname to account. `save` checks and writes synchronously,
 * so of two accounts racing for one hostname exactly one is saved, as with the SQL unique index.
 * Deleting the user (MemoryDatabase.deleteUser) removes the row.
 */
export class MemoryCustomDomainRepository implements CustomDomainRepository {
  /** @param db the store shared with the other memory repositories; a private one by default */
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async findByUser(userId: string): Promise<CustomDomain | undefined> {
    const domain = this.db.customDomains.get(userId);
    return domain && copyCustomDomain(domain);
  }

  async findByHostname(hostname: string): Promise<CustomDomain | undefined> {
    const userId = this.db.customDomainUserIdByHostname.get(hostname);
    const domain = userId === undefined ? undefined : this.db.customDomains.get(userId);
    return domain && copyCustomDomain(domain);
  }

  async save(domain: CustomDomain): Promise<'saved' | 'taken'> {
    const holder = this.db.customDomainUserIdByHostname.get(domain.hostname);
    if (holder !== undefined && holder !== domain.userId) return 'taken';
    const previous = this.db.customDomains.get(domain.userId);
    if (previous) this.db.customDomainUserIdByHostname.delete(previous.hostname);
    this.db.customDomains.set(domain.userId, copyCustomDomain(domain));
    this.db.customDomainUserIdByHostname.set(domain.hostname, domain.userId);
    return 'saved';
  }

  async delete(userId: string): Promise<void> {
    this.db.deleteCustomDomain(userId);
  }
}
