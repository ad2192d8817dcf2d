import { createHash } from 'node:crypto';
import type { DnsRecord } from '../../core/domains/custom-domain.js';
import type { EdgeHostname, EdgeProvider } from '../../core/domains/edge-provider.js';
import { DomainError } from '../../core/shared/errors.js';

/** Options of {@link MockEdgeProvider}. */
export interface MockEdgeProviderOptions {
  /** What customers point their CNAME at (shown in the DNS records). */
  cnameTarget: string;
}

/** Prefix of the mock's provider ids: `mock-<hostname>`. */
const ID_PREFIX = 'mock-';
/** First label that makes every call about the hostname fail like a provider outage. */
const OUTAGE_LABEL = 'edge-error';

/** What the mock knows of one hostname: whether a refresh has activated it yet. */
type MockState = 'pending' | 'active';

/**
 * {@link EdgeProvider} without a provider (`EDGE_PROVIDER=mock`, the default), deterministic:
 * - `create` answers `status: 'pending'`, `sslStatus: 'initializing'` with two TXT records, the
 *   ownership record `_cf-custom-hostname.<hostname>` and the certificate record
 *   `_acme-challenge.<hostname>`, whose values are derived from the hostname (SHA-256), as
 *   Cloudflare would ask for them; a hostname it already holds answers `{ exists: true }`.
 * - the next `refresh` makes both statuses `active`, with no records left to create.
 * - a hostname whose first label is `edge-error` (e.g. `edge-error.example.com`) fails every call
 *   with DomainError EDGE_PROVIDER_ERROR (502), so the outage path can be tried by hand and in tests.
 *
 * The provider id is `mock-<hostname>`: state lives in this process only, and the real state is
 * the settings record, so after a restart `get`/`refresh` of an id this process never saw take the
 * hostname from the id (as a pending hostname created by an earlier process). Ids of another
 * form, and ids deleted in this process, are unknown (`get` → undefined).
 */
export class MockEdgeProvider implements EdgeProvider {
  readonly cnameTarget: string;
  private readonly hostnames = new Map<string, MockState>();
  private readonly deleted = new Set<string>();

  constructor(options: MockEdgeProviderOptions) {
    this.cnameTarget = options.cnameTarget;
  }

  /** @throws DomainError EDGE_PROVIDER_ERROR (502) for an `edge-error.…` hostname */
  async create(options: { hostname: string }): Promise<{ exists: boolean; hostname: EdgeHostname }> {
    const hostname = options.hostname.toLowerCase();
    failOnOutage(hostname);
    const state = this.hostnames.get(hostname);
    if (state !== undefined) return { exists: true, hostname: describe(hostname, state) };
    this.hostnames.set(hostname, 'pending');
    this.deleted.delete(hostname);
    return { exists: false, hostname: describe(hostname, 'pending') };
  }

  /** @throws DomainError EDGE_PROVIDER_ERROR (502) for an `edge-error.…` hostname */
  async get(options: { providerId: string }): Promise<EdgeHostname | undefined> {
    const hostname = hostnameOf(options.providerId);
    if (hostname === undefined) return undefined;
    failOnOutage(hostname);
    const state = this.known(hostname);
    return state === undefined ? undefined : describe(hostname, state);
  }

  /**
   * Activates the hostname and its certificate.
   * @throws DomainError EDGE_PROVIDER_ERROR (502) for an `edge-error.…` hostname or an unknown id
   */
  async refresh(options: { providerId: string }): Promise<EdgeHostname> {
    const hostname = hostnameOf(options.providerId);
    if (hostname !== undefined) failOnOutage(hostname);
    if (hostname === undefined || this.known(hostname) === undefined) {
      throw new DomainError('EDGE_PROVIDER_ERROR', `The edge provider has no custom hostname ${options.providerId}; set the custom domain again.`);
    }
    this.hostnames.set(hostname, 'active');
    return describe(hostname, 'active');
  }

  /** @throws DomainError EDGE_PROVIDER_ERROR (502) for an `edge-error.…` hostname */
  async delete(options: { providerId: string }): Promise<void> {
    const hostname = hostnameOf(options.providerId);
    if (hostname === undefined) return;
    failOnOutage(hostname);
    this.hostnames.delete(hostname);
    this.deleted.add(hostname);
  }

  /** The hostname's state, adopting (as pending) a well-formed id of an earlier process. */
  private known(hostname: string): MockState | undefined {
    if (this.deleted.has(hostname)) return undefined;
    let state = this.hostnames.get(hostname);
    if (state === undefined) {
      state = 'pending';
      this.hostnames.set(hostname, state);
    }
    return state;
  }
}

/** The hostname a mock id stands for, or undefined when the id is not one of the mock's. */
function hostnameOf(providerId: string): string | undefined {
  if (!providerId.startsWith(ID_PREFIX)) return undefined;
  const hostname = providerId.slice(ID_PREFIX.length).toLowerCase();
  return hostname.includes('.') ? hostname : undefined;
}

function failOnOutage(hostname: string): void {
  if (hostname.split('.')[0] === OUTAGE_LABEL) {
    throw new DomainError(
      'EDGE_PROVIDER_ERROR',
      `The edge provider could not be reached for ${hostname} (mock outage: the hostname starts with "${OUTAGE_LABEL}").`,
    );
  }
}

/** A value that depends on the hostname only, like the tokens a real provider hands out. */
function token(kind: string, hostname: string): string {
  return createHash('sha256').update(`${kind}:${hostname}`, 'utf8').digest('hex').slice(0, 32);
}

function describe(hostname: string, state: MockState): EdgeHostname {
  const validationRecords: DnsRecord[] =
    state === 'active'
      ? []
      : [
          { type: 'TXT', name: `_cf-custom-hostname.${hostname}`, value: token('ownership', hostname), purpose: 'ownership' },
          { type: 'TXT', name: `_acme-challenge.${hostname}`, value: token('ssl', hostname), purpose: 'ssl_validation' },
        ];
  return {
    providerId: `${ID_PREFIX}${hostname}`,
    hostname,
    status: state,
    sslStatus: state === 'active' ? 'active' : 'initializing',
    validationRecords,
    errors: [],
  };
}
