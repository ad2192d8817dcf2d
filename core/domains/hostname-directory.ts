import type { ChangeFeed } from '../shared/change-feed.js';
import type { CustomDomain } from './custom-domain.js';
import type { CustomDomainRepository } from './custom-domain-repository.js';

/** Most hostnames cached at once (oldest dropped first). */
const MAX_ENTRIES = 10_000;

/**
 * Which account a request's `Host` belongs to, for the content server: a cache over
 * CustomDomainRepository.findByHostname, so serving a file adds no database lookup per request.
 * An answer is kept until the change feed says the hostname changed (set, verified, removed, in any
 * process sharing the database) or delivers `everything`; before answering from the cache it lets
 * the feed catch up (`ChangeFeed.catchUp`). So a change made through another process is seen
 * within the feed's guarantee (1 s; docs/scale-out.md), and while the feed is down within its
 * fallback period. Changes made in this process are also dropped at once ({@link invalidate}).
 */
export class HostnameDirectory {
  private readonly cache = new Map<string, CustomDomain | undefined>();
  /** Bumped by every invalidation: a lookup that started before one does not cache its (maybe stale) answer. */
  private generation = 0;

  constructor(private readonly deps: { domains: CustomDomainRepository; changes: ChangeFeed }) {
    deps.changes.subscribe((change) => {
      if (change.kind === 'hostname') this.invalidate(change.hostname);
      else if (change.kind === 'everything') this.invalidateAll();
    });
  }

  /** The custom domain registered for `hostname` (lower-case, without port), or undefined. */
  async lookup(hostname: string): Promise<CustomDomain | undefined> {
    const catchingUp = this.deps.changes.catchUp();
    if (catchingUp) await catchingUp;
    if (this.cache.has(hostname)) return this.cache.get(hostname);
    const generation = this.generation;
    const domain = await this.deps.domains.findByHostname(hostname);
    if (this.generation !== generation) return domain;
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hostname, domain);
    return domain;
  }

  /** Forgets `hostname`, after it was set, changed or removed. */
  invalidate(hostname: string): void {
    this.cache.delete(hostname);
    this.generation += 1;
  }

  /** Forgets every hostname (changes may have been missed). */
  invalidateAll(): void {
    this.cache.clear();
    this.generation += 1;
  }
}
