import type { Config } from './config.js';

/**
 * The lines `npm start` prints once the service listens, the same whether one process serves or a
 * supervisor's workers do: the listen addresses with their public ones (e.g.
 * `http://127.0.0.1:3000`), then the adapters chosen, then the metrics address when METRICS_PORT is set. Printed by apps/server/main.ts (one process)
 * or apps/server/supervisor.ts (WORKERS > 1); the tests and `npm run bench` find the addresses in the first one.
 */
export function startLines(config: Config, api: string, content: string, metrics?: string): string[] {
  return [
    `hangar: API on ${api} (public ${config.publicApiUrl}), content on ${content} (public ${config.publicContentUrl})`,
    `hangar: database ${config.database.kind}, blobs ${config.blobs.kind}, mail ${config.mail.kind}${config.mail.kind === 'file' ? ` (${config.mail.directory})` : ''}`,
    ...(metrics ? [`hangar: metrics on ${metrics}/metrics`] : []),
  ];
}
