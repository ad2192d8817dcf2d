import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hangar } from '../../core/hangar.js';
import type { Clock } from '../../core/shared/clock.js';
import { HangarRuntime } from '../../core/hangar-runtime.js';
import { createApiApp } from '../api/api-app.js';
import { contentOriginHeaders, createContentApp } from '../content/content-app.js';
import { publicReadsFirst } from '../content/public-reads.js';
import { answerClientErrors } from '../http/request-guards.js';
import type { Logger } from '../../core/shared/logger.js';
import type { Config } from './config.js';
import { buildContainer, RootTokens } from './container.js';
import { createLogger } from './logging.js';
import type { HangarMetrics } from './metrics.js';
import { Readiness } from '../http/health.js';
import { readBuildInfo } from '../http/build-info.js';
import { Tokens } from './tokens.js';
import { routeTable } from './route-table.js';
import { writeWebhookPlanLimits } from '../../adapters/webhooks/webhook-plan-limits.js';

/** A running Hangar: both listeners and how to stop them. */
export interface RunningHangar {
  hangar: Hangar;
  /** Where this process logs (the one given in {@link StartOptions}, or the one made from the configuration). */
  logger: Logger;
  /**
   * Where to connect to each server from this machine, e.g. `http://127.0.0.1:3000` (useful with
   * port 0): the bound address, with a wildcard one (0.0.0.0, ::) replaced by loopback.
   */
  apiAddress: string;
  contentAddress: string;
  /** The addresses actually bound, e.g. `http://0.0.0.0:3000` or `http://[::]:3000` (the start message names them). */
  apiListen: string;
  contentListen: string;
  /** Where `GET /metrics` answers (METRICS_PORT), when this process serves it itself (not a cluster worker). */
  metricsAddress?: string;
  /**
   * Answers `/readyz` with 503 `draining` from here on, stops accepting, lets requests in flight finish (up to `graceMs`, default 10 000 ms), writes
   * buffered usage counts and log entries, sends the mail due now (the rest waits in the outbox), closes the database.
   */
  close(graceMs?: number): Promise<void>;
}

/** How often buffered usage counts and activity log entries are written, in ms. */
const FLUSH_INTERVAL_MS = 2_000;
/** How often old activity log entries are pruned and spent credentials purged (PurgeCredentials), in ms. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** Longest a client may take to send request headers, in ms (slowloris bound). */
const HEADERS_TIMEOUT_MS = 30_000;
/** A socket idle this long (no bytes either way) is closed, in ms. */
const IDLE_TIMEOUT_MS = 120_000;

/** Options of {@link startHangar}. */
export interface StartOptions {
  /**
   * Where the access log and every other message go (default: the logger LOG_LEVEL and LOG_FORMAT
   * describe, on stdout). Unexpected errors are entries of level `error`, event `internal_error`.
   */
  logger?: Logger;
  /**
   * This process is one worker of a `node:cluster` (apps/server/supervisor.ts): rate-limit counters
   * are asked of the primary (unless they are in Postgres). Default false.
   */
  clusterWorker?: boolean;
  /**
   * Runs the hourly maintenance (pruning old activity log entries, purging spent credentials), at
   * start and every hour, the expiry sweep and the minutely catch-up of media facts left missing
   * (docs/media.md). Default true; of a cluster's workers only the first does it.
   */
  maintenance?: boolean;
  /** The clock of the core (default: the system clock); tests pass a controllable one. */
  clock?: Clock;
  /**
   * The waits before a webhook delivery's 2nd, 3rd… attempts, in ms (default
   * WEBHOOK_RETRY_DELAYS_MS, Standard Webhooks' schedule: 5 s, 5 min, …); tests that watch a retry
   * pass shorter ones. No variable sets them.
   */
  webhookRetryDelaysMs?: readonly number[];
}

/**
 * Starts both servers for `config`: the API on `config.port` and the content server on
 * `config.contentPort`. Migrations run before listening. In a cluster worker, `listen` shares the
 * primary's sockets (node:cluster), so every worker answers on the same ports.
 */
export async function startHangar(config: Config, options: StartOptions = {}): Promise<RunningHangar> {
  const logger = options.logger ?? createLogger(config.log);
  // prom-client and its dependencies load only when metrics are on (METRICS_PORT): off, they would
  // be parsed and kept in every process's heap for nothing (decision 0023).
  const metricsModule = config.metrics ? await import('./metrics.js') : undefined;
  const metrics = metricsModule ? new metricsModule.HangarMetrics() : undefined;
  const container = buildContainer(config, { clusterWorker: options.clusterWorker ?? false }, logger, metrics);
  if (options.clock) container.rebind(Tokens.Clock).toConstantValue(options.clock);
  if (options.webhookRetryDelaysMs) container.rebind(RootTokens.WebhookRetryDelays).toConstantValue(options.webhookRetryDelaysMs);
  const hangar = await container.getAsync(Tokens.Hangar);
  const database = await container.getAsync(RootTokens.Database);
  const mail = await container.getAsync(RootTokens.MailQueue);
  const webhooks = await container.getAsync(RootTokens.WebhookOutbox);
  // The plans' limits, where the quota webhook trigger reads them (docs/webhooks.md).
  await writeWebhookPlanLimits(database.db, { plans: config.core.plans, defaultPlan: config.core.defaultPlan });
  const blobs = await container.getAsync(Tokens.BlobStore);
  if (metrics && database.postgresPool) metrics.watchPool(database.postgresPool as Parameters<HangarMetrics['watchPool']>[0]);
  metrics?.watchImageSlots(hangar.imageSlots);
  metrics?.watchActivityLog(hangar.activity);
  metrics?.watchWebhookOutbox(webhooks);

  const defaultPlan = config.core.plans.find((plan) => plan.name === config.core.defaultPlan)!;
  const operational = { readiness: new Readiness(), build: readBuildInfo() };
  const routes = routeTable(hangar, {
    allowedContentTypes: config.core.allowedContentTypes,
    publicApiUrl: config.core.publicApiUrl,
    publicContentUrl: config.core.publicContentUrl,
    defaultPlan,
    defaultMaxUploadSizeBytes: config.core.defaultMaxUploadSizeBytes,
    logger,
    operational,
    instance: {
      database: config.database.kind,
      blob_store: config.blobs.kind,
      registration: config.core.registration ?? 'open',
      default_plan: config.core.defaultPlan,
      public_api_url: config.core.publicApiUrl,
      public_content_url: config.core.publicContentUrl,
    },
  });
  const apiApp = createApiApp(hangar, {
    routes,
    publicApiUrl: config.core.publicApiUrl,
    publicContentUrl: config.core.publicContentUrl,
    logger,
    observer: metrics,
    trustProxyHops: config.trustProxyHops,
    corsOrigins: config.corsOrigins,
    uploadPacing: config.uploadPacing,
  });
  const api = listen(apiApp.callback(), {
    // Uploads of large files over slow links may take long: no total request deadline, only idle and header limits.
    requestTimeout: 0,
  });
  const hsts = config.core.publicContentUrl.startsWith('https:');
  const contentApp = createContentApp(hangar, {
    logger,
    operational,
    observer: metrics,
    trustProxyHops: config.trustProxyHops,
    hsts,
    bodyPacing: config.uploadPacing,
  }).callback();
  const originHeaders = contentOriginHeaders({ hsts });
  const content = listen(
    publicReadsFirst(hangar, contentApp, { logger, observer: metrics, originHeaders, trustProxyHops: config.trustProxyHops }),
    {},
    originHeaders,
  );
  await Promise.all([start(api, config.host, config.port), start(content, config.host, config.contentPort)]);
  // With workers, the supervisor serves the metrics of all of them; a worker answers its scrapes.
  if (metrics && options.clusterWorker) metrics.answerClusterScrapes();
  const metricsServer =
    metricsModule && metrics && config.metrics && !options.clusterWorker
      ? await metricsModule.startMetricsServer({ host: config.metrics.host, port: config.metrics.port, scrape: () => metrics.registry.metrics() })
      : undefined;

  const runtime = new HangarRuntime(hangar, {
    flushIntervalMs: FLUSH_INTERVAL_MS,
    maintenance: options.maintenance ?? true,
    maintenanceIntervalMs: PRUNE_INTERVAL_MS,
    expirySweepIntervalMs: config.expirySweepIntervalSeconds * 1000,
    logger,
  });
  mail.start();
  webhooks.start();
  runtime.start();

  return {
    hangar,
    logger,
    apiAddress: addressOf(api),
    contentAddress: addressOf(content),
    apiListen: boundAddressOf(api),
    contentListen: boundAddressOf(content),
    metricsAddress: metricsServer?.address,
    close: async (graceMs = 10_000) => {
      operational.readiness.drain();
      await Promise.all([stop(api, graceMs), stop(content, graceMs)]);
      await metricsServer?.close();
      await runtime.stop();
      await webhooks.stop();
      await mail.stop();
      await mail.drain();
      await database.close();
      await blobs.close?.();
    },
  };
}

/** An HTTP server for `handler`; what Node refuses before the app sees it is answered in the error format, with `clientErrorHeaders`. */
function listen(
  handler: (request: http.IncomingMessage, response: http.ServerResponse) => void | Promise<void>,
  options: http.ServerOptions,
  clientErrorHeaders: Record<string, string> = {},
): http.Server {
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- Koa's callback and publicReadsFirst answer every error themselves: their promise never rejects
  const server = http.createServer({ headersTimeout: HEADERS_TIMEOUT_MS, keepAliveTimeout: 5_000, ...options }, handler);
  server.setTimeout(IDLE_TIMEOUT_MS);
  answerClientErrors(server, clientErrorHeaders);
  return server;
}

async function start(server: http.Server, host: string, port: number): Promise<void> {
  server.listen(port, host);
  await once(server, 'listening');
}

async function stop(server: http.Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}

/** The address `server` is bound to, as a URL: `http://0.0.0.0:3000`, `http://[::]:3000`, `http://127.0.0.1:3000`. */
function boundAddressOf(server: http.Server): string {
  const address = server.address() as AddressInfo;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/** Where to connect to `server` from this machine: its bound address, a wildcard one replaced by loopback. */
function addressOf(server: http.Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
}
