import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../../core/shared/errors.js';
import type { WebhookTargets } from '../../core/webhooks/webhook-targets.js';

/**
 * Address ranges a webhook may not reach (docs/webhooks.md "Safe targets"): IANA special-purpose
 * registries (RFC 6890 and its updates) for IPv4 and IPv6, i.e. "this network", loopback, private
 * (RFC 1918), shared (RFC 6598), link-local (169.254.0.0/16, where cloud metadata answers), protocol
 * assignments, documentation, benchmarking, multicast, reserved and broadcast; for IPv6 unspecified,
 * loopback, unique-local (fc00::/7), link-local (fe80::/10), site-local, multicast, documentation,
 * discard-only, and the translation prefixes (NAT64, 6to4, Teredo) that would tunnel to one of these.
 */
const BLOCKED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;
const BLOCKED_V6 = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const;

const blocked = new BlockList();
for (const [address, prefix] of BLOCKED_V4) blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of BLOCKED_V6) blocked.addSubnet(address, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 literal (with `::` and a dotted IPv4 tail expanded). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0].toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) or -compatible (`::a.b.c.d`) IPv6 address, else undefined. */
function embeddedV4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (groups.length !== 8 || groups.slice(0, 5).some((group) => group !== 0) || (groups[5] !== 0 && groups[5] !== 0xffff)) return undefined;
  if (groups[5] === 0 && groups[6] === 0) return undefined; // :: and ::1 are IPv6's own.
  const [high, low] = [groups[6], groups[7]];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** True when `address` (an IP literal) is public: in none of the blocked ranges. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedV4(address);
  if (v4 !== undefined) return isIP(v4) === 4 && !blocked.check(v4, 'ipv4');
  return !blocked.check(address, 'ipv6');
}

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Options of {@link PublicAddressPolicy}. */
export interface PublicAddressPolicyOptions {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: accept every address (a LAN, tests). Default false. */
  allowPrivateNetworks?: boolean;
  /** Resolves a hostname to all its addresses; default `dns.lookup(…, { all: true })` (the system resolver, /etc/hosts included). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/**
 * Resolves a webhook's host and keeps it only when every address is public ({@link isPublicAddress}),
 * unless private networks are allowed. Every address must pass, not one: a name with a public and a
 * private address would otherwise reach the private one whenever the connection picked it. Used at
 * creation ({@link WebhookTargets}) and again before every delivery, whose connection then goes to the
 * address checked here (HttpsWebhookSender), so DNS rebinding cannot switch it.
 */
export class PublicAddressPolicy implements WebhookTargets {
  private readonly allowPrivate: boolean;
  private readonly resolver: (hostname: string) => Promise<ResolvedAddress[]>;

  constructor(options: PublicAddressPolicyOptions = {}) {
    this.allowPrivate = options.allowPrivateNetworks ?? false;
    this.resolver =
      options.resolve ??
      (async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })));
  }

  /**
   * The addresses `hostname` (a name or an IP literal, IPv6 with or without brackets) may be reached at.
   * @throws DomainError WEBHOOK_URL_REFUSED (400) when it does not resolve, or resolves to a non-public address
   */
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    let addresses: ResolvedAddress[];
    if (isIP(host) !== 0) {
      addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
    } else {
      try {
        addresses = await this.resolver(host);
      } catch {
        addresses = [];
      }
      if (addresses.length === 0) throw new DomainError('WEBHOOK_URL_REFUSED', `The host ${host} does not resolve.`, { reason: 'unresolvable' });
    }
    if (!this.allowPrivate) {
      const refused = addresses.find((a) => !isPublicAddress(a.address));
      if (refused) {
        throw new DomainError(
          'WEBHOOK_URL_REFUSED',
          `The host ${host} resolves to ${refused.address}, which is not a public address; webhooks go to public addresses only.`,
          { reason: 'non_public_address', address: refused.address },
        );
      }
    }
    return addresses;
  }

  async check(url: { hostname: string }): Promise<void> {
    await this.resolve(url.hostname);
  }
}
