import type { Mailer } from '../../core/accounts/mailer.js';
import type { OneTimeTokenRepository } from '../../core/accounts/one-time-token-repository.js';
import type { PasswordHasher } from '../../core/accounts/password-hasher.js';
import type { SessionRepository } from '../../core/accounts/session-repository.js';
import type { MfaRepository } from '../../core/accounts/mfa-repository.js';
import type { SecretBox, Totp } from '../../core/accounts/totp.js';
import type { TokenSigner } from '../../core/accounts/token-signer.js';
import type { SigningKeyRepository, UrlSigner } from '../../core/files/signing-keys.js';
import type { UploadUrlRepository } from '../../core/files/upload-urls.js';
import type { ShareRepository } from '../../core/shares/share.js';
import type { PasskeyRepository } from '../../core/passkeys/passkey.js';
import type { PasskeyChallengeRepository } from '../../core/passkeys/passkey-challenge-repository.js';
import type { WebAuthnVerifier } from '../../core/passkeys/webauthn-verifier.js';
import type { UserRepository } from '../../core/accounts/user-repository.js';
import type { ApiKeyRepository } from '../../core/api-keys/api-key-repository.js';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { ImageTransformer } from '../../core/images/image-transformer.js';
import type { ImageVariantRepository } from '../../core/images/image-variant-repository.js';
import type { FileRepository } from '../../core/files/file-repository.js';
import type { PartialBlobStore } from '../../core/files/partial-blob-store.js';
import type { ResumableUploadRepository } from '../../core/files/resumable-upload-repository.js';
import type { ActivityLogRepository } from '../../core/activity/activity-log.js';
import type { UsageRepository } from '../../core/plans/usage-repository.js';
import type { CustomDomainRepository } from '../../core/domains/custom-domain-repository.js';
import type { EdgeProvider } from '../../core/domains/edge-provider.js';
import type { Hangar, HangarOptions } from '../../core/hangar.js';
import type { Clock } from '../../core/shared/clock.js';
import type { ContentSniffer } from '../../core/files/content-sniffer.js';
import type { RateLimiter } from '../../core/shared/rate-limiter.js';
import type { Failpoints } from '../../core/shared/failpoints.js';
import type { HealthProbe } from '../../core/shared/health.js';
import type { IdGenerator, SecretDigest } from '../../core/shared/ids.js';
import type { Logger } from '../../core/shared/logger.js';
import type { ServiceIdentifier } from 'inversify';
import type { InviteRepository } from '../../core/invites/invite.js';
import type { AccountDirectory } from '../../core/admin/account-directory.js';
import type { AdminAuditLog } from '../../core/admin/admin-audit.js';
import type { InstanceStatistics } from '../../core/admin/instance-statistics.js';
import type { PlanOverrideStore } from '../../core/plans/plan-overrides.js';
import type { AccountDeletionQueue } from '../../core/admin/account-deletion-queue.js';
import type { OidcFlowRepository, OidcIdentityRepository } from '../../core/sso/oidc-repositories.js';
import type { Config } from './config.js';
import type { WebhookRepository, WebhookTargets } from '../../core/webhooks/webhook.js';

/** Container tokens: Symbols named like the interface they stand for. */
export const Tokens = {
  Config: Symbol('Config') as ServiceIdentifier<Config>,
  HangarOptions: Symbol('HangarOptions') as ServiceIdentifier<HangarOptions>,
  UserRepository: Symbol('UserRepository') as ServiceIdentifier<UserRepository>,
  OneTimeTokenRepository: Symbol('OneTimeTokenRepository') as ServiceIdentifier<OneTimeTokenRepository>,
  SessionRepository: Symbol('SessionRepository') as ServiceIdentifier<SessionRepository>,
  MfaRepository: Symbol('MfaRepository') as ServiceIdentifier<MfaRepository>,
  Totp: Symbol('Totp') as ServiceIdentifier<Totp>,
  SecretBox: Symbol('SecretBox') as ServiceIdentifier<SecretBox>,
  ApiKeyRepository: Symbol('ApiKeyRepository') as ServiceIdentifier<ApiKeyRepository>,
  FileRepository: Symbol('FileRepository') as ServiceIdentifier<FileRepository>,
  UsageRepository: Symbol('UsageRepository') as ServiceIdentifier<UsageRepository>,
  ActivityLogRepository: Symbol('ActivityLogRepository') as ServiceIdentifier<ActivityLogRepository>,
  CustomDomainRepository: Symbol('CustomDomainRepository') as ServiceIdentifier<CustomDomainRepository>,
  ImageVariantRepository: Symbol('ImageVariantRepository') as ServiceIdentifier<ImageVariantRepository>,
  InviteRepository: Symbol('InviteRepository') as ServiceIdentifier<InviteRepository>,
  AccountDirectory: Symbol('AccountDirectory') as ServiceIdentifier<AccountDirectory>,
  AdminAuditLog: Symbol('AdminAuditLog') as ServiceIdentifier<AdminAuditLog>,
  InstanceStatistics: Symbol('InstanceStatistics') as ServiceIdentifier<InstanceStatistics>,
  PlanOverrideStore: Symbol('PlanOverrideStore') as ServiceIdentifier<PlanOverrideStore>,
  AccountDeletionQueue: Symbol('AccountDeletionQueue') as ServiceIdentifier<AccountDeletionQueue>,
  OidcIdentityRepository: Symbol('OidcIdentityRepository') as ServiceIdentifier<OidcIdentityRepository>,
  OidcFlowRepository: Symbol('OidcFlowRepository') as ServiceIdentifier<OidcFlowRepository>,
  WebhookRepository: Symbol('WebhookRepository') as ServiceIdentifier<WebhookRepository>,
  WebhookTargets: Symbol('WebhookTargets') as ServiceIdentifier<WebhookTargets>,
  EdgeProvider: Symbol('EdgeProvider') as ServiceIdentifier<EdgeProvider>,
  DatabaseProbe: Symbol('DatabaseProbe') as ServiceIdentifier<HealthProbe>,
  BlobStore: Symbol('BlobStore') as ServiceIdentifier<BlobStore>,
  PartialBlobStore: Symbol('PartialBlobStore') as ServiceIdentifier<PartialBlobStore>,
  ResumableUploadRepository: Symbol('ResumableUploadRepository') as ServiceIdentifier<ResumableUploadRepository>,
  ImageTransformer: Symbol('ImageTransformer') as ServiceIdentifier<ImageTransformer>,
  Mailer: Symbol('Mailer') as ServiceIdentifier<Mailer>,
  PasswordHasher: Symbol('PasswordHasher') as ServiceIdentifier<PasswordHasher>,
  TokenSigner: Symbol('TokenSigner') as ServiceIdentifier<TokenSigner>,
  SigningKeyRepository: Symbol('SigningKeyRepository') as ServiceIdentifier<SigningKeyRepository>,
  UploadUrlRepository: Symbol('UploadUrlRepository') as ServiceIdentifier<UploadUrlRepository>,
  UrlSigner: Symbol('UrlSigner') as ServiceIdentifier<UrlSigner>,
  ShareRepository: Symbol('ShareRepository') as ServiceIdentifier<ShareRepository>,
  PasskeyRepository: Symbol('PasskeyRepository') as ServiceIdentifier<PasskeyRepository>,
  PasskeyChallengeRepository: Symbol('PasskeyChallengeRepository') as ServiceIdentifier<PasskeyChallengeRepository>,
  WebAuthnVerifier: Symbol('WebAuthnVerifier') as ServiceIdentifier<WebAuthnVerifier>,
  IdGenerator: Symbol('IdGenerator') as ServiceIdentifier<IdGenerator>,
  SecretDigest: Symbol('SecretDigest') as ServiceIdentifier<SecretDigest>,
  Clock: Symbol('Clock') as ServiceIdentifier<Clock>,
  ContentSniffer: Symbol('ContentSniffer') as ServiceIdentifier<ContentSniffer>,
  RateLimiter: Symbol('RateLimiter') as ServiceIdentifier<RateLimiter>,
  Failpoints: Symbol('Failpoints') as ServiceIdentifier<Failpoints>,
  Hangar: Symbol('Hangar') as ServiceIdentifier<Hangar>,
  Logger: Symbol('Logger') as ServiceIdentifier<Logger>,
};
