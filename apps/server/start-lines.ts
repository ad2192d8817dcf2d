import { routingRecordType } from '../../core/domains/custom-domain.js';
import type { Config } from './config.js';

/**
 * Which interfaces a listen address (`http://0.0.0.0:3000`, `http://[::]:3000`, `http://127.0.0.1:3000`)
 * accepts connections on, in words for the start message: every interface for the wildcard
 * addresses (RFC 1122 §3.2.1.3 "this host" / RFC 4291 §2.5.2 unspecified), this machine only for
 * loopback (127.0.0.0/8, ::1), and '' for one specific address (it names itself).
 */
export function interfacesOf(address: string): string {
  let host: string;
  try {
    host = new URL(address).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
  if (host === '0.0.0.0') return 'every IPv4 interface';
  if (host === '::') return 'every interface, IPv6 and IPv4';
  if (host === '::1' || /^127\./.test(host) || host === 'localhost') return 'this machine only';
  return '';
}

/** `http://0.0.0.0:3000 (every IPv4 interface; public URL http://files.example.com)`. */
function bound(address: string, publicUrl: string): string {
  const interfaces = interfacesOf(address);
  return `${address} (${interfaces === '' ? '' : `${interfaces}; `}public URL ${publicUrl})`;
}

/**
 * The lines `npm start` prints once the service listens, the same whether one process serves or a
 * supervisor's workers do: the addresses actually bound (e.g. `http://0.0.0.0:3000`, named as every
 * interface, or `http://127.0.0.1:3000`, this machine only) each with its configured public URL
 * (PUBLIC_API_URL, PUBLIC_CONTENT_URL), then the adapters chosen, then the metrics address when
 * METRICS_PORT is set, then a warning when custom domains route to an IP address (a CNAME cannot
 * point at one: users are told to create an A/AAAA record instead). Printed by apps/server/main.ts
 * (one process) or apps/server/supervisor.ts (WORKERS > 1); the tests and `npm run bench` find the
 * addresses in the first one (`API on <address> … content on <address> `).
 * @param api the API server's bound address, as `RunningHangar.apiListen` (start.ts) gives it
 * @param content the content server's, likewise
 * @param metrics where `GET /metrics` answers, when served
 */
export function startLines(config: Config, api: string, content: string, metrics?: string): string[] {
  const target = config.edge.cnameTarget;
  const routing = routingRecordType(target);
  return [
    `hangar: API on ${bound(api, config.core.publicApiUrl)}, content on ${bound(content, config.core.publicContentUrl)}`,
    `hangar: database ${config.database.kind}, blobs ${config.blobs.kind}, mail ${config.mail.kind}${config.mail.kind === 'file' ? ` (${config.mail.directory})` : ''}`,
    ...(metrics ? [`hangar: metrics on ${metrics}/metrics${interfacesOf(metrics) === '' ? '' : ` (${interfacesOf(metrics)})`}`] : []),
    ...(routing === 'CNAME'
      ? []
      : [
          `hangar: warning: the custom-domain target ${target} (CUSTOM_DOMAIN_CNAME_TARGET, else the host of PUBLIC_CONTENT_URL) is an IP address; a CNAME cannot point at an address, so users are told to create an ${routing} record to it, which breaks if it changes: set CUSTOM_DOMAIN_CNAME_TARGET to a host name`,
        ]),
  ];
}
