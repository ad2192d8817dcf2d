import type { Mailer } from '../../core/accounts/mailer.js';
import type { PasswordHasher } from '../../core/accounts/password-hasher.js';
import type { SecretBox } from '../../core/accounts/secret-box.js';
import type { Totp } from '../../core/accounts/totp.js';
import type { TokenSigner } from '../../core/accounts/token-signer.js';
import type { UrlSigner } from '../../core/files/url-signer.js';
import type { WebAuthnVerifier } from '../../core/passkeys/webauthn-verifier.js';
import type { BlobStore } from '../../core/files/blob-store.js';
import type { ImageTransformer } from '../../core/images/image-transformer.js';
import type { MediaProber } from '../../core/media/media-prober.js';
import type { PartialBlobStore } from '../../core/files/partial-blob-store.js';
import type { EdgeProvider } from '../../core/domains/edge-provider.js';
import type { Hangar } from '../../core/hangar.js';
import type { Clock } from '../../core/shared/clock.js';
import type { ContentSniffer } from '../../core/files/content-sniffer.js';
import type { RateLimiter } from '../../core/shared/rate-limiter.js';
import type { Failpoints } from '../../core/shared/failpoints.js';
import type { IdGenerator } from '../../core/shared/id-generator.js';
import type { SecretDigest } from '../../core/shared/secret-digest.js';
import type { Logger } from '../../core/shared/logger.js';
import type { ServiceIdentifier } from 'inversify';
import type { Repositories } from '../../adapters/persistence/repositories.js';
import type { Config } from './config.js';
import type { WebhookTargets } from '../../core/webhooks/webhook-targets.js';

/**
 * A container token for a value of type `T`: a Symbol with the name of the interface it stands for.
 * inversify's `ServiceIdentifier<T>` is `string | symbol | Newable<T> | …`, so a Symbol is one as it
 * is; `T` is what `bind(token).toResolvedValue(…)` and `container.get(token)` check and infer.
 */
export function token<T>(name: string): ServiceIdentifier<T> {
  return Symbol(name);
}

/**
 * Container tokens: one per port an adapter family provides, plus the configuration, the core and
 * the logger. The repositories are one token (`Repositories`): the persistence family builds them
 * together over one database, and the core takes them as they are.
 */
export const Tokens = {
  Config: token<Config>('Config'),
  Repositories: token<Repositories>('Repositories'),
  Totp: token<Totp>('Totp'),
  SecretBox: token<SecretBox>('SecretBox'),
  WebhookTargets: token<WebhookTargets>('WebhookTargets'),
  EdgeProvider: token<EdgeProvider>('EdgeProvider'),
  BlobStore: token<BlobStore>('BlobStore'),
  PartialBlobStore: token<PartialBlobStore>('PartialBlobStore'),
  ImageTransformer: token<ImageTransformer>('ImageTransformer'),
  MediaProber: token<MediaProber>('MediaProber'),
  Mailer: token<Mailer>('Mailer'),
  PasswordHasher: token<PasswordHasher>('PasswordHasher'),
  TokenSigner: token<TokenSigner>('TokenSigner'),
  UrlSigner: token<UrlSigner>('UrlSigner'),
  WebAuthnVerifier: token<WebAuthnVerifier>('WebAuthnVerifier'),
  IdGenerator: token<IdGenerator>('IdGenerator'),
  SecretDigest: token<SecretDigest>('SecretDigest'),
  Clock: token<Clock>('Clock'),
  ContentSniffer: token<ContentSniffer>('ContentSniffer'),
  RateLimiter: token<RateLimiter>('RateLimiter'),
  Failpoints: token<Failpoints>('Failpoints'),
  Hangar: token<Hangar>('Hangar'),
  Logger: token<Logger>('Logger'),
};
