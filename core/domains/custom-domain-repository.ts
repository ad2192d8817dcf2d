import type { CustomDomain } from './custom-domain.js';

/** Port: each account's custom domain (at most one), unique by hostname. */
export interface CustomDomainRepository {
  findByUser(userId: string): Promise<CustomDomain | undefined>;
  /** Looks up by normalised hostname (indexed, unique). */
  findByHostname(hostname: string): Promise<CustomDomain | undefined>;
  /**
   * Stores the account's custom domain, replacing its previous one. The hostname is unique across
   * accounts (a unique index): of two accounts racing for one hostname, one gets `taken`.
   * @returns `saved`, or `taken` when another account holds the hostname (nothing stored then)
   */
  save(domain: CustomDomain): Promise<'saved' | 'taken'>;
  /** Removes the account's custom domain (no-op when it has none). */
  delete(userId: string): Promise<void>;
}
