import { Kysely } from 'kysely';
import { SqlWebhookRepository } from './sql-webhook-repository.js';
import { SqlInviteRepository } from './sql-invite-repository.js';
import { SqlAccountDirectory } from './sql-account-directory.js';
import { SqlAdminAuditLog } from './sql-admin-audit-log.js';
import { SqlInstanceStatistics } from './sql-instance-statistics.js';
import { SqlPlanOverrideStore } from './sql-plan-override-store.js';
import { SqlOidcFlowRepository } from './sql-oidc-flow-repository.js';
import { SqlOidcIdentityRepository } from './sql-oidc-identity-repository.js';
import { SqlShareRepository } from './sql-share-repository.js';
import { SqlSigningKeyRepository } from './sql-signing-key-repository.js';
import { SqlUploadUrlRepository } from './sql-upload-url-repository.js';
import { SqlPasskeyRepository } from './sql-passkey-repository.js';
import { SqlPasskeyChallengeRepository } from './sql-passkey-challenge-repository.js';
import { SqlResumableUploadRepository } from './sql-resumable-upload-repository.js';
import type { Repositories } from '../repositories.js';
import type { HangarDatabase } from './schema.js';
import { SqlActivityLogRepository } from './sql-activity-log-repository.js';
import { SqlApiKeyRepository } from './sql-api-key-repository.js';
import { SqlCustomDomainRepository } from './sql-custom-domain-repository.js';
import { SqlFileRepository, type SqlFileRepositoryOptions } from './sql-file-repository.js';
import { SqlImageVariantRepository } from './sql-image-variant-repository.js';
import { SqlMediaFactsRepository } from './sql-media-facts-repository.js';
import { SqlHealthProbe } from './sql-health-probe.js';
import { SqlMfaRepository } from './sql-mfa-repository.js';
import { SqlOneTimeTokenRepository } from './sql-one-time-token-repository.js';
import { SqlSessionRepository } from './sql-session-repository.js';
import { SqlUsageRepository } from './sql-usage-repository.js';
import { SqlUserRepository } from './sql-user-repository.js';
import { SqlExecutor, type SqlExecutorOptions } from './sql-executor.js';
import { SqlAccountDeletionQueue } from './sql-account-deletion-queue.js';

/**
 * An open SQL database as its adapter hands it over: the Kysely instance and what the adapter
 * offers besides (`SqliteDatabase` and `PostgresDatabase` are ones): SQLite's fast path (`direct`),
 * Postgres's lookup cache and prepared lookups (`lookups`). See {@link SqlExecutor}.
 */
export interface SqlDatabaseHandle extends SqlExecutorOptions {
  db: Kysely<HangarDatabase>;
}

/**
 * Every repository over one migrated database (see `migrateToLatest`), with its `database` probe.
 * `database`: the opened database (`openSqliteDatabase`, `openPostgresDatabase`), whose fast path
 * and lookup cache the repositories then use; or a bare Kysely instance (a transaction, an
 * embedder's own), on which every statement goes through Kysely. The caller owns the database and
 * closes it. `options.files`: see SqlFileRepositoryOptions.
 */
export function createSqlRepositories(database: SqlDatabaseHandle | Kysely<HangarDatabase>, options: { files?: SqlFileRepositoryOptions } = {}): Repositories {
  const executor =
    database instanceof Kysely ? new SqlExecutor(database) : new SqlExecutor(database.db, { direct: database.direct, lookups: database.lookups });
  const { db } = executor;
  return {
    users: new SqlUserRepository(executor),
    tokens: new SqlOneTimeTokenRepository(db),
    sessions: new SqlSessionRepository(executor),
    mfa: new SqlMfaRepository(db),
    apiKeys: new SqlApiKeyRepository(executor),
    files: new SqlFileRepository(executor, options.files),
    mediaFacts: new SqlMediaFactsRepository(executor),
    usage: new SqlUsageRepository(db),
    logs: new SqlActivityLogRepository(executor),
    domains: new SqlCustomDomainRepository(executor),
    imageVariants: new SqlImageVariantRepository(db),
    signingKeys: new SqlSigningKeyRepository(db),
    uploadUrls: new SqlUploadUrlRepository(db),
    shares: new SqlShareRepository(db),
    passkeys: new SqlPasskeyRepository(db),
    passkeyChallenges: new SqlPasskeyChallengeRepository(db),
    resumableUploads: new SqlResumableUploadRepository(db),
    invites: new SqlInviteRepository(db),
    accountDirectory: new SqlAccountDirectory(db),
    adminAudit: new SqlAdminAuditLog(db),
    instanceStatistics: new SqlInstanceStatistics(db),
    planOverrides: new SqlPlanOverrideStore(db),
    accountDeletions: new SqlAccountDeletionQueue(db),
    oidcIdentities: new SqlOidcIdentityRepository(db),
    oidcFlows: new SqlOidcFlowRepository(db),
    webhooks: new SqlWebhookRepository(db),
    probe: new SqlHealthProbe(db),
  };
}
