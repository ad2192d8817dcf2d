import { MemoryWebhookRepository } from './memory-webhook-repository.js';
import { MemoryInviteRepository } from './memory-invite-repository.js';
import { MemoryAccountDirectory } from './memory-account-directory.js';
import { MemoryAdminAuditLog } from './memory-admin-audit-log.js';
import { MemoryInstanceStatistics } from './memory-instance-statistics.js';
import { MemoryPlanOverrideStore } from './memory-plan-override-store.js';
import { MemoryOidcFlowRepository } from './memory-oidc-flow-repository.js';
import { MemoryOidcIdentityRepository } from './memory-oidc-identity-repository.js';
import { MemoryShareRepository } from './memory-share-repository.js';
import { MemorySigningKeyRepository } from './memory-signing-key-repository.js';
import { MemoryUploadUrlRepository } from './memory-upload-url-repository.js';
import { MemoryPasskeyRepository } from './memory-passkey-repository.js';
import { MemoryPasskeyChallengeRepository } from './memory-passkey-challenge-repository.js';
import { MemoryResumableUploadRepository } from './memory-resumable-upload-repository.js';
import type { Repositories } from '../repositories.js';
import { MemoryActivityLogRepository } from './memory-activity-log-repository.js';
import { MemoryApiKeyRepository } from './memory-api-key-repository.js';
import { MemoryCustomDomainRepository } from './memory-custom-domain-repository.js';
import { MemoryDatabase } from './memory-database.js';
import { MemoryFileRepository } from './memory-file-repository.js';
import { MemoryImageVariantRepository } from './memory-image-variant-repository.js';
import { MemoryMediaFactsRepository } from './memory-media-facts-repository.js';
import { MemoryHealthProbe } from './memory-health-probe.js';
import { MemoryMfaRepository } from './memory-mfa-repository.js';
import { MemoryOneTimeTokenRepository } from './memory-one-time-token-repository.js';
import { MemorySessionRepository } from './memory-session-repository.js';
import { MemoryUsageRepository } from './memory-usage-repository.js';
import { MemoryUserRepository } from './memory-user-repository.js';
import { MemoryAccountDeletionQueue } from './memory-account-deletion-queue.js';

/**
 * A fresh, empty set of in-memory repositories ({@link Repositories}) over one
 * {@link MemoryDatabase} (pass `db` to look into it or share it): deleting a user removes
 * everything of it from every repository, and usage and logs skip accounts that do not exist, as
 * with SQL. There are no foreign-key checks otherwise: rows of an unknown user are stored.
 */
export function createMemoryRepositories(db: MemoryDatabase = new MemoryDatabase()): Repositories {
  return {
    users: new MemoryUserRepository(db),
    tokens: new MemoryOneTimeTokenRepository(db),
    sessions: new MemorySessionRepository(db),
    mfa: new MemoryMfaRepository(db),
    apiKeys: new MemoryApiKeyRepository(db),
    files: new MemoryFileRepository(db),
    mediaFacts: new MemoryMediaFactsRepository(db),
    usage: new MemoryUsageRepository(db),
    logs: new MemoryActivityLogRepository(db),
    domains: new MemoryCustomDomainRepository(db),
    imageVariants: new MemoryImageVariantRepository(db),
    signingKeys: new MemorySigningKeyRepository(db),
    uploadUrls: new MemoryUploadUrlRepository(db),
    shares: new MemoryShareRepository(db),
    webhooks: new MemoryWebhookRepository(),
    passkeys: new MemoryPasskeyRepository(db),
    passkeyChallenges: new MemoryPasskeyChallengeRepository(db),
    resumableUploads: new MemoryResumableUploadRepository(db),
    invites: new MemoryInviteRepository(db),
    accountDirectory: new MemoryAccountDirectory(db),
    adminAudit: new MemoryAdminAuditLog(),
    instanceStatistics: new MemoryInstanceStatistics(db),
    planOverrides: new MemoryPlanOverrideStore(),
    accountDeletions: new MemoryAccountDeletionQueue(),
    oidcIdentities: new MemoryOidcIdentityRepository(db),
    oidcFlows: new MemoryOidcFlowRepository(db),
    probe: new MemoryHealthProbe(),
  };
}
