import type { OidcIdentityLink, OidcIdentityRepository } from '../../../core/sso/oidc-identity-repository.js';
import { MemoryDatabase } from './memory-database.js';

/** {@link OidcIdentityRepository} held in process memory (a {@link MemoryDatabase}); links go with their account. */
export class MemoryOidcIdentityRepository implements OidcIdentityRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async find(options: { issuer: string; subject: string }): Promise<OidcIdentityLink | undefined> {
    const link = this.db.oidcIdentities.get(MemoryDatabase.oidcKey(options.issuer, options.subject));
    return link && { ...link, createdAt: new Date(link.createdAt.getTime()) };
  }

  async create(link: OidcIdentityLink): Promise<boolean> {
    const key = MemoryDatabase.oidcKey(link.issuer, link.subject);
    if (this.db.oidcIdentities.has(key)) return false;
    this.db.oidcIdentities.set(key, { ...link, createdAt: new Date(link.createdAt.getTime()) });
    return true;
  }
}
