import { randomBytes } from 'node:crypto';
import type { HangarPorts } from '../../core/hangar.js';
import type { ChangeFeed } from '../../core/shared/change-feed.js';
import { MemoryBlobStore } from '../blobs/memory-blob-store.js';
import { MemoryPartialBlobStore } from '../blobs/memory-partial-blob-store.js';
import { MemoryChangeFeed } from '../changes/memory-change-feed.js';
import { FileTypeContentSniffer } from '../content/file-type-content-sniffer.js';
import { JoseTokenSigner } from '../crypto/jose-token-signer.js';
import { NodeHmacUrlSigner } from '../crypto/node-hmac-url-signer.js';
import { NodeIdGenerator } from '../crypto/node-id-generator.js';
import { NodeSecretBox } from '../crypto/node-secret-box.js';
import { NodeSecretDigest } from '../crypto/node-secret-digest.js';
import { OtplibTotp } from '../crypto/otplib-totp.js';
import { ScryptPasswordHasher } from '../crypto/scrypt-password-hasher.js';
import { SimpleWebAuthnVerifier } from '../crypto/simplewebauthn-verifier.js';
import { SystemClock } from '../crypto/system-clock.js';
import { MockEdgeProvider } from '../edge/mock-edge-provider.js';
import { UnavailableImageTransformer } from '../images/unavailable-image-transformer.js';
import { MemoryMailer } from '../mail/memory-mailer.js';
import { createMemoryRepositories } from '../persistence/memory/create-memory-repositories.js';
import { FlexibleRateLimiter } from '../rate-limits/flexible-rate-limiter.js';
import { PublicAddressPolicy } from '../webhooks/public-addresses.js';

/** Every port of {@link createHangar}, the change feed included. */
export type MemoryPorts = HangarPorts & { changes: ChangeFeed };

/**
 * Every port the core needs (`HangarPorts`), in memory and in this process, for a host that embeds
 * the core (`createHangar(createMemoryPorts(), options)`) and for tests. Nothing is written to disk
 * and everything is lost when the process ends. Only JavaScript and Node's built-in modules are
 * loaded, no native addon (argon2, sharp, better-sqlite3):
 * - repositories: `adapters/persistence/memory` (one `MemoryDatabase`), blobs: {@link MemoryBlobStore},
 *   resumable uploads' partial blobs: {@link MemoryPartialBlobStore};
 * - passwords: {@link ScryptPasswordHasher} with its default costs (scrypt N = 2^15, r = 8, p = 3);
 * - two-factor sign-in: {@link OtplibTotp}, TOTP secrets sealed by {@link NodeSecretBox} under a random key drawn here
 *   (enrolments end with the process);
 * - single sign-on: off (no `oidc` provider; pass one in `overrides`), invites kept in memory;
 * - passkeys: {@link SimpleWebAuthnVerifier} (@simplewebauthn/server, JavaScript and WebCrypto);
 * - images: {@link UnavailableImageTransformer} (transformations answer NOT_IMPLEMENTED, 501);
 * - media facts: kept in memory, none computed (no `mediaProber`: every File's width, height, duration
 *   and thumbhash stay null; pass `mediaProber`, e.g. adapters/media's, in `overrides` to compute them);
 * - mail: {@link MemoryMailer} (messages kept in `mailer.messages`, nothing sent);
 * - custom domains: {@link MockEdgeProvider} with CNAME target `cdn.localhost`;
 * - session tokens: {@link JoseTokenSigner} with a random 32-byte key drawn here (sessions end with the process);
 * - rate limits: counters in this process; ids, digests and URL signatures: `node:crypto`; the system clock;
 * - changes: a {@link MemoryChangeFeed} (one process, nobody else to hear from);
 * - webhooks: endpoints kept in memory, URLs checked by {@link PublicAddressPolicy} (public addresses only); no events are delivered;
 * - probes: the repositories' (`database`) and the blob store's (`blobs`).
 * @param overrides ports to use instead of the defaults (e.g. `{ blobs: myStore }`); the `blobs`
 *        probe asks the blob store in the result
 */
export function createMemoryPorts(overrides: Partial<HangarPorts> = {}): MemoryPorts {
  const repos = createMemoryRepositories();
  const blobs = overrides.blobs ?? new MemoryBlobStore();
  return {
    users: repos.users,
    tokens: repos.tokens,
    sessions: repos.sessions,
    mfa: repos.mfa,
    totp: new OtplibTotp(),
    secretBox: new NodeSecretBox({ keyMaterial: new Uint8Array(randomBytes(32)), purpose: 'hangar totp secrets' }),
    apiKeys: repos.apiKeys,
    files: repos.files,
    usage: repos.usage,
    logs: repos.logs,
    domains: repos.domains,
    imageVariants: repos.imageVariants,
    mediaFacts: repos.mediaFacts,
    signingKeys: repos.signingKeys,
    uploadUrls: repos.uploadUrls,
    shares: repos.shares,
    passkeys: repos.passkeys,
    passkeyChallenges: repos.passkeyChallenges,
    webauthn: new SimpleWebAuthnVerifier(),
    resumableUploads: repos.resumableUploads,
    invites: repos.invites,
    accountDirectory: repos.accountDirectory,
    adminAudit: repos.adminAudit,
    instanceStatistics: repos.instanceStatistics,
    planOverrides: repos.planOverrides,
    accountDeletions: repos.accountDeletions,
    oidcIdentities: repos.oidcIdentities,
    oidcFlows: repos.oidcFlows,
    webhooks: repos.webhooks,
    webhookTargets: new PublicAddressPolicy(),
    partialBlobs: new MemoryPartialBlobStore(blobs),
    edge: new MockEdgeProvider({ cnameTarget: 'cdn.localhost' }),
    mailer: new MemoryMailer(),
    passwords: new ScryptPasswordHasher(),
    signer: new JoseTokenSigner({ secret: new Uint8Array(randomBytes(32)) }),
    ids: new NodeIdGenerator(),
    digest: new NodeSecretDigest(),
    clock: new SystemClock(),
    sniffer: new FileTypeContentSniffer(),
    rateLimiter: FlexibleRateLimiter.memory(),
    images: new UnavailableImageTransformer(),
    urlSigner: new NodeHmacUrlSigner(),
    changes: new MemoryChangeFeed(),
    probes: [repos.probe, { name: 'blobs', check: () => blobs.ping() }],
    ...overrides,
    blobs,
  };
}
