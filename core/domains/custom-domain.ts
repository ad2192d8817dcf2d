import { DomainError } from '../shared/errors.js';

/** A DNS record the account holder must create at their DNS host. */
export interface DnsRecord {
  /** `A`/`AAAA` route to the edge when its target is an IPv4/IPv6 address (a CNAME must name a host, RFC 1034 §3.6.2). */
  type: 'CNAME' | 'A' | 'AAAA' | 'TXT';
  /** Record name, e.g. `files.example.com` or `_cf-custom-hostname.files.example.com`. */
  name: string;
  value: string;
  /** `routing` (traffic to the edge), `ownership` (proves the hostname is yours), `ssl_validation` (certificate). */
  purpose: 'routing' | 'ownership' | 'ssl_validation';
}

/**
 * The record type that points a name at `target`: `A` for an IPv4 address in dotted decimal, `AAAA`
 * for an IPv6 address (anything with a colon, which no host name has), else `CNAME` (RFC 1034 §3.6.2:
 * a CNAME's data is a domain name, never an address).
 */
export function routingRecordType(target: string): 'CNAME' | 'A' | 'AAAA' {
  if (target.includes(':')) return 'AAAA';
  const parts = target.split('.');
  if (parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return 'A';
  return 'CNAME';
}

/**
 * An account's custom hostname (spec 2.5), as last seen at the edge provider. Statuses pass the
 * provider's values through: `verificationStatus` is its hostname status (`pending`, `active`,
 * `moved`, `blocked`, `deleted`, …) and `sslStatus` its certificate status (`initializing`,
 * `pending_validation`, …, `active`, `*_timed_out`).
 */
export interface CustomDomain {
  userId: string;
  /** Lower-case, validated hostname; unique across accounts. */
  hostname: string;
  /** The provider's id of the custom hostname. */
  providerId: string;
  verificationStatus: string;
  sslStatus: string;
  /** What to create at the DNS host. */
  dnsRecords: DnsRecord[];
  /** Validation errors reported by the provider, for people. */
  errors: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A custom domain counts as verified only when the hostname and its certificate are both active. */
export function isVerified(domain: Pick<CustomDomain, 'verificationStatus' | 'sslStatus'>): boolean {
  return domain.verificationStatus === 'active' && domain.sslStatus === 'active';
}

/** Longest hostname (RFC 1035 §2.3.4). */
const MAX_HOSTNAME_LENGTH = 253;
/** One RFC 1123 label: letters, digits, inner hyphens, 1–63 characters. */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalises and checks a custom hostname: lower-cased, a trailing dot dropped, RFC 1123 labels,
 * at least two labels, an alphabetic top-level label (so no IP address), no port, no wildcard,
 * and not one of the service's own hosts.
 * @returns the normalised hostname
 * @throws DomainError INVALID_HOSTNAME (400)
 */
export function normaliseHostname(input: string, reservedHosts: readonly string[]): string {
  const hostname = input.trim().toLowerCase().replace(/\.$/, '');
  const labels = hostname.split('.');
  const valid =
    hostname.length > 0 &&
    hostname.length <= MAX_HOSTNAME_LENGTH &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    /^[a-z][a-z0-9-]*$/.test(labels[labels.length - 1]);
  if (!valid) {
    // The input is quoted back cut to 80 characters: a 60 KB "hostname" is not echoed whole.
    const shown = input.length > 80 ? `${input.slice(0, 80)}…` : input;
    throw new DomainError(
      'INVALID_HOSTNAME',
      `"${shown}" is not a hostname you can use: give a name like files.example.com of at most ${MAX_HOSTNAME_LENGTH} characters (no scheme, port, path or wildcard).`,
    );
  }
  if (reservedHosts.includes(hostname)) {
    throw new DomainError('INVALID_HOSTNAME', `${hostname} is this service's own address and cannot be a custom domain.`);
  }
  return hostname;
}
