// The core wired to in-memory adapters, a settable clock and a mailer whose messages tests can read.
// Used by test/core: every use case runs in-process, with real hashing, signing and digests.
import { PublicAddressPolicy } from '../../adapters/webhooks/public-addresses.js';
import { FakeWebAuthnVerifier } from './fake-webauthn-verifier.js';
import { MemoryPartialBlobStore } from '../../adapters/blobs/memory-partial-blob-store.js';
import { expect } from 'chai';
import { Argon2PasswordHasher } from '../../adapters/crypto/argon2-password-hasher.js';
import { JoseTokenSigner } from '../../adapters/crypto/jose-token-signer.js';
import { NodeHmacUrlSigner } from '../../adapters/crypto/node-hmac-url-signer.js';
import { NodeIdGenerator } from '../../adapters/crypto/node-id-generator.js';
import { NodeSecretDigest } from '../../adapters/crypto/node-secret-digest.js';
import { NodeSecretBox } from '../../adapters/crypto/node-secret-box.js';
import { OtplibTotp } from '../../adapters/crypto/otplib-totp.js';
import { MemoryBlobStore } from '../../adapters/blobs/memory-blob-store.js';
import { FileTypeContentSniffer } from '../../adapters/content/file-type-content-sniffer.js';
import { FlexibleRateLimiter } from '../../adapters/rate-limits/flexible-rate-limiter.js';
import { SharpImageTransformer } from '../../adapters/images/sharp-image-transformer.js';
import { MemoryMailer } from '../../adapters/mail/memory-mailer.js';
import { MockEdgeProvider } from '../../adapters/edge/mock-edge-provider.js';
import { createMemoryRepositories } from '../../adapters/persistence/memory/index.js';
import {
  type BlobStore,
  type BlobEntry,
  type ByteRange,
  createHangar,
  DEFAULT_ALLOWED_CONTENT_TYPES,
  mediaTypeOf,
  DomainError,
  type ErrorCode,
  type Hangar,
  type HangarOptions,
  type HangarPorts,
  type MailMessage,
  type Plan,
  type SessionTokens,
  type Usage,
} from '../../core/index.js';
import { FixedClock } from './fixed-clock.js';
import { signatureLength, withSignature } from './bytes.js';

/** Where every test's clock starts: a whole second, so `expires_at` arithmetic is exact. */
export const START = new Date('2025-03-01T12:00:00.000Z');
/** HS256 secret of the test signer (32 bytes). */
export const TEST_SECRET = new Uint8Array(32).map((_, i) => i + 1);
export const DEFAULT_PASSWORD = 'correct horse battery';

export const MIB = 1024 * 1024;

/** The plan of new test accounts: a 14-day trial, 10 000 bytes, 10 files, a 1 MiB upload ceiling. */
export const TRIAL_PLAN: Plan = { name: 'trial', trialDays: 14, storageLimitBytes: 10_000, fileCountLimit: 10, maxUploadSizeBytes: MIB };
/** A paid plan without trial end and with larger limits, for plan changes. */
export const PRO_PLAN: Plan = { name: 'pro', trialDays: null, storageLimitBytes: 10 * MIB, fileCountLimit: 1000, maxUploadSizeBytes: 10 * MIB };

export const TEST_OPTIONS: HangarOptions = {
  publicApiUrl: 'http://api.test',
  publicContentUrl: 'http://cdn.test',
  allowedRedirectUrls: ['http://app.test/welcome'],
  allowedContentTypes: DEFAULT_ALLOWED_CONTENT_TYPES,
  defaultMaxUploadSizeBytes: 1024,
  plans: [TRIAL_PLAN, PRO_PLAN],
  defaultPlan: TRIAL_PLAN.name,
};

/** Options whose default plan is {@link TRIAL_PLAN} changed by `changes` (PRO_PLAN stays on offer). */
export function withTrialPlan(changes: Partial<Omit<Plan, 'name'>>): Partial<HangarOptions> {
  return { plans: [{ ...TRIAL_PLAN, ...changes }, PRO_PLAN], defaultPlan: TRIAL_PLAN.name };
}

/**
 * A BlobStore that remembers every key it was asked to write, so a test can check that a refused
 * upload left nothing behind without knowing the file id the use case drew.
 */
export class RecordingBlobStore implements BlobStore {
  readonly putKeys: string[] = [];

  constructor(readonly inner: BlobStore) {}

  put(options: Parameters<BlobStore['put']>[0]): Promise<{ size: number; sha256: string }> {
    this.putKeys.push(options.key);
    return this.inner.put(options);
  }

  get(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    return this.inner.get(key, range);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  deleteUnder(parent: string): Promise<void> {
    return this.inner.deleteUnder(parent);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  list(): AsyncIterable<BlobEntry> {
    return this.inner.list();
  }

  stat(key: string): Promise<BlobEntry | undefined> {
    return this.inner.stat(key);
  }

  /** Keys written at some point that still hold a blob. */
  async liveKeys(): Promise<string[]> {
    const live: string[] = [];
    for (const key of new Set(this.putKeys)) {
      if ((await this.inner.get(key)) !== undefined) live.push(key);
    }
    return live;
  }
}

/** A password sign-in that must open a session (an account without TOTP): the LogIn result narrowed. */
export async function passwordSignIn(
  hangar: Hangar,
  input: Parameters<Hangar['logIn']['execute']>[0],
): Promise<{ user: Awaited<ReturnType<Hangar['logIn']['execute']>>['user']; session: SessionTokens }> {
  const result = await hangar.logIn.execute(input);
  if (result.session === undefined) throw new Error('The sign-in asked for a second factor.');
  return { user: result.user, session: result.session };
}

export type MemoryRepositories = ReturnType<typeof createMemoryRepositories>;

/**
 * Builds the core on in-memory adapters. `overrides` replaces options; `replacePorts` may swap
 * ports (e.g. a FileRepository whose insert fails) given the defaults.
 */
export function createMemoryHangar(overrides: Partial<HangarOptions> = {}, replacePorts?: (defaults: HangarPorts) => Partial<HangarPorts>) {
  const repos = createMemoryRepositories();
  const clock = new FixedClock(START);
  const mailer = new MemoryMailer();
  const blobs = new RecordingBlobStore(new MemoryBlobStore());
  const defaults: HangarPorts = {
    users: repos.users,
    tokens: repos.tokens,
    sessions: repos.sessions,
    mfa: repos.mfa,
    totp: new OtplibTotp(),
    secretBox: new NodeSecretBox({ keyMaterial: TEST_SECRET, purpose: 'hangar totp secrets' }),
    apiKeys: repos.apiKeys,
    files: repos.files,
    resumableUploads: repos.resumableUploads,
    partialBlobs: new MemoryPartialBlobStore(blobs),
    usage: repos.usage,
    logs: repos.logs,
    imageVariants: repos.imageVariants,
    mediaFacts: repos.mediaFacts,
    domains: repos.domains,
    edge: new MockEdgeProvider({ cnameTarget: 'cdn.test' }),
    blobs,
    mailer,
    passwords: new Argon2PasswordHasher({ memoryCost: 1024, timeCost: 1 }),
    signer: new JoseTokenSigner({ secret: TEST_SECRET }),
    ids: new NodeIdGenerator(),
    digest: new NodeSecretDigest(),
    clock,
    probes: [repos.probe, { name: 'blobs', check: () => blobs.ping() }],
    sniffer: new FileTypeContentSniffer(),
    rateLimiter: FlexibleRateLimiter.memory(),
    images: new SharpImageTransformer(),
    signingKeys: repos.signingKeys,
    uploadUrls: repos.uploadUrls,
    shares: repos.shares,
    urlSigner: new NodeHmacUrlSigner(),
    passkeys: repos.passkeys,
    passkeyChallenges: repos.passkeyChallenges,
    webauthn: new FakeWebAuthnVerifier(),
    invites: repos.invites,
    oidcIdentities: repos.oidcIdentities,
    oidcFlows: repos.oidcFlows,
    webhooks: repos.webhooks,
    webhookTargets: new PublicAddressPolicy(),
    accountDirectory: repos.accountDirectory,
    adminAudit: repos.adminAudit,
    instanceStatistics: repos.instanceStatistics,
    planOverrides: repos.planOverrides,
    accountDeletions: repos.accountDeletions,
  };
  const ports: HangarPorts = { ...defaults, ...(replacePorts?.(defaults) ?? {}) };
  /** Errors of background work (eager log flushes) reported through `onBackgroundError`. */
  const backgroundErrors: unknown[] = [];
  const options: HangarOptions = { ...TEST_OPTIONS, onBackgroundError: (error) => backgroundErrors.push(error), ...overrides };
  const hangar: Hangar = createHangar(ports, options);

  /** Messages sent to `email` (normalised), oldest first. */
  function mailTo(email: string): MailMessage[] {
    return mailer.messages.filter((m) => m.to === email.trim().toLowerCase());
  }

  /** The token of the newest link of this kind mailed to `email`. */
  function lastToken(email: string, kind: 'confirm' | 'reset-password'): string {
    const messages = mailTo(email).filter((m) => m.text.includes(`${LINK_PATHS[kind]}?token=`));
    expect(messages, `no ${LINK_PATHS[kind]} link was mailed to ${email}`).to.not.be.empty;
    return tokenIn(messages[messages.length - 1], kind);
  }

  /** Registers and confirms `email` through the use cases, as a user clicking the link would. */
  async function registerConfirmed(
    email: string,
    password = DEFAULT_PASSWORD,
  ): Promise<{ userId: string; email: string; password: string; session: SessionTokens }> {
    await hangar.registerAccount.execute({ email, password });
    const confirmed = await hangar.confirmEmail.execute({ token: lastToken(email, 'confirm') });
    return { userId: confirmed.userId, email: email.trim().toLowerCase(), password, session: confirmed.session };
  }

  /**
   * Uploads `size` bytes (or `body`) for `userId`; defaults: text/plain, no name, public. Generated
   * bytes ({@link pattern}) of a type with a signature (PNG, PDF, MP4…) start with that signature,
   * as the upload requires (CONTENT_TYPE_MISMATCH otherwise).
   */
  function upload(
    userId: string,
    input: { size?: number; body?: AsyncIterable<Uint8Array>; contentType?: string; fileName?: string; isPublic?: boolean; contentLength?: number } = {},
  ) {
    return hangar.uploadFile.execute({
      userId,
      contentType: input.contentType ?? 'text/plain',
      fileName: input.fileName,
      isPublic: input.isPublic,
      contentLength: input.contentLength,
      body: input.body ?? signedBytes(mediaTypeOf(input.contentType) ?? 'text/plain', input.size ?? 16),
    });
  }

  /** The account's usage now (GET /usage). */
  function usage(userId: string): Promise<Usage> {
    return hangar.getUsage.execute({ userId });
  }

  /** The account's stored totals as GET /usage reports them. */
  async function totals(userId: string): Promise<{ storageBytes: number; filesCount: number }> {
    const { storageBytes, filesCount } = await usage(userId);
    return { storageBytes, filesCount };
  }

  return { hangar, ports, repos, clock, mailer, blobs, options, backgroundErrors, mailTo, lastToken, registerConfirmed, upload, usage, totals };
}

export type MemoryHangar = ReturnType<typeof createMemoryHangar>;

/** Where each mailed link points under PUBLIC_API_URL: confirmation on the API, reset on the dashboard's screen. */
export const LINK_PATHS = { confirm: '/auth/confirm', 'reset-password': '/#/reset' } as const;

/** The token of a confirmation (`/auth/confirm?token=…`) or reset (`/#/reset?token=…`) link in a message's text. */
export function tokenIn(message: MailMessage, kind: 'confirm' | 'reset-password'): string {
  const match = new RegExp(`http://api\\.test${LINK_PATHS[kind].replace(/[/#]/g, '\\$&')}\\?token=([0-9A-Za-z]+)`).exec(message.text);
  expect(match, `message "${message.subject}" has no ${LINK_PATHS[kind]} link`).to.not.equal(null);
  return match![1];
}

/** The deterministic content of `bytes(n)`: byte i is `i % 251`. */
export function pattern(n: number, offset = 0): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i + offset) % 251);
}

/** An async-iterable body of `n` bytes (see {@link pattern}) in chunks of `chunkSize`. */
export async function* bytes(n: number, chunkSize = 100): AsyncIterable<Uint8Array> {
  for (let at = 0; at < n; at += chunkSize) yield pattern(Math.min(chunkSize, n - at), at);
}

/** {@link bytes} of `n` bytes whose start is `contentType`'s signature (see bytes.ts), when it has one and `n` leaves room for it. */
export async function* signedBytes(contentType: string, n: number): AsyncIterable<Uint8Array> {
  const length = signatureLength(contentType);
  if (length === 0 || n < length) return yield* bytes(n);
  const first = withSignature(contentType, pattern(Math.min(n, Math.max(100, length))));
  yield first;
  if (n > first.byteLength) yield* shifted(n - first.byteLength, first.byteLength);
}

async function* shifted(n: number, offset: number, chunkSize = 100): AsyncIterable<Uint8Array> {
  for (let at = 0; at < n; at += chunkSize) yield pattern(Math.min(chunkSize, n - at), offset + at);
}

/** The bytes {@link signedBytes} yields: {@link pattern} with `contentType`'s signature at the start. */
export function signedPattern(contentType: string, n: number): Uint8Array {
  return n < signatureLength(contentType) ? pattern(n) : withSignature(contentType, pattern(n));
}

/** An async-iterable body yielding `data` once. */
export async function* bodyOf(data: Uint8Array | string): AsyncIterable<Uint8Array> {
  yield typeof data === 'string' ? new TextEncoder().encode(data) : data;
}

/** A body that fails the test (and the upload) if anyone starts reading it. */
export function untouchableBody(): AsyncIterable<Uint8Array> & { touched: boolean } {
  const body = {
    touched: false,
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      body.touched = true;
      throw new Error('the body must not be read');
    },
  };
  return body;
}

/** A body that yields `n` bytes, then fails as a dropped connection would. */
export async function* brokenBody(n: number): AsyncIterable<Uint8Array> {
  yield pattern(n);
  throw new Error('socket hang up');
}

/** Reads a whole body into one Buffer. */
export async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Settles every promise and sorts the outcomes: values, and DomainError codes (other errors are rethrown). */
export async function settle<T>(promises: Promise<T>[]): Promise<{ values: T[]; codes: ErrorCode[] }> {
  const outcomes = await Promise.allSettled(promises);
  const values: T[] = [];
  const codes: ErrorCode[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') values.push(outcome.value);
    else if (outcome.reason instanceof DomainError) codes.push(outcome.reason.code);
    else throw outcome.reason;
  }
  return { values, codes };
}

/** A promise with its resolve/reject exposed, to hold a fake port's answer until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Awaits `promise`, expects a DomainError with `code`, and returns it. */
export async function expectDomainError(promise: Promise<unknown>, code: ErrorCode): Promise<DomainError> {
  let outcome: unknown;
  try {
    await promise;
  } catch (error) {
    outcome = error;
  }
  expect(outcome, `expected DomainError ${code}, but it resolved`).to.be.instanceOf(Error);
  expect(outcome, `expected DomainError ${code}, got ${String(outcome)}`).to.be.instanceOf(DomainError);
  expect((outcome as DomainError).code).to.equal(code);
  return outcome as DomainError;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
