import type { Clock } from '../shared/clock.js';
import type { CustomDomain } from './custom-domain.js';
import type { CustomDomainRepository } from './custom-domain-repository.js';

/** How long a hostname lookup is reused, in ms: other processes' changes show within this time. */
export const HOSTNAME_CACHE_TTL_MS = 30_000;
/** Most hostnames cached at once (oldest dropped first). */
const MAX_ENTRIES = 10_000;

/**
 * Which account a request's `Host` belongs to, for the content server: a small TTL cache over
 * CustomDomainRepository.findByHostname, so serving a file adds no database lookup per request.
 * Changes made in this process invalidate their entries at once.
 */
export class HostnameDirectory {
  private readonly cache = new Map<string, { domain: CustomDomain | undefined; expires: number }>();
  /** Bumped by invalidate(): a lookup that started before a change does not cache its stale answer. */
  private readonly generations = new Map<string, number>();

  constructor(private readonly deps: { domains: CustomDomainRepository; clock: Clock }) {}

  /** The custom domain registered for `hostname` (lower-case, without port), or undefined. */
  async lookup(hostname: string): Promise<CustomDomain | undefined> {
    const now = this.deps.clock.now().getTime();
    const hit = this.cache.get(hostname);
    if (hit && hit.expires > now) return hit.domain;
    const generation = this.generations.get(hostname) ?? 0;
    const domain = await this.deps.domains.findByHostname(hostname);
    if ((this.generations.get(hostname) ?? 0) !== generation) return domain;
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hostname, { domain, expires: now + HOSTNAME_CACHE_TTL_MS });
    return domain;
  }

  /** Forgets `hostname`, after it was set, changed or removed. */
  invalidate(hostname: string): void {
    this.cache.delete(hostname);
    if (this.generations.size >= MAX_ENTRIES) this.generations.clear();
    this.generations.set(hostname, (this.generations.get(hostname) ?? 0) + 1);
  }
}
