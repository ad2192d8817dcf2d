import { SqlInviteRepository } from './sql-invite-repository.js';
import { SqlOidcFlowRepository, SqlOidcIdentityRepository } from './sql-oidc-repositories.js';
import type { Kysely } from 'kysely';
import { SqlShareRepository } from './sql-share-repository.js';
import { SqlSigningKeyRepository } from './sql-signing-key-repository.js';
import type { Repositories } from '../repositories.js';
import type { HangarDatabase } from './schema.js';
import { SqlActivityLogRepository } from './sql-activity-log-repository.js';
import { SqlApiKeyRepository } from './sql-api-key-repository.js';
import { SqlCustomDomainRepository } from './sql-custom-domain-repository.js';
import { SqlFileRepository, type SqlFileRepositoryOptions } from './sql-file-repository.js';
import { SqlImageVariantRepository } from './sql-image-variant-repository.js';
import { SqlHealthProbe } from './sql-health-probe.js';
import { SqlOneTimeTokenRepository } from './sql-one-time-token-repository.js';
import { SqlSessionRepository } from './sql-session-repository.js';
import { SqlUsageRepository } from './sql-usage-repository.js';
import { SqlUserRepository } from './sql-user-repository.js';

/**
 * Every repository over one migrated database (see `migrateToLatest`), with its `database` probe.
 * The caller owns `db` and destroys it. `options.files`: see SqlFileRepositoryOptions.
 */
export function createSqlRepositories(db: Kysely<HangarDatabase>, options: { files?: SqlFileRepositoryOptions } = {}): Repositories {
  return {
    users: new SqlUserRepository(db),
    tokens: new SqlOneTimeTokenRepository(db),
    sessions: new SqlSessionRepository(db),
    apiKeys: new SqlApiKeyRepository(db),
    files: new SqlFileRepository(db, options.files),
    usage: new SqlUsageRepository(db),
    logs: new SqlActivityLogRepository(db),
    domains: new SqlCustomDomainRepository(db),
    imageVariants: new SqlImageVariantRepository(db),
    signingKeys: new SqlSigningKeyRepository(db),
    shares: new SqlShareRepository(db),
    invites: new SqlInviteRepository(db),
    oidcIdentities: new SqlOidcIdentityRepository(db),
    oidcFlows: new SqlOidcFlowRepository(db),
    probe: new SqlHealthProbe(db),
  };
}
