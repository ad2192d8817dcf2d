import type { DnsRecord } from './custom-domain.js';

/** A custom hostname as the edge provider reports it. */
export interface EdgeHostname {
  /** The provider's id. */
  providerId: string;
  hostname: string;
  /** Hostname status, passed through (`pending`, `active`, `moved`, `blocked`, `deleted`, …). */
  status: string;
  /** Certificate status, passed through (`initializing`, `pending_validation`, `active`, …). */
  sslStatus: string;
  /** Records proving ownership and validating the certificate (TXT), as the provider asks for them. */
  validationRecords: DnsRecord[];
  /** Provider validation errors, for people. */
  errors: string[];
}

/**
 * Port: custom hostnames at an edge provider (Cloudflare for SaaS, or the mock). Every call has a
 * timeout; transport failures and provider 5xx become DomainError EDGE_PROVIDER_ERROR (502).
 */
export interface EdgeProvider {
  /** What customers point their CNAME at (e.g. the fallback origin). */
  readonly cnameTarget: string;
  /**
   * Creates a custom hostname with DV certificate validation.
   * @returns the new hostname, or `{ exists: true }` with the provider's existing record when the
   *          hostname is already registered at the provider (the caller decides whether to adopt it)
   * @throws DomainError EDGE_PROVIDER_ERROR (502)
   */
  create(options: { hostname: string }): Promise<{ exists: boolean; hostname: EdgeHostname }>;
  /** The hostname's current state; undefined when the provider no longer has it. @throws DomainError EDGE_PROVIDER_ERROR */
  get(options: { providerId: string }): Promise<EdgeHostname | undefined>;
  /** Re-runs validation and returns the new state. @throws DomainError EDGE_PROVIDER_ERROR (502), also when it no longer exists */
  refresh(options: { providerId: string }): Promise<EdgeHostname>;
  /** Removes the hostname; an unknown id is not an error. @throws DomainError EDGE_PROVIDER_ERROR (502) */
  delete(options: { providerId: string }): Promise<void>;
}
