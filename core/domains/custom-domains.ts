import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { type CustomDomain, normaliseHostname, routingRecordType } from './custom-domain.js';
import type { CustomDomainRepository } from './custom-domain-repository.js';
import type { EdgeHostname, EdgeProvider } from './edge-provider.js';
import type { HostnameDirectory } from './hostname-directory.js';

/**
 * The custom-domain rules behind PATCH /settings (spec 4.14): set, replace, refresh and remove an
 * account's hostname at the edge provider and locally, keeping the two consistent. Changes of one
 * account run one at a time in a process; across processes, a refresh that finds its domain
 * replaced drops its answer, and a race lost to another account never deletes the winner's hostname.
 * Not a use case: UpdateSettings calls it.
 */
export class CustomDomains {
  /** One change at a time per account in this process (a double-clicked save must not leave an orphan). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: {
      domains: CustomDomainRepository;
      edge: EdgeProvider;
      directory: HostnameDirectory;
      clock: Clock;
      /** The service's own hosts (API and content), never usable as custom domains. */
      reservedHosts: readonly string[];
    },
  ) {}

  /**
   * Sets the account's hostname. The same hostname again changes nothing. A new one is created at
   * the provider first (failure → 502, nothing changes), then stored (a hostname another account
   * holds → the provider hostname is deleted again and 409), then the old one is deleted at the
   * provider (best effort: it is no longer referenced). A hostname the provider already has but no
   * account holds here is a leftover of this service's own earlier failure and is adopted.
   * @throws DomainError INVALID_HOSTNAME (400), HOSTNAME_TAKEN (409), EDGE_PROVIDER_ERROR (502)
   */
  set(userId: string, input: string): Promise<CustomDomain> {
    return this.serialised(userId, () => this.setNow(userId, input));
  }

  private async setNow(userId: string, input: string): Promise<CustomDomain> {
    const hostname = normaliseHostname(input, this.deps.reservedHosts);
    const current = await this.deps.domains.findByUser(userId);
    if (current?.hostname === hostname) return current;
    const holder = await this.deps.domains.findByHostname(hostname);
    if (holder && holder.userId !== userId) throw taken(hostname);

    const created = await this.deps.edge.create({ hostname });
    const now = this.deps.clock.now();
    const domain = toCustomDomain(userId, created.hostname, this.deps.edge.cnameTarget, now, now);
    let result: 'saved' | 'taken';
    try {
      result = await this.deps.domains.save(domain);
    } catch (error) {
      if (!created.exists) await this.undoCreate(domain);
      throw error;
    }
    if (result === 'taken') {
      if (!created.exists) await this.undoCreate(domain);
      throw taken(hostname);
    }
    this.deps.directory.invalidate(hostname);
    if (current) {
      this.deps.directory.invalidate(current.hostname);
      await this.deps.edge.delete({ providerId: current.providerId }).catch(() => undefined);
    }
    return domain;
  }

  /**
   * Removes the account's hostname: at the provider first (failure → 502, nothing changes), then
   * locally. No custom domain is not an error.
   * @throws DomainError EDGE_PROVIDER_ERROR (502)
   */
  remove(userId: string): Promise<void> {
    return this.serialised(userId, () => this.removeNow(userId));
  }

  private async removeNow(userId: string): Promise<void> {
    const current = await this.deps.domains.findByUser(userId);
    if (!current) return;
    await this.deps.edge.delete({ providerId: current.providerId });
    await this.deps.domains.delete(userId);
    this.deps.directory.invalidate(current.hostname);
  }

  /**
   * Asks the provider to re-run validation and stores the new statuses and records.
   * @throws DomainError NO_CUSTOM_DOMAIN (400), EDGE_PROVIDER_ERROR (502)
   */
  refresh(userId: string): Promise<CustomDomain> {
    return this.serialised(userId, () => this.refreshNow(userId));
  }

  private async refreshNow(userId: string): Promise<CustomDomain> {
    const current = await this.deps.domains.findByUser(userId);
    if (!current) throw new DomainError('NO_CUSTOM_DOMAIN', 'This account has no custom domain to refresh; set custom_domain first.');
    const edge = await this.deps.edge.refresh({ providerId: current.providerId });
    const domain = toCustomDomain(userId, edge, this.deps.edge.cnameTarget, current.createdAt, this.deps.clock.now());
    // The domain may have been removed or replaced while the provider answered: then this answer is stale.
    const latest = await this.deps.domains.findByUser(userId);
    if (latest?.providerId !== current.providerId) {
      throw new DomainError('NO_CUSTOM_DOMAIN', 'The custom domain changed while it was being refreshed; read the settings again.');
    }
    await this.deps.domains.save(domain);
    this.deps.directory.invalidate(domain.hostname);
    return domain;
  }

  /** Runs `work` after every earlier change of the same account in this process has finished. */
  private serialised<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(userId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.queues.set(userId, settled);
    void settled.then(() => {
      if (this.queues.get(userId) === settled) this.queues.delete(userId);
    });
    return next;
  }

  /**
   * Deletes a hostname this call created at the provider, unless another account has meanwhile
   * stored it (it adopted the provider's record, which is now its own).
   */
  private async undoCreate(domain: CustomDomain): Promise<void> {
    const holder = await this.deps.domains.findByHostname(domain.hostname).catch(() => undefined);
    if (holder?.providerId === domain.providerId) return;
    await this.deps.edge.delete({ providerId: domain.providerId }).catch(() => undefined);
  }
}

/**
 * The local record of a provider hostname: statuses passed through, the DNS records to create (the
 * routing record is an A/AAAA record when the target is an IP address, see {@link routingRecordType}).
 */
export function toCustomDomain(userId: string, edge: EdgeHostname, cnameTarget: string, createdAt: Date, updatedAt: Date): CustomDomain {
  return {
    userId,
    hostname: edge.hostname,
    providerId: edge.providerId,
    verificationStatus: edge.status,
    sslStatus: edge.sslStatus,
    dnsRecords: [{ type: routingRecordType(cnameTarget), name: edge.hostname, value: cnameTarget, purpose: 'routing' }, ...edge.validationRecords],
    errors: edge.errors,
    createdAt,
    updatedAt,
  };
}

function taken(hostname: string): DomainError {
  return new DomainError('HOSTNAME_TAKEN', `${hostname} is already used by another account.`);
}
