import type { WebhookRepository } from '../../core/webhooks/webhook-repository.js';
import type { MfaRepository } from '../../core/accounts/mfa-repository.js';
import type { OneTimeTokenRepository } from '../../core/accounts/one-time-token-repository.js';
import type { SessionRepository } from '../../core/accounts/session-repository.js';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { ActivityLogRepository } from '../../core/activity/activity-log-repository.js';
import type { ApiKeyRepository } from '../../core/api-keys/api-key-repository.js';
import type { CustomDomainRepository } from '../../core/domains/custom-domain-repository.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import type { MediaFactsRepository } from '../../core/media/media-facts.js';
import type { ResumableUploadRepository } from '../../core/files/resumable-upload-repository.js';
import type { ImageVariantRepository } from '../../core/images/image-variant-repository.js';
import type { SigningKeyRepository } from '../../core/files/signing-key-repository.js';
import type { UploadUrlRepository } from '../../core/files/upload-url-repository.js';
import type { ShareRepository } from '../../core/shares/share-repository.js';
import type { UsageRepository } from '../../core/plans/usage-repository.js';
import type { InviteRepository } from '../../core/invites/invite-repository.js';
import type { OidcFlowRepository } from '../../core/sso/oidc-flow-repository.js';
import type { OidcIdentityRepository } from '../../core/sso/oidc-identity-repository.js';
import type { AccountDirectory } from '../../core/admin/account-directory.js';
import type { AdminAuditLog } from '../../core/admin/admin-audit-log.js';
import type { InstanceStatistics } from '../../core/admin/instance-statistics.js';
import type { PlanOverrideStore } from '../../core/plans/plan-override-store.js';
import type { HealthProbe } from '../../core/shared/health-probe.js';
import type { PasskeyRepository } from '../../core/passkeys/passkey-repository.js';
import type { PasskeyChallengeRepository } from '../../core/passkeys/passkey-challenge-repository.js';
import type { AccountDeletionQueue } from '../../core/admin/account-deletion-queue.js';

/** Every repository port over one store, and that store's health probe. */
export interface Repositories {
  users: UserRepository;
  tokens: OneTimeTokenRepository;
  sessions: SessionRepository;
  mfa: MfaRepository;
  apiKeys: ApiKeyRepository;
  files: FileRepository;
  /** Width, height, duration and thumbhash of files (docs/media.md). */
  mediaFacts: MediaFactsRepository;
  resumableUploads: ResumableUploadRepository;
  usage: UsageRepository;
  logs: ActivityLogRepository;
  domains: CustomDomainRepository;
  imageVariants: ImageVariantRepository;
  signingKeys: SigningKeyRepository;
  /** Signed upload URLs (docs/media.md). */
  uploadUrls: UploadUrlRepository;
  shares: ShareRepository;
  passkeys: PasskeyRepository;
  passkeyChallenges: PasskeyChallengeRepository;
  invites: InviteRepository;
  oidcIdentities: OidcIdentityRepository;
  oidcFlows: OidcFlowRepository;
  /** Webhook endpoints and their deliveries (docs/webhooks.md). */
  webhooks: WebhookRepository;
  /** Accounts with their totals, for administrators (docs/admin.md). */
  accountDirectory: AccountDirectory;
  /** The audit log of administrator actions (docs/admin.md). */
  adminAudit: AdminAuditLog;
  /** Counts over the whole instance, for administrators (docs/admin.md). */
  instanceStatistics: InstanceStatistics;
  /** The plans administrators set, shared by every process (docs/admin.md). */
  planOverrides: PlanOverrideStore;
  /** The accounts being deleted in the background, with their leases (docs/admin.md). */
  accountDeletions: AccountDeletionQueue;
  /** Named `database`. */
  probe: HealthProbe;
}
