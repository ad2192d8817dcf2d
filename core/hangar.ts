import { DomainError } from './shared/errors.js';
import { parseUrl } from './shared/web-globals.js';
import type { AccountOptions } from './accounts/account-options.js';
import type { CustomDomainRepository } from './domains/custom-domain-repository.js';
import { CustomDomains } from './domains/custom-domains.js';
import type { EdgeProvider } from './domains/edge-provider.js';
import { HostnameDirectory } from './domains/hostname-directory.js';
import { type ChangeFeed, NO_OTHER_PROCESSES } from './shared/change-feed.js';
import { Authenticate } from './accounts/authenticate.js';
import { CompleteMfaSignIn } from './accounts/complete-mfa-sign-in.js';
import { ConfirmTotpEnrolment } from './accounts/confirm-totp-enrolment.js';
import { EndSession, ListSessions } from './accounts/device-sessions.js';
import { DisableTotp } from './accounts/disable-totp.js';
import { GetMfaStatus } from './accounts/get-mfa-status.js';
import { MfaCodes } from './accounts/mfa-codes.js';
import type { MfaRepository } from './accounts/mfa-repository.js';
import { StartTotpEnrolment } from './accounts/start-totp-enrolment.js';
import type { SecretBox } from './accounts/secret-box.js';
import type { Totp } from './accounts/totp.js';
import { ConfirmEmail } from './accounts/confirm-email.js';
import { LogIn } from './accounts/log-in.js';
import { LogOut } from './accounts/log-out.js';
import type { Mailer } from './accounts/mailer.js';
import type { OneTimeTokenRepository } from './accounts/one-time-token-repository.js';
import { OneTimeLinks } from './accounts/one-time-links.js';
import type { PasswordHasher } from './accounts/password-hasher.js';
import { RefreshSession } from './accounts/refresh-session.js';
import { RegisterAccount } from './accounts/register-account.js';
import { RequestPasswordReset } from './accounts/request-password-reset.js';
import { ResendConfirmation } from './accounts/resend-confirmation.js';
import { ResetPassword } from './accounts/reset-password.js';
import { SessionIssuer } from './accounts/session-issuer.js';
import type { SessionRepository } from './accounts/session-repository.js';
import type { TokenSigner } from './accounts/token-signer.js';
import type { UserRepository } from './accounts/user-repository.js';
import type { ApiKeyRepository } from './api-keys/api-key-repository.js';
import { CreateApiKey } from './api-keys/create-api-key.js';
import { ListApiKeys } from './api-keys/list-api-keys.js';
import { RevokeApiKey } from './api-keys/revoke-api-key.js';
import type { BlobStore } from './files/blob-store.js';
import { BulkDeleteFiles } from './files/bulk-delete-files.js';
import { CheckStorage } from './files/check-storage.js';
import { DeleteFile } from './files/delete-file.js';
import type { FileOptions } from './files/file-options.js';
import { PreviewPublicFile } from './files/preview-public-file.js';
import type { FileRepository } from './files/file-repository.js';
import { FileAddresses } from './files/file-view.js';
import type { MediaFactsRepository } from './media/media-facts.js';
import type { MediaProber } from './media/media-prober.js';
import { RecordMediaFacts } from './media/record-media-facts.js';
import { MediaFactsQueue } from './media/media-facts-queue.js';
import { BackfillMediaFacts } from './media/backfill-media-facts.js';
import { CatchUpMediaFacts, type CatchUpMediaFactsOptions } from './media/catch-up-media-facts.js';
import { GetFile } from './files/get-file.js';
import { ListFiles } from './files/list-files.js';
import { ReadPublicFile } from './files/read-public-file.js';
import { ReadOwnFile } from './files/read-own-file.js';
import { UpdateFile } from './files/update-file.js';
import { CreateSignedUrl } from './files/create-signed-url.js';
import { ReadSignedFile } from './files/read-signed-file.js';
import { RotateSigningKey } from './files/rotate-signing-key.js';
import { CreateUploadUrl } from './files/create-upload-url.js';
import { UploadWithUrl } from './files/upload-with-url.js';
import { ResumableUploadUrlOwner, StartResumableUploadWithUrl } from './files/start-resumable-upload-with-url.js';
import type { UploadUrlRepository } from './files/upload-url-repository.js';
import { ExpireFiles } from './files/expire-files.js';
import { AppendToResumableUpload } from './files/append-to-resumable-upload.js';
import { CreateResumableUpload } from './files/create-resumable-upload.js';
import { ExpireResumableUploads } from './files/expire-resumable-uploads.js';
import { ExpireUploadUrls } from './files/expire-upload-urls.js';
import { GetResumableUpload } from './files/get-resumable-upload.js';
import type { PartialBlobStore } from './files/partial-blob-store.js';
import type { ResumableUploadRepository } from './files/resumable-upload-repository.js';
import type { ResumableUploadOptions } from './files/resumable-uploads.js';
import { TerminateResumableUpload } from './files/terminate-resumable-upload.js';
import { SignedDeletion } from './files/signed-deletion.js';
import { FileReadCounts } from './files/file-read-counts.js';
import type { SigningKeyRepository } from './files/signing-key-repository.js';
import type { UrlSigner } from './files/url-signer.js';
import type { ShareRepository } from './shares/share-repository.js';
import { CreateShare } from './shares/create-share.js';
import { ListShares, RevokeShare } from './shares/manage-shares.js';
import { DownloadShare, ViewShare } from './shares/open-share.js';
import { UploadFile } from './files/upload-file.js';
import { GetSettings } from './settings/get-settings.js';
import { UpdateSettings } from './settings/update-settings.js';
import type { ActivityLogRepository } from './activity/activity-log-repository.js';
import { ActivityRecorder } from './activity/activity-recorder.js';
import { ListLogs } from './activity/list-logs.js';
import { DEFAULT_LOG_RETENTION_DAYS, PruneLogs } from './activity/prune-logs.js';
import { PurgeCredentials } from './accounts/purge-credentials.js';
import { GetProfile } from './accounts/get-profile.js';
import { AccountReport } from './admin/account-report.js';
import { ChangePlan } from './admin/change-plan.js';
import { ConfirmAccount } from './admin/confirm-account.js';
import { ResetTwoFactor } from './admin/reset-two-factor.js';
import { DeleteAccount } from './admin/delete-account.js';
import { ListAccounts } from './admin/list-accounts.js';
import { SetSubscription } from './admin/set-subscription.js';
import { ShowAccount } from './admin/show-account.js';
import type { AccountDirectory } from './admin/account-directory.js';
import type { AdminAuditLog } from './admin/admin-audit-log.js';
import { AdminTrail } from './admin/admin-trail.js';
import { DEFAULT_ADMIN_AUDIT_RETENTION_DAYS } from './admin/admin-audit.js';
import { AuthorizeAdmin } from './admin/authorize-admin.js';
import type { AccountDeletionQueue } from './admin/account-deletion-queue.js';
import { SearchAccounts } from './admin/search-accounts.js';
import { GetAccountDetails } from './admin/get-account-details.js';
import { UpdateAccount } from './admin/update-account.js';
import { ListAdminAudit, RemoveAccount, ResendAccountConfirmation, ResetAccountMfa, RevokeAccountSessions } from './admin/account-actions.js';
import { PruneAdminAudit } from './admin/prune-admin-audit.js';
import { IssueInvite, WithdrawInvite } from './admin/invite-actions.js';
import { GetInstanceStats, type InstanceStatistics } from './admin/instance-statistics.js';
import type { PlanOverrideStore } from './plans/plan-override-store.js';
import { SetPlan, SyncPlans } from './plans/plan-overrides.js';
import { AccountPolicy } from './plans/account-policy.js';
import { GetUsage } from './plans/get-usage.js';
import { PlanCatalog, type PlanOptions } from './plans/plan.js';
import { UsageMeter } from './plans/usage-meter.js';
import type { UsageRepository } from './plans/usage-repository.js';
import { CheckHealth } from './shared/check-health.js';
import type { Clock } from './shared/clock.js';
import type { Failpoints } from './shared/failpoints.js';
import type { HealthProbe } from './shared/health-probe.js';
import type { RateLimiter } from './shared/rate-limiter.js';
import { type RateLimitOptions, RateLimits } from './shared/rate-limits.js';
import type { ContentSniffer } from './files/content-sniffer.js';
import type { ImageTransformer } from './images/image-transformer.js';
import type { ImageVariantRepository } from './images/image-variant-repository.js';
import { TransformPublicImage } from './images/transform-public-image.js';
import { GetOwnerThumbnail } from './images/get-owner-thumbnail.js';
import { TransformSlots } from './images/transform-slots.js';
import type { IdGenerator } from './shared/id-generator.js';
import type { SecretDigest } from './shared/secret-digest.js';
import type { PasskeyRepository } from './passkeys/passkey-repository.js';
import type { PasskeyChallengeRepository } from './passkeys/passkey-challenge-repository.js';
import type { WebAuthnVerifier } from './passkeys/webauthn-verifier.js';
import { relyingPartyOf } from './passkeys/relying-party.js';
import { StartPasskeyRegistration } from './passkeys/start-passkey-registration.js';
import { FinishPasskeyRegistration } from './passkeys/finish-passkey-registration.js';
import { DeletePasskey, ListPasskeys, RenamePasskey } from './passkeys/manage-passkeys.js';
import { StartPasskeySignIn } from './passkeys/start-passkey-sign-in.js';
import { SignInWithPasskey } from './passkeys/sign-in-with-passkey.js';
import type { InviteRepository } from './invites/invite-repository.js';
import { RegistrationGate } from './invites/registration-gate.js';
import { CreateInvite } from './invites/create-invite.js';
import { ListInvites, RevokeInvite } from './invites/manage-invites.js';
import type { OidcProvider } from './sso/oidc-provider.js';
import type { OidcFlowRepository } from './sso/oidc-flow-repository.js';
import type { OidcIdentityRepository } from './sso/oidc-identity-repository.js';
import { BeginOidcSignIn, CompleteOidcSignIn, ExchangeSignInCode, GetSignInProviders } from './sso/oidc-sign-in.js';
import type { WebhookRepository } from './webhooks/webhook-repository.js';
import type { WebhookTargets } from './webhooks/webhook-targets.js';
import {
  CreateWebhook,
  DeleteWebhook,
  GetWebhook,
  ListWebhookDeliveries,
  ListWebhooks,
  RetryWebhookDelivery,
  RotateWebhookSecret,
  SendTestWebhook,
  UpdateWebhook,
  type WebhookOptions,
} from './webhooks/manage-webhooks.js';
import { ViewWebhookEvent } from './webhooks/webhook-event.js';

/** Every port the core needs, one adapter each. */
export interface HangarPorts {
  users: UserRepository;
  tokens: OneTimeTokenRepository;
  sessions: SessionRepository;
  /** TOTP factors, recovery codes and pending two-step sign-ins (docs/account-security.md). */
  mfa: MfaRepository;
  /** TOTP codes (adapters/crypto/otplib-totp.ts). */
  totp: Totp;
  /** Seals TOTP secrets at rest (adapters/crypto/node-secret-box.ts). */
  secretBox: SecretBox;
  apiKeys: ApiKeyRepository;
  files: FileRepository;
  /** Resumable (tus) uploads and their reservations; on the same store as `files`. */
  resumableUploads: ResumableUploadRepository;
  /** Partial blobs of resumable uploads, completing into `blobs` (docs/api.md, "Resumable uploads"). */
  partialBlobs: PartialBlobStore;
  usage: UsageRepository;
  logs: ActivityLogRepository;
  domains: CustomDomainRepository;
  /** Claims and records of stored image variants, shared by every process on the database (docs/images.md). */
  imageVariants: ImageVariantRepository;
  edge: EdgeProvider;
  blobs: BlobStore;
  /** Should return quickly (queue the message): requests wait for it. */
  mailer: Mailer;
  passwords: PasswordHasher;
  signer: TokenSigner;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
  /** Dependencies asked by `checkHealth` (database, blob store). */
  probes: readonly HealthProbe[];
  /** Recognises uploads by their first bytes (adapters/content/file-type-content-sniffer.ts). */
  sniffer: ContentSniffer;
  /** Counters of the rate limits (adapters/rate-limits/flexible-rate-limiter.ts); shared by every process that must agree on them. */
  rateLimiter: RateLimiter;
  /** Image transformations on the view address (docs/images.md), e.g. adapters/images/sharp-image-transformer.ts. */
  images: ImageTransformer;
  /** Each account's key for signed URLs (docs/private-files.md); usually the repositories' `signingKeys`. */
  signingKeys: SigningKeyRepository;
  /** Signed upload URLs (docs/media.md); usually the repositories' `uploadUrls`. */
  uploadUrls: UploadUrlRepository;
  /** Share links of files (docs/private-files.md). */
  shares: ShareRepository;
  /** HMAC of signed URLs (adapters/crypto/node-hmac-url-signer.ts). */
  urlSigner: UrlSigner;
  /** The accounts' passkeys (docs/security.md, "Passkeys (WebAuthn)"). */
  passkeys: PasskeyRepository;
  /** Outstanding WebAuthn challenges, shared by every process on the database. */
  passkeyChallenges: PasskeyChallengeRepository;
  /** WebAuthn options and signature checks (adapters/crypto/simplewebauthn-verifier.ts). */
  webauthn: WebAuthnVerifier;
  /** Single-use invites for `REGISTRATION=invite`. */
  invites: InviteRepository;
  /** Links of accounts to OIDC identities. */
  oidcIdentities: OidcIdentityRepository;
  /** The short-lived state of OIDC sign-ins (flows, hand-over codes), shared by every process. */
  oidcFlows: OidcFlowRepository;
  /** The OpenID provider of single sign-on (adapters/sso/openid-client-provider.ts); absent: OIDC is off. */
  oidc?: OidcProvider;
  /** Webhook endpoints and their delivery log (docs/webhooks.md); usually the repositories' `webhooks`. */
  webhooks: WebhookRepository;
  /** Which webhook URLs may be reached (adapters/webhooks/public-addresses.ts). */
  webhookTargets: WebhookTargets;
  /** Accounts with their totals, for administrators (docs/admin.md). */
  accountDirectory: AccountDirectory;
  /** The audit log of administrator actions (docs/admin.md). */
  adminAudit: AdminAuditLog;
  /** Counts over the whole instance, for administrators (docs/admin.md). */
  instanceStatistics: InstanceStatistics;
  /** The plans administrators set, shared by every process (docs/admin.md). */
  planOverrides: PlanOverrideStore;
  /**
   * Media facts of files (docs/media.md); usually the repositories' `mediaFacts`. Absent: every
   * File's width, height, duration and thumbhash are null.
   */
  mediaFacts?: MediaFactsRepository;
  /**
   * Reads the media facts from stored bytes (adapters/media/). Absent: none are computed (the
   * facts already recorded are still shown), and the backfill answers NOT_IMPLEMENTED.
   */
  mediaProber?: MediaProber;
  /** The accounts being deleted in the background, with the lease of the process deleting each (docs/admin.md). */
  accountDeletions: AccountDeletionQueue;
  /** Crash and fault tests only (core/shared/failpoints.ts); none armed when absent. */
  failpoints?: Failpoints;
  /**
   * Changes committed by every process sharing the database (core/shared/change-feed.ts), for the
   * caches this process keeps; absent: {@link NO_OTHER_PROCESSES} (the core runs alone).
   */
  changes?: ChangeFeed;
}

/** Service-wide options, parsed from configuration by the host. */
export type HangarOptions = AccountOptions &
  FileOptions &
  ResumableUploadOptions &
  PlanOptions & {
    /** Days administrator audit entries are kept (`ADMIN_AUDIT_RETENTION_DAYS`); default 365. */
    adminAuditRetentionDays?: number;
    /** Addresses (normalised) whose accounts become administrators when they confirm (`ADMIN_EMAILS`). */
    adminEmails?: readonly string[];
    /** Days activity log entries are kept (`LOG_RETENTION_DAYS`); default 30. */
    logRetentionDays?: number;
    /**
     * Image transformations running at once in this process (`IMAGE_CONCURRENCY`, default 2) and
     * how long one may wait for a slot, in ms (`IMAGE_QUEUE_TIMEOUT_MS`, default 2000).
     */
    images?: {
      concurrency?: number;
      queueTimeoutMs?: number;
      /** Stored variants per file (`IMAGE_MAX_VARIANTS_PER_FILE`, default 20); new ones beyond it are computed, not stored. */
      maxVariantsPerFile?: number;
      /** Widths and heights (px) unsigned requests are snapped up to (`IMAGE_SIZE_LADDER`; default DEFAULT_SIZE_LADDER). */
      sizeLadder?: readonly number[];
      /** ms a request waits for a variant another process computes (default 30 s), then 503 IMAGE_BUSY. */
      claimWaitMs?: number;
    };
    /** Live API keys one account may hold (`API_KEYS_PER_ACCOUNT`); default DEFAULT_API_KEYS_PER_ACCOUNT (50). */
    apiKeysPerAccount?: number;
    /** The abuse limits (RATE_LIMIT_* variables); DEFAULT_RATE_LIMITS for what is absent. */
    rateLimits?: Partial<RateLimitOptions>;
    /** Called with errors of background work (eager log flushes) that has no caller to throw to. */
    onBackgroundError?: (error: unknown) => void;
    /** Webhook endpoints per account and the schemes allowed (WEBHOOKS_PER_ACCOUNT, WEBHOOK_ALLOW_HTTP). */
    webhooks?: WebhookOptions;
    /**
     * The background probes of new uploads (`MEDIA_PROBE_CONCURRENCY`, 0: none, and no catch-up
     * either; see MediaFactsQueueOptions), and the runtime's catch-up of files left without facts
     * (`catchUp`: see CatchUpMediaFactsOptions).
     */
    media?: { concurrency?: number; maxPending?: number; catchUp?: CatchUpMediaFactsOptions };
  };

/** Every use case of the core, wired to one set of ports. */
export type Hangar = ReturnType<typeof createHangar>;

/**
 * Wires every use case to `ports`. This is how a host embeds the core: build the ports (in-memory,
 * SQLite, local disk… or your own), call this, and call `hangar.uploadFile.execute(…)` and so on.
 * No container is needed; apps/server does the same through inversify.
 * Besides use cases it returns `usageMeter`, `fileReadCounts` and `activity`, buffers to `flush()` every
 * few seconds and at shutdown, and `pruneLogs`, `purgeCredentials` and `expireFiles`, to run now and then:
 * `new HangarRuntime(hangar).start()` (core/hangar-runtime.ts) does all of it, and `stop()` the last flush.
 * @throws Error when the plan options are inconsistent (unknown default plan, repeated names)
 */
export function createHangar(ports: HangarPorts, options: HangarOptions) {
  const { users, tokens, sessions, apiKeys, files, usage, logs, domains, edge, blobs, mailer, passwords, signer, ids, digest, clock, failpoints } = ports;
  const directory = new HostnameDirectory({ domains, changes: ports.changes ?? NO_OTHER_PROCESSES });
  const reservedHosts = [options.publicApiUrl, options.publicContentUrl].map((url) => parseUrl(url).hostname);
  const customDomains = new CustomDomains({ domains, edge, directory, clock, reservedHosts });
  const plans = new PlanCatalog(options);
  const accounts = new AccountPolicy({ users, plans, clock, options });
  const usageMeter = new UsageMeter({ usage, users, clock });
  const report = new AccountReport({ accounts, files });
  const issuer = new SessionIssuer({ sessions, users, signer, ids, digest, clock });
  const { mfa, totp, secretBox: box } = ports;
  const sessionIdleDays = options.sessionIdleDays;
  const links = new OneTimeLinks({ users, tokens, mailer, ids, digest, clock, options });
  const fileReadCounts = new FileReadCounts({ files });
  const addresses = new FileAddresses({ domains, options, counts: fileReadCounts, media: ports.mediaFacts });
  const recordMediaFacts =
    ports.mediaFacts && ports.mediaProber ? new RecordMediaFacts({ media: ports.mediaFacts, prober: ports.mediaProber, blobs, clock }) : undefined;
  // MEDIA_PROBE_CONCURRENCY=0: nothing is probed at upload; the backfill still can.
  const mediaFactsQueue =
    recordMediaFacts && options.media?.concurrency !== 0
      ? new MediaFactsQueue(recordMediaFacts, { ...options.media, onError: options.onBackgroundError })
      : undefined;
  // Files left without facts are caught up by the runtime's maintenance, where uploads are probed at all.
  const catchUpMediaFacts =
    mediaFactsQueue && recordMediaFacts && ports.mediaFacts
      ? new CatchUpMediaFacts({ media: ports.mediaFacts, record: recordMediaFacts, clock }, options.media?.catchUp)
      : undefined;
  const getSettings = new GetSettings({ accounts, addresses, domains });
  const limits = new RateLimits({ limiter: ports.rateLimiter, digest, options: options.rateLimits, clock });
  const mfaCodes = new MfaCodes({ mfa, totp, box, digest, limits, clock });
  const gate = new RegistrationGate({ invites: ports.invites, digest, clock, plans, mode: options.registration ?? 'open' });
  const oidcFlows = ports.oidcFlows;
  const contentHosts = [parseUrl(options.publicContentUrl).hostname, 'localhost', '127.0.0.1', '[::1]', '::1', ...(options.contentHosts ?? [])];
  const readPublicFile = new ReadPublicFile({ files, users, blobs, meter: usageMeter, directory, clock, counts: fileReadCounts, contentHosts });
  // The slots of image transformations: the public and signed addresses' (IMAGE_CONCURRENCY), and
  // the owner's thumbnails, one at a time beside them, queued up to 10 s (a page of tiles at once).
  const imageSlots = {
    public: new TransformSlots({ concurrency: options.images?.concurrency ?? 2, queueTimeoutMs: options.images?.queueTimeoutMs ?? 2_000 }),
    thumbnails: new TransformSlots({ concurrency: 1, queueTimeoutMs: 10_000 }),
  };
  const transformPublicImage = new TransformPublicImage({
    readPublicFile,
    files,
    blobs,
    variants: ports.imageVariants,
    transformer: ports.images,
    accounts,
    usage,
    meter: usageMeter,
    limits,
    ids,
    clock,
    slots: imageSlots.public,
    options: {
      maxVariantsPerFile: options.images?.maxVariantsPerFile,
      sizeLadder: options.images?.sizeLadder,
      claimWaitMs: options.images?.claimWaitMs,
      queueTimeoutMs: options.images?.queueTimeoutMs,
    },
    onBackgroundError: options.onBackgroundError,
  });
  const uploadFile = new UploadFile({
    accounts,
    files,
    blobs,
    addresses,
    ids,
    clock,
    options,
    failpoints,
    sniffer: ports.sniffer,
    limits,
    media: mediaFactsQueue,
  });
  // The relying party of passkeys is the API's origin, where the dashboard is served.
  const passkeyDeps = {
    users,
    passkeys: ports.passkeys,
    challenges: ports.passkeyChallenges,
    verifier: ports.webauthn,
    clock,
    rp: relyingPartyOf(options.publicApiUrl),
  };
  const activity = new ActivityRecorder({ logs, ids, clock, onError: options.onBackgroundError });
  const webhookDeps = { webhooks: ports.webhooks, targets: ports.webhookTargets, ids, clock, options: options.webhooks };
  const trail = new AdminTrail({ audit: ports.adminAudit, activity, ids, clock });
  const syncPlans = new SyncPlans({ store: ports.planOverrides, plans, changes: ports.changes });
  const createInvite = new CreateInvite({ invites: ports.invites, plans, ids, digest, clock, publicApiUrl: options.publicApiUrl });
  const revokeInvite = new RevokeInvite({ invites: ports.invites, clock });
  const getUsage = new GetUsage({ accounts, files, usage, meter: usageMeter, clock });
  const deleteAccount = new DeleteAccount({ users, files, blobs, uploads: ports.resumableUploads, partials: ports.partialBlobs, logs });
  const resumable = {
    accounts,
    files,
    uploads: ports.resumableUploads,
    partials: ports.partialBlobs,
    blobs,
    addresses,
    sniffer: ports.sniffer,
    ids,
    clock,
    limits,
    options,
    media: mediaFactsQueue,
  };
  const createResumableUpload = new CreateResumableUpload(resumable);
  return {
    /** The service's rate limits, for the delivery's own counts (slow request bodies: apps/http/upload-pacing.ts). */
    rateLimits: limits as Pick<RateLimits, 'slowBodyStarted' | 'slowBodyEnded'>,
    /** The image transformations running and queued, by pool (`public`, `thumbnails`): for metrics. */
    imageSlots: imageSlots as Readonly<Record<'public' | 'thumbnails', { readonly active: number; readonly queued: number }>>,
    usageMeter,
    fileReadCounts,
    activity,
    /** The background probes of new uploads (docs/media.md); undefined without a media prober. */
    mediaFactsQueue,
    /** The runtime's catch-up of files left without media facts (docs/media.md); undefined without a media prober or with probing off. */
    catchUpMediaFacts,
    /** `hangar files backfill-media`: media facts for the files that have none (docs/media.md). */
    backfillMediaFacts: new BackfillMediaFacts({ media: ports.mediaFacts ?? NO_MEDIA_FACTS_STORE, record: recordMediaFacts ?? NO_RECORDER }),
    expireFiles: new ExpireFiles({ files, blobs, activity, clock }),
    expireResumableUploads: new ExpireResumableUploads({ uploads: ports.resumableUploads, partials: ports.partialBlobs, clock }),
    expireUploadUrls: new ExpireUploadUrls({ uploadUrls: ports.uploadUrls, clock }),
    createResumableUpload,
    appendToResumableUpload: new AppendToResumableUpload(resumable),
    getResumableUpload: new GetResumableUpload(resumable),
    terminateResumableUpload: new TerminateResumableUpload(resumable),
    pruneLogs: new PruneLogs({ logs, clock, retentionDays: options.logRetentionDays ?? DEFAULT_LOG_RETENTION_DAYS }),
    purgeCredentials: new PurgeCredentials({
      tokens,
      sessions,
      mfa,
      passkeyChallenges: ports.passkeyChallenges,
      oidcFlows: ports.oidcFlows,
      clock,
      sessionIdleDays,
    }),
    registerAccount: new RegisterAccount({ users, links, passwords, ids, clock, plans, options, limits, gate }),
    createInvite,
    listInvites: new ListInvites({ invites: ports.invites, clock }),
    revokeInvite,
    issueInvite: new IssueInvite({ createInvite, trail }),
    withdrawInvite: new WithdrawInvite({ revokeInvite, trail }),
    getSignInProviders: new GetSignInProviders({ provider: ports.oidc, gate }),
    beginOidcSignIn: new BeginOidcSignIn({ provider: ports.oidc, flows: oidcFlows, digest, clock, limits }),
    completeOidcSignIn: new CompleteOidcSignIn({
      provider: ports.oidc,
      flows: oidcFlows,
      identities: ports.oidcIdentities,
      users,
      passwords,
      gate,
      ids,
      digest,
      clock,
    }),
    exchangeSignInCode: new ExchangeSignInCode({ flows: oidcFlows, users, issuer, digest, clock }),
    confirmEmail: new ConfirmEmail({ users, tokens, issuer, digest, clock, adminEmails: options.adminEmails }),
    logIn: new LogIn({ users, passwords, issuer, limits, mfa, ids, digest, clock }),
    completeMfaSignIn: new CompleteMfaSignIn({ users, mfa, codes: mfaCodes, issuer, digest, clock }),
    startTotpEnrolment: new StartTotpEnrolment({ users, mfa, passkeys: ports.passkeys, totp, box, clock, issuer: options.totpIssuer ?? 'Hangar' }),
    confirmTotpEnrolment: new ConfirmTotpEnrolment({ mfa, passkeys: ports.passkeys, sessions, codes: mfaCodes, limits, ids, digest, clock }),
    disableTotp: new DisableTotp({ mfa, codes: mfaCodes }),
    getMfaStatus: new GetMfaStatus({ mfa }),
    listSessions: new ListSessions({ sessions, clock, sessionIdleDays }),
    endSession: new EndSession({ sessions, clock }),
    refreshSession: new RefreshSession({
      sessions,
      issuer,
      ids,
      digest,
      clock,
      box,
      activity,
      reuseIntervalMs: options.refreshTokenReuseIntervalMs,
      sessionIdleDays,
    }),
    logOut: new LogOut({ sessions, clock }),
    requestPasswordReset: new RequestPasswordReset({ users, links, options, limits, onBackgroundError: options.onBackgroundError }),
    resendConfirmation: new ResendConfirmation({ users, links, options, limits, onBackgroundError: options.onBackgroundError }),
    resetPassword: new ResetPassword({ users, tokens, sessions, apiKeys, passwords, digest, clock }),
    startPasskeyRegistration: new StartPasskeyRegistration({ ...passkeyDeps, mfa }),
    finishPasskeyRegistration: new FinishPasskeyRegistration({ ...passkeyDeps, mfa, sessions, ids }),
    listPasskeys: new ListPasskeys(passkeyDeps),
    renamePasskey: new RenamePasskey(passkeyDeps),
    deletePasskey: new DeletePasskey(passkeyDeps),
    startPasskeySignIn: new StartPasskeySignIn({ ...passkeyDeps, limits }),
    signInWithPasskey: new SignInWithPasskey({ ...passkeyDeps, issuer }),
    authenticate: new Authenticate({ apiKeys, sessions, users, signer, digest, clock, limits, sessionIdleDays }),
    createApiKey: new CreateApiKey({ apiKeys, users, ids, digest, clock, maxPerAccount: options.apiKeysPerAccount }),
    listApiKeys: new ListApiKeys({ apiKeys, clock }),
    revokeApiKey: new RevokeApiKey({ apiKeys }),
    uploadFile,
    createUploadUrl: new CreateUploadUrl({
      uploadUrls: ports.uploadUrls,
      signingKeys: ports.signingKeys,
      signer: ports.urlSigner,
      apiKeys,
      ids,
      clock,
      publicApiUrl: options.publicApiUrl,
    }),
    uploadWithUrl: new UploadWithUrl({ uploadUrls: ports.uploadUrls, users, signer: ports.urlSigner, uploadFile, clock }),
    startResumableUploadWithUrl: new StartResumableUploadWithUrl({
      uploadUrls: ports.uploadUrls,
      users,
      signer: ports.urlSigner,
      createResumableUpload,
      clock,
    }),
    resumableUploadUrlOwner: new ResumableUploadUrlOwner({ uploadUrls: ports.uploadUrls, users, signer: ports.urlSigner, clock }),
    listFiles: new ListFiles({ files, addresses, options }),
    getFile: new GetFile({ files, addresses }),
    deleteFile: new DeleteFile({ files, blobs, accounts, failpoints }),
    bulkDeleteFiles: new BulkDeleteFiles({ files, blobs, accounts, failpoints }),
    readPublicFile,
    previewPublicFile: new PreviewPublicFile({ readPublicFile, contentHosts, publicContentUrl: options.publicContentUrl, media: ports.mediaFacts }),
    readOwnFile: new ReadOwnFile({ files, blobs, clock }),
    updateFile: new UpdateFile({ files, accounts, addresses, clock }),
    transformPublicImage,
    getOwnerThumbnail: new GetOwnerThumbnail({
      files,
      blobs,
      transformer: ports.images,
      onBackgroundError: options.onBackgroundError,
      slots: imageSlots.thumbnails,
    }),
    createSignedUrl: new CreateSignedUrl({ files, signingKeys: ports.signingKeys, signer: ports.urlSigner, apiKeys, clock, options }),
    readSignedFile: new ReadSignedFile({
      files,
      users,
      blobs,
      signer: ports.urlSigner,
      apiKeys,
      meter: usageMeter,
      counts: fileReadCounts,
      images: transformPublicImage,
      clock,
    }),
    signedDeletion: new SignedDeletion({
      files,
      blobs,
      accounts,
      signingKeys: ports.signingKeys,
      signer: ports.urlSigner,
      apiKeys,
      clock,
      options,
      failpoints,
    }),
    rotateSigningKey: new RotateSigningKey({ signingKeys: ports.signingKeys, signer: ports.urlSigner }),
    createShare: new CreateShare({ files, shares: ports.shares, apiKeys, passwords, ids, clock, options }),
    listShares: new ListShares({ files, shares: ports.shares, options }),
    revokeShare: new RevokeShare({ shares: ports.shares }),
    viewShare: new ViewShare({ files, users, shares: ports.shares, clock }),
    downloadShare: new DownloadShare({ files, users, shares: ports.shares, blobs, passwords, limits, meter: usageMeter, counts: fileReadCounts, clock }),
    getSettings,
    updateSettings: new UpdateSettings({ users, accounts, customDomains, settings: getSettings, clock }),
    getUsage,
    listLogs: new ListLogs({ logs }),
    getProfile: new GetProfile({ accounts }),
    listAccounts: new ListAccounts({ users, report }),
    showAccount: new ShowAccount({ users, report }),
    confirmAccount: new ConfirmAccount({ users, report, trail, clock }),
    resetTwoFactor: new ResetTwoFactor({ users, mfa }),
    changePlan: new ChangePlan({ users, plans, report, trail, clock }),
    setSubscription: new SetSubscription({ users, report, trail, clock }),
    deleteAccount,
    authorizeAdmin: new AuthorizeAdmin({ users, mfa: ports.mfa, passkeys: ports.passkeys }),
    searchAccounts: new SearchAccounts({ directory: ports.accountDirectory }),
    getAccountDetails: new GetAccountDetails({
      users,
      directory: ports.accountDirectory,
      accounts,
      usage: getUsage,
      audit: ports.adminAudit,
      deletions: ports.accountDeletions,
    }),
    updateAccount: new UpdateAccount({ users, plans, trail, clock }),
    revokeAccountSessions: new RevokeAccountSessions({ users, sessions, trail, clock }),
    resetAccountMfa: new ResetAccountMfa({ users, mfa, passkeys: ports.passkeys, sessions, mailer, trail, clock }),
    resendAccountConfirmation: new ResendAccountConfirmation({ users, links, trail }),
    removeAccount: new RemoveAccount({
      users,
      files,
      deleteAccount,
      deletions: ports.accountDeletions,
      trail,
      clock,
      ids,
      failpoints,
      onBackgroundError: options.onBackgroundError,
    }),
    listAdminAudit: new ListAdminAudit({ audit: ports.adminAudit }),
    getInstanceStats: new GetInstanceStats({ statistics: ports.instanceStatistics, clock }),
    /** The catalogue of plans as it stands (configured, and administrators' once synced). */
    plans,
    syncPlans,
    setPlan: new SetPlan({ store: ports.planOverrides, plans, sync: syncPlans, trail, clock }),
    pruneAdminAudit: new PruneAdminAudit({
      audit: ports.adminAudit,
      clock,
      retentionDays: options.adminAuditRetentionDays ?? DEFAULT_ADMIN_AUDIT_RETENTION_DAYS,
    }),
    checkStorage: new CheckStorage({ files, blobs, clock }),
    checkHealth: new CheckHealth({ probes: ports.probes }),
    createWebhook: new CreateWebhook(webhookDeps),
    listWebhooks: new ListWebhooks(webhookDeps),
    getWebhook: new GetWebhook(webhookDeps),
    updateWebhook: new UpdateWebhook(webhookDeps),
    deleteWebhook: new DeleteWebhook(webhookDeps),
    rotateWebhookSecret: new RotateWebhookSecret(webhookDeps),
    sendTestWebhook: new SendTestWebhook(webhookDeps),
    listWebhookDeliveries: new ListWebhookDeliveries(webhookDeps),
    retryWebhookDelivery: new RetryWebhookDelivery(webhookDeps),
    viewWebhookEvent: new ViewWebhookEvent({ addresses, getSettings, options }),
  };
}

/** Where there is no media facts repository: no file lacks facts, since none are kept. */
const NO_MEDIA_FACTS_STORE: MediaFactsRepository = {
  save: async () => false,
  findMany: async () => new Map(),
  filesWithout: async () => [],
  countWithout: async () => 0,
};

/** Where there is no media prober: the backfill is refused. */
const NO_RECORDER: Pick<RecordMediaFacts, 'execute'> = {
  execute: async () => {
    throw new DomainError('NOT_IMPLEMENTED', 'This server computes no media facts: it has no media prober.');
  },
};
