import { routingRecordType } from '../../core/domains/custom-domain.js';
import type { Config } from './config.js';

/**
 * The lines `npm start` prints once the service listens, the same whether one process serves or a
 * supervisor's workers do: the listen addresses with their public ones (e.g.
 * `http://127.0.0.1:3000`), then the adapters chosen, then the metrics address when METRICS_PORT is set, then a
 * warning when custom domains route to an IP address (a CNAME cannot point at one: users are told to create an
 * A/AAAA record instead). Printed by apps/server/main.ts (one process) or apps/server/supervisor.ts (WORKERS > 1);
 * the tests and `npm run bench` find the addresses in the first one.
 */
export function startLines(config: Config, api: string, content: string, metrics?: string): string[] {
  const target = config.edge.cnameTarget;
  const routing = routingRecordType(target);
  return [
    `hangar: API on ${api} (public ${config.publicApiUrl}), content on ${content} (public ${config.publicContentUrl})`,
    `hangar: database ${config.database.kind}, blobs ${config.blobs.kind}, mail ${config.mail.kind}${config.mail.kind === 'file' ? ` (${config.mail.directory})` : ''}`,
    ...(metrics ? [`hangar: metrics on ${metrics}/metrics`] : []),
    ...(routing === 'CNAME'
      ? []
      : [`hangar: warning: the custom-domain target ${target} (CUSTOM_DOMAIN_CNAME_TARGET, else the host of PUBLIC_CONTENT_URL) is an IP address; a CNAME cannot point at an address, so users are told to create an ${routing} record to it, which breaks if it changes: set CUSTOM_DOMAIN_CNAME_TARGET to a host name`]),
  ];
}
