import path from 'node:path';
import { Container, ContainerModule } from 'inversify';
import { createHangar } from '../../core/hangar.js';
import { NO_FAILPOINTS } from '../../core/shared/failpoints.js';
import { type Logger, SILENT_LOGGER } from '../../core/shared/logger.js';
import type { OidcProvider } from '../../core/sso/oidc-provider.js';
import { openBlobStore } from '../../adapters/blobs/open-blob-store.js';
import { FilePartialBlobStore } from '../../adapters/blobs/file-partial-blob-store.js';
import { Argon2PasswordHasher } from '../../adapters/crypto/argon2-password-hasher.js';
import { FileTypeContentSniffer } from '../../adapters/content/file-type-content-sniffer.js';
import { FlexibleRateLimiter } from '../../adapters/rate-limits/flexible-rate-limiter.js';
import { JoseTokenSigner } from '../../adapters/crypto/jose-token-signer.js';
import { NodeHmacUrlSigner } from '../../adapters/crypto/node-hmac-url-signer.js';
import { SimpleWebAuthnVerifier } from '../../adapters/crypto/simplewebauthn-verifier.js';
import { NodeIdGenerator } from '../../adapters/crypto/node-id-generator.js';
import { NodeSecretDigest } from '../../adapters/crypto/node-secret-digest.js';
import { SystemClock } from '../../adapters/crypto/system-clock.js';
import { SharpImageTransformer } from '../../adapters/images/sharp-image-transformer.js';
import { CompositeMediaProber } from '../../adapters/media/composite-media-prober.js';
import { IsolatedImageProber } from '../../adapters/media/isolated-image-prober.js';
import { IsobmffVideoMediaProber } from '../../adapters/media/isobmff-video-media-prober.js';
import { MusicMetadataMediaProber } from '../../adapters/media/music-metadata-media-prober.js';
import { MockEdgeProvider } from '../../adapters/edge/mock-edge-provider.js';
import { ProcessFailpoints } from '../../adapters/failpoints/process-failpoints.js';
import { FileOutboxMailer } from '../../adapters/mail/file-outbox-mailer.js';
import { SqlMailOutbox } from '../../adapters/mail/sql-mail-outbox.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/index.js';
import { SqlServiceSecrets } from '../../adapters/persistence/sql/sql-service-secrets.js';
import type { Config } from './config.js';
import { type OpenDatabase, openDatabase } from './database.js';
import { loadJwtSecret, loadServiceKey, TOTP_KEY_NAME } from './jwt-secret.js';
import { NodeSecretBox } from '../../adapters/crypto/node-secret-box.js';
import { OtplibTotp } from '../../adapters/crypto/otplib-totp.js';
import { namedDependencies } from './named-dependencies.js';
import { token, Tokens } from './tokens.js';
import type { Failpoints } from '../../core/shared/failpoints.js';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { PartialBlobStore } from '../../core/files/partial-blob-store.js';
import type { EdgeProvider } from '../../core/domains/edge-provider.js';
import type { ImageTransformer } from '../../core/images/image-transformer.js';
import { InstrumentedBlobStore } from '../../adapters/metrics/instrumented-blob-store.js';
import type { HangarMetrics } from './metrics.js';
import type { Hangar } from '../../core/hangar.js';
import type { Mailer } from '../../core/accounts/mailer.js';
import type { WebhookTargets } from '../../core/webhooks/webhook-targets.js';
import { HttpWebhookSender } from '../../adapters/webhooks/http-webhook-sender.js';
import { PublicAddressPolicy } from '../../adapters/webhooks/public-addresses.js';
import { SqlWebhookOutbox, WEBHOOK_RETRY_DELAYS_MS } from '../../adapters/webhooks/sql-webhook-outbox.js';
import { webhookPayloadJson } from '../http/presenters/presenters.js';

export type { OpenDatabase } from './database.js';

/** Extra tokens of the composition root (not core ports). */
export const RootTokens = {
  /** The process's Prometheus metrics, when METRICS_PORT turns them on. */
  Metrics: token<{ metrics?: HangarMetrics }>('Metrics'),
  Database: token<OpenDatabase>('Database'),
  MailQueue: token<SqlMailOutbox>('MailQueue'),
  /** The webhook delivery worker (started by apps/server/start.ts). */
  WebhookOutbox: token<SqlWebhookOutbox>('WebhookOutbox'),
  /** The waits before a webhook delivery's 2nd, 3rd… attempts, in ms (default WEBHOOK_RETRY_DELAYS_MS; tests shorten them). */
  WebhookRetryDelays: token<readonly number[]>('WebhookRetryDelays'),
  Process: token<ProcessRole>('Process'),
  /** The OpenID provider of single sign-on; `provider` absent when OIDC_ISSUER is not set. */
  Sso: token<{ provider?: OidcProvider }>('Sso'),
};

/** Where this process stands: alone, or one worker of a `node:cluster` (WORKERS > 1; apps/server/supervisor.ts). */
export interface ProcessRole {
  clusterWorker: boolean;
  /** A process that runs one command and exits (the admin CLI): no worker thread for SQLite's checkpoints (apps/server/database.ts). Default false. */
  shortLived?: boolean;
}

/** Persistence: the database chosen by DATABASE_URL and the repositories over it (one object: the core takes them as they are). */
export const persistenceModule = new ContainerModule(({ bind }) => {
  bind(RootTokens.Database)
    .toResolvedValue(
      (config: Config, logger: Logger, { metrics }: { metrics?: HangarMetrics }, role: ProcessRole): Promise<OpenDatabase> =>
        openDatabase(config.database, logger, {
          onQuery: metrics ? (durationMs, failed) => metrics.databaseQuery(durationMs / 1000, failed) : undefined,
          shortLived: role.shortLived === true,
        }),
      [Tokens.Config, Tokens.Logger, RootTokens.Metrics, RootTokens.Process],
    )
    .inSingletonScope();
  bind(Tokens.Repositories)
    .toResolvedValue((open: OpenDatabase) => createSqlRepositories(open), [RootTokens.Database])
    .inSingletonScope();
});

/** Blobs: the store chosen by BLOB_STORE_URL. */
export const blobsModule = new ContainerModule(({ bind }) => {
  bind(Tokens.BlobStore)
    .toResolvedValue(
      async (config: Config, failpoints: Failpoints, logger: Logger, { metrics }: { metrics?: HangarMetrics }): Promise<BlobStore> => {
        const store = await openBlobStore(config.blobs, { failpoints, logger });
        return metrics ? new InstrumentedBlobStore(store, (operation, seconds, failed) => metrics.blobOperation(operation, seconds, failed)) : store;
      },
      [Tokens.Config, Tokens.Failpoints, Tokens.Logger, RootTokens.Metrics],
    )
    .inSingletonScope();
  // Partial blobs of resumable uploads, beside the blob store (openPartialBlobStore).
  bind(Tokens.PartialBlobStore)
    .toResolvedValue(
      (config: Config, blobs: BlobStore): Promise<PartialBlobStore> => openPartialBlobStore(config.blobs, blobs),
      [Tokens.Config, Tokens.BlobStore],
    )
    .inSingletonScope();
});

/**
 * The partial blob store (resumable uploads, docs/api.md, "Resumable uploads") beside the blob store a
 * configuration names: partial files under `<blob directory>/.partial` for `file:`, a resumable
 * session per upload for `gs://`, a multipart upload (parts of 8 MiB) for `s3://`; the unaligned
 * tails of the last two live under `<prefix>/.partial/` in the same bucket. `blobs` is the server's
 * blob store, which the local-disk partials complete into.
 */
export async function openPartialBlobStore(config: Config['blobs'], blobs: BlobStore): Promise<PartialBlobStore> {
  switch (config.kind) {
    case 'file':
      return new FilePartialBlobStore({ directory: path.join(config.directory, '.partial'), blobs });
    case 'gcs': {
      const { GcsPartialBlobStore } = await import('../../adapters/blobs/gcs-partial-blob-store.js');
      return new GcsPartialBlobStore({
        bucket: config.bucket,
        prefix: config.prefix,
        apiEndpoint: config.apiEndpoint,
        chunkSizeBytes: config.resumableThresholdBytes,
      });
    }
    case 's3': {
      const { S3PartialBlobStore } = await import('../../adapters/blobs/s3-partial-blob-store.js');
      return new S3PartialBlobStore({
        bucket: config.bucket,
        prefix: config.prefix,
        endpoint: config.endpoint,
        region: config.region,
        forcePathStyle: config.forcePathStyle,
        credentials: config.credentials,
        ifNoneMatch: config.ifNoneMatch,
      });
    }
  }
}

/**
 * Images: sharp (libvips) for transformations on the view address (docs/images.md); media facts
 * (docs/media.md): sharp for images in a process of its own (IsolatedImageProber), a reader of the
 * ISOBMFF boxes for MP4/MOV video, music-metadata for other audio and video.
 */
export const imagesModule = new ContainerModule(({ bind }) => {
  bind(Tokens.MediaProber)
    .toResolvedValue(
      (config: Config) =>
        new CompositeMediaProber([
          new IsolatedImageProber({ maxInputPixels: config.imageTransformer.maxInputPixels }),
          new IsobmffVideoMediaProber(),
          new MusicMetadataMediaProber(),
        ]),
      [Tokens.Config],
    )
    .inSingletonScope();
  bind(Tokens.ImageTransformer)
    .toResolvedValue(
      (config: Config, { metrics }: { metrics?: HangarMetrics }): ImageTransformer => {
        const sharp = new SharpImageTransformer(config.imageTransformer);
        if (!metrics) return sharp;
        return {
          // A getter: reading the version loads sharp, which waits for the first image request.
          get version() {
            return sharp.version;
          },
          transform: async (options) => {
            const started = performance.now();
            try {
              const result = await sharp.transform(options);
              metrics.imageTransform((performance.now() - started) / 1000, false);
              return result;
            } catch (error) {
              metrics.imageTransform((performance.now() - started) / 1000, true);
              throw error;
            }
          },
        };
      },
      [Tokens.Config, RootTokens.Metrics],
    )
    .inSingletonScope();
});

/**
 * Mail: the transport chosen by MAIL_URL, behind the durable outbox (`mail_outbox`, SqlMailOutbox):
 * a request waits only for the row's insert, and a message survives a crash until it is sent.
 */
export const mailModule = new ContainerModule(({ bind }) => {
  bind(RootTokens.MailQueue)
    .toResolvedValue(
      async (config: Config, logger: Logger, open: OpenDatabase) => {
        // Loaded only when chosen, like the GCS and Cloudflare clients: a file outbox never reads nodemailer's modules.
        const mail = config.mail;
        const transport =
          mail.kind === 'smtp'
            ? new (await import('../../adapters/mail/smtp-mailer.js')).SmtpMailer({ url: mail.url, from: config.mailFrom })
            : new FileOutboxMailer({ directory: mail.directory });
        return new SqlMailOutbox({ db: open.db, transport, logger });
      },
      [Tokens.Config, Tokens.Logger, RootTokens.Database],
    )
    .inSingletonScope();
  bind(Tokens.Mailer).toResolvedValue((queue: SqlMailOutbox) => queue, [RootTokens.MailQueue]);
});

/**
 * Webhooks (docs/webhooks.md): the address policy (WEBHOOK_ALLOW_PRIVATE_NETWORKS) that checks URLs at
 * creation and before each delivery, and the delivery worker over the outbox `webhook_deliveries`,
 * sending through node:http(s) pinned to the checked address, payloads rendered by the API's presenters.
 */
export const webhooksModule = new ContainerModule(({ bind }) => {
  bind(Tokens.WebhookTargets)
    .toResolvedValue((config: Config) => new PublicAddressPolicy(config.webhookTargets), [Tokens.Config])
    .inSingletonScope();
  bind(RootTokens.WebhookRetryDelays).toConstantValue(WEBHOOK_RETRY_DELAYS_MS);
  bind(RootTokens.WebhookOutbox)
    .toResolvedValue(
      (
        config: Config,
        logger: Logger,
        open: OpenDatabase,
        targets: WebhookTargets,
        mailer: Mailer,
        hangar: Hangar,
        { metrics }: { metrics?: HangarMetrics },
        retryDelaysMs: readonly number[],
      ) =>
        new SqlWebhookOutbox({
          db: open.db,
          sender: new HttpWebhookSender({ policy: targets as PublicAddressPolicy, allowHttp: config.core.webhooks.allowHttp }),
          render: async (event) => webhookPayloadJson(await hangar.viewWebhookEvent.execute(event)),
          mailer,
          logger,
          onOutcome: metrics ? (outcome) => metrics.webhookDelivery(outcome) : undefined,
          retryDelaysMs,
        }),
      [
        Tokens.Config,
        Tokens.Logger,
        RootTokens.Database,
        Tokens.WebhookTargets,
        Tokens.Mailer,
        Tokens.Hangar,
        RootTokens.Metrics,
        RootTokens.WebhookRetryDelays,
      ],
    )
    .inSingletonScope();
});

/** Custom hostnames: the provider chosen by EDGE_PROVIDER. */
export const edgeModule = new ContainerModule(({ bind }) => {
  bind(Tokens.EdgeProvider)
    .toResolvedValue(
      async (config: Config): Promise<EdgeProvider> => {
        switch (config.edge.kind) {
          case 'mock':
            return new MockEdgeProvider({ cnameTarget: config.edge.cnameTarget });
          case 'cloudflare': {
            // Loaded only when chosen: the Cloudflare SDK takes about a second to load, on every start.
            const { CloudflareEdgeProvider } = await import('../../adapters/edge/cloudflare-edge-provider.js');
            return new CloudflareEdgeProvider({
              apiToken: config.edge.apiToken,
              zoneId: config.edge.zoneId,
              baseUrl: config.edge.baseUrl,
              cnameTarget: config.edge.cnameTarget,
            });
          }
        }
      },
      [Tokens.Config],
    )
    .inSingletonScope();
});

/** Crypto and time: argon2id, HS256 JWTs, CSPRNG ids, SHA-256, the system clock. */
export const cryptoModule = new ContainerModule(({ bind }) => {
  bind(Tokens.PasswordHasher)
    .toResolvedValue((config: Config) => new Argon2PasswordHasher(config.passwordHasher), [Tokens.Config])
    .inSingletonScope();
  bind(Tokens.UrlSigner).toConstantValue(new NodeHmacUrlSigner());
  bind(Tokens.WebAuthnVerifier).toConstantValue(new SimpleWebAuthnVerifier());
  bind(Tokens.TokenSigner)
    .toResolvedValue(
      async (config: Config, open: OpenDatabase) => new JoseTokenSigner({ secret: await loadJwtSecret(config.jwtSecret, new SqlServiceSecrets(open.db)) }),
      [Tokens.Config, RootTokens.Database],
    )
    .inSingletonScope();
  // TOTP secrets are sealed with a key of their own kept in service_secrets, not JWT_SECRET: setting or changing that must not lock out every enrolled account.
  bind(Tokens.SecretBox)
    .toResolvedValue(
      async (open: OpenDatabase) =>
        new NodeSecretBox({ keyMaterial: await loadServiceKey(TOTP_KEY_NAME, new SqlServiceSecrets(open.db)), purpose: 'hangar totp secrets' }),
      [RootTokens.Database],
    )
    .inSingletonScope();
  bind(Tokens.Totp).toConstantValue(new OtplibTotp());
  bind(Tokens.IdGenerator).toConstantValue(new NodeIdGenerator());
  bind(Tokens.SecretDigest).toConstantValue(new NodeSecretDigest());
  bind(Tokens.Clock).toConstantValue(new SystemClock());
  bind(Tokens.ContentSniffer).toConstantValue(new FileTypeContentSniffer());
});

/**
 * Rate limits: counters in Postgres when DATABASE_URL is Postgres (so every process sharing it
 * shares the limits); else, in a cluster worker, in the cluster's primary (shared by its workers);
 * else in this process's memory. Separate SQLite server processes that are not one cluster count
 * apart (docs/operations.md, "Several processes behind a load balancer").
 */
export const rateLimitsModule = new ContainerModule(({ bind }) => {
  bind(Tokens.RateLimiter)
    .toResolvedValue(
      async (open: OpenDatabase, role: ProcessRole) => {
        if (open.postgresPool) return FlexibleRateLimiter.postgres(open.postgresPool);
        return role.clusterWorker ? FlexibleRateLimiter.cluster() : FlexibleRateLimiter.memory();
      },
      [RootTokens.Database, RootTokens.Process],
    )
    .inSingletonScope();
});

/**
 * Single sign-on: the OpenID provider of OIDC_ISSUER through openid-client, loaded only when
 * configured; its callback is `{PUBLIC_API_URL}/auth/oidc/callback` (config.oidc.redirectUri).
 */
export const ssoModule = new ContainerModule(({ bind }) => {
  bind(RootTokens.Sso)
    .toResolvedValue(
      async (config: Config): Promise<{ provider?: OidcProvider }> => {
        if (!config.oidc) return {};
        const { OpenIdClientProvider } = await import('../../adapters/sso/openid-client-provider.js');
        return { provider: new OpenIdClientProvider(config.oidc) };
      },
      [Tokens.Config],
    )
    .inSingletonScope();
});

/** Failpoints: none in production; the ones HANGAR_FAILPOINTS arms in crash and fault tests. */
export const failpointsModule = new ContainerModule(({ bind }) => {
  bind(Tokens.Failpoints)
    .toResolvedValue(
      (config: Config): Failpoints => (config.failpoints.length === 0 ? NO_FAILPOINTS : new ProcessFailpoints({ armed: config.failpoints })),
      [Tokens.Config],
    )
    .inSingletonScope();
});

/**
 * The core: every use case wired to the ports above, with the core's options as the configuration
 * holds them (`config.core`) and background failures logged.
 */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(Tokens.Hangar)
    .toResolvedValue(
      ...namedDependencies(
        {
          config: Tokens.Config,
          logger: Tokens.Logger,
          repositories: Tokens.Repositories,
          totp: Tokens.Totp,
          secretBox: Tokens.SecretBox,
          webauthn: Tokens.WebAuthnVerifier,
          webhookTargets: Tokens.WebhookTargets,
          sso: RootTokens.Sso,
          edge: Tokens.EdgeProvider,
          blobs: Tokens.BlobStore,
          partialBlobs: Tokens.PartialBlobStore,
          mailer: Tokens.Mailer,
          passwords: Tokens.PasswordHasher,
          signer: Tokens.TokenSigner,
          urlSigner: Tokens.UrlSigner,
          ids: Tokens.IdGenerator,
          digest: Tokens.SecretDigest,
          clock: Tokens.Clock,
          failpoints: Tokens.Failpoints,
          images: Tokens.ImageTransformer,
          mediaProber: Tokens.MediaProber,
          sniffer: Tokens.ContentSniffer,
          rateLimiter: Tokens.RateLimiter,
          database: RootTokens.Database,
        },
        ({ config, logger, repositories: { probe, ...repositories }, database, sso, ...ports }) =>
          createHangar(
            {
              ...repositories,
              ...ports,
              oidc: sso.provider,
              probes: [probe, { name: 'blob_store', check: () => ports.blobs.ping() }],
              changes: database.changes,
            },
            { ...config.core, onBackgroundError: (error) => logger.error('background_work_failed', { error: error instanceof Error ? error : String(error) }) },
          ),
      ),
    )
    .inSingletonScope();
});

/**
 * Builds the container for `config`: one module per adapter family, chosen by configuration.
 * `role` says whether this process is a cluster worker (default: it runs alone); `logger` is where
 * every adapter's messages go (default: none written); with `metrics`, the blob store and the image
 * transformer report their operations' durations there.
 */
export function buildContainer(
  config: Config,
  role: ProcessRole = { clusterWorker: false },
  logger: Logger = SILENT_LOGGER,
  metrics?: HangarMetrics,
): Container {
  const container = new Container();
  container.bind(RootTokens.Metrics).toConstantValue({ metrics });
  container.bind(Tokens.Config).toConstantValue(config);
  container.bind(Tokens.Logger).toConstantValue(logger);
  container.bind(RootTokens.Process).toConstantValue(role);
  container.load(
    persistenceModule,
    blobsModule,
    mailModule,
    webhooksModule,
    edgeModule,
    cryptoModule,
    failpointsModule,
    imagesModule,
    rateLimitsModule,
    ssoModule,
    coreModule,
  );
  return container;
}
