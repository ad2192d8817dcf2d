import type { Kysely } from 'kysely';
import type { OidcIdentityLink, OidcIdentityRepository } from '../../../core/sso/oidc-identity-repository.js';
import { toDate, toMillis } from './rows.js';
import type { HangarDatabase } from './schema.js';

/** {@link OidcIdentityRepository} over `oidc_identities` (migration 0029); the primary key makes `(issuer, subject)` unique. */
export class SqlOidcIdentityRepository implements OidcIdentityRepository {
  constructor(private readonly db: Kysely<HangarDatabase>) {}

  async find(options: { issuer: string; subject: string }): Promise<OidcIdentityLink | undefined> {
    const row = await this.db
      .selectFrom('oidc_identities')
      .selectAll()
      .where('issuer', '=', options.issuer)
      .where('subject', '=', options.subject)
      .executeTakeFirst();
    return row && { issuer: row.issuer, subject: row.subject, userId: row.user_id, email: row.email, createdAt: toDate(row.created_at) };
  }

  /** @throws the driver's error for an unknown user (foreign key) */
  async create(link: OidcIdentityLink): Promise<boolean> {
    const result = await this.db
      .insertInto('oidc_identities')
      .values({ issuer: link.issuer, subject: link.subject, user_id: link.userId, email: link.email, created_at: toMillis(link.createdAt) })
      .onConflict((conflict) => conflict.columns(['issuer', 'subject']).doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }
}
