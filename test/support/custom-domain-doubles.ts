// Hand-written doubles for the custom-domain tests: an edge provider that records every call and
// can be told to fail or hold the next one, and a domain repository whose save can throw, answer
// `taken` or wait. Both wrap the real in-memory adapters, so state stays consistent.
import type { CustomDomain } from '../../core/domains/custom-domain.js';
import type { CustomDomainRepository } from '../../core/domains/custom-domain-repository.js';
import type { EdgeHostname, EdgeProvider } from '../../core/domains/edge-provider.js';
import { CustomDomains } from '../../core/domains/custom-domains.js';
import { HostnameDirectory } from '../../core/domains/hostname-directory.js';
import { DomainError } from '../../core/shared/errors.js';
import { MockEdgeProvider } from '../../adapters/edge/mock-edge-provider.js';
import { MemoryCustomDomainRepository } from '../../adapters/persistence/memory/memory-custom-domain-repository.js';
import { MemoryChangeFeed } from '../../adapters/changes/memory-change-feed.js';
import { FixedClock } from './fixed-clock.js';

export type EdgeMethod = 'create' | 'get' | 'refresh' | 'delete';

/** One call the provider received: `arg` is the hostname (create) or the provider id (the rest). */
export interface EdgeCall {
  method: EdgeMethod;
  arg: string;
}

/**
 * An {@link EdgeProvider} that logs each call (also the failed ones) before passing it to `inner`.
 * `failNext(method)` makes the next call of that method fail like an outage (EDGE_PROVIDER_ERROR);
 * `holdAnswerOfNext(method, gate)` lets the next call reach `inner` at once but holds its answer
 * until `gate` (a response still in transit); `beforeCall` sees each call before anything else.
 */
export class RecordingEdgeProvider implements EdgeProvider {
  readonly calls: EdgeCall[] = [];
  /** Results of successful `create` calls, in order. */
  readonly created: { exists: boolean; hostname: EdgeHostname }[] = [];
  private readonly failures = new Set<EdgeMethod>();
  private readonly holds = new Map<EdgeMethod, Promise<void>>();
  /** Called first on every call, e.g. to look at the repository at that moment. */
  beforeCall: ((call: EdgeCall) => void | Promise<void>) | undefined;

  constructor(readonly inner: EdgeProvider) {}

  get cnameTarget(): string {
    return this.inner.cnameTarget;
  }

  failNext(method: EdgeMethod): void {
    this.failures.add(method);
  }

  holdAnswerOfNext(method: EdgeMethod, until: Promise<void>): void {
    this.holds.set(method, until);
  }

  /** The calls of one method, as their arguments. */
  argsOf(method: EdgeMethod): string[] {
    return this.calls.filter((call) => call.method === method).map((call) => call.arg);
  }

  /** Forgets the calls so far (after a test's setup). */
  reset(): void {
    this.calls.length = 0;
    this.created.length = 0;
  }

  create(options: { hostname: string }): Promise<{ exists: boolean; hostname: EdgeHostname }> {
    return this.call('create', options.hostname, async () => {
      const result = await this.inner.create(options);
      this.created.push(result);
      return result;
    });
  }

  get(options: { providerId: string }): Promise<EdgeHostname | undefined> {
    return this.call('get', options.providerId, () => this.inner.get(options));
  }

  refresh(options: { providerId: string }): Promise<EdgeHostname> {
    return this.call('refresh', options.providerId, () => this.inner.refresh(options));
  }

  delete(options: { providerId: string }): Promise<void> {
    return this.call('delete', options.providerId, () => this.inner.delete(options));
  }

  private async call<T>(method: EdgeMethod, arg: string, pass: () => Promise<T>): Promise<T> {
    const call = { method, arg };
    await this.beforeCall?.(call);
    this.calls.push(call);
    if (this.failures.delete(method)) {
      throw new DomainError('EDGE_PROVIDER_ERROR', `The edge provider failed (test double: ${method} ${arg}).`);
    }
    const hold = this.holds.get(method);
    this.holds.delete(method);
    const answer = await pass();
    if (hold) await hold;
    return answer;
  }
}

/**
 * A {@link CustomDomainRepository} over `inner` whose next `save` can be scripted: throw an error,
 * answer `taken` without storing, or wait for a gate (then store). `findByHostname` can be held too.
 */
export class ScriptedDomainRepository implements CustomDomainRepository {
  /** Every domain `save` was called with, in order. */
  readonly saves: CustomDomain[] = [];
  /** Every hostname `findByHostname` was asked for, in order. */
  readonly hostnameLookups: string[] = [];
  private nextSave: { kind: 'throw'; error: Error } | { kind: 'taken' } | { kind: 'hold'; until: Promise<void> } | undefined;
  private findByHostnameHold: Promise<void> | undefined;

  constructor(readonly inner: CustomDomainRepository) {}

  throwOnNextSave(error: Error = new Error('database is unreachable')): void {
    this.nextSave = { kind: 'throw', error };
  }

  answerTakenOnNextSave(): void {
    this.nextSave = { kind: 'taken' };
  }

  holdNextSave(until: Promise<void>): void {
    this.nextSave = { kind: 'hold', until };
  }

  holdNextFindByHostname(until: Promise<void>): void {
    this.findByHostnameHold = until;
  }

  findByUser(userId: string): Promise<CustomDomain | undefined> {
    return this.inner.findByUser(userId);
  }

  async findByHostname(hostname: string): Promise<CustomDomain | undefined> {
    this.hostnameLookups.push(hostname);
    const hold = this.findByHostnameHold;
    this.findByHostnameHold = undefined;
    // Read first, then wait: the answer is the one from before whatever happens meanwhile.
    const found = await this.inner.findByHostname(hostname);
    if (hold) await hold;
    return found;
  }

  async save(domain: CustomDomain): Promise<'saved' | 'taken'> {
    this.saves.push(domain);
    const script = this.nextSave;
    this.nextSave = undefined;
    if (script?.kind === 'throw') throw script.error;
    if (script?.kind === 'taken') return 'taken';
    if (script?.kind === 'hold') await script.until;
    return this.inner.save(domain);
  }

  delete(userId: string): Promise<void> {
    return this.inner.delete(userId);
  }
}

/** The service's own hosts in the test options (`publicApiUrl`, `publicContentUrl`). */
export const RESERVED_HOSTS = ['api.test', 'cdn.test'] as const;

/**
 * CustomDomains and a HostnameDirectory on their own, over an in-memory repository (`store`, no
 * accounts needed: user ids are plain strings) and the mock provider, both wrapped in the doubles.
 * The directory reads `directoryDomains` (a second scripted wrapper of the same store), so a test
 * can hold its lookups without holding CustomDomains'.
 */
export function createDomainsWorld(start: Date = new Date('2025-03-01T12:00:00.000Z'), cnameTarget = 'cdn.test') {
  const clock = new FixedClock(start);
  const store = new MemoryCustomDomainRepository();
  const domains = new ScriptedDomainRepository(store);
  const directoryDomains = new ScriptedDomainRepository(store);
  const mock = new MockEdgeProvider({ cnameTarget });
  const edge = new RecordingEdgeProvider(mock);
  const changes = new MemoryChangeFeed();
  const directory = new HostnameDirectory({ domains: directoryDomains, changes });
  const customDomains = new CustomDomains({ domains, edge, directory, clock, reservedHosts: RESERVED_HOSTS });
  /** Whether the mock provider still has the hostname with this id (false once deleted). */
  async function atProvider(providerId: string): Promise<boolean> {
    return (await mock.get({ providerId })) !== undefined;
  }
  return { clock, store, domains, directoryDomains, mock, edge, directory, customDomains, atProvider, changes };
}

export type DomainsWorld = ReturnType<typeof createDomainsWorld>;

/** Lets pending promise chains run (a few turns of the event loop) until `done()` or a limit. */
export async function until(done: () => boolean, turns = 50): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!done()) throw new Error('the awaited condition never came true');
}
