import cluster from 'node:cluster';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import type { RequestObservation } from '../http/access-log.js';

/** Buckets of request and operation durations, in seconds (1 ms … 60 s). */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The process's Prometheus metrics (prom-client), in a registry of its own. Names follow
 * Prometheus's conventions (base units: seconds, bytes; `_total` for counters):
 * - `hangar_http_requests_total{server,method,route,status}` and
 *   `hangar_http_request_duration_seconds{server,method,route,status}` (histogram): every request
 *   of both servers, by route template (never a path's values);
 * - `hangar_http_request_body_bytes_total{server}`, `hangar_http_response_bytes_total{server}`
 *   (response bytes written to sockets, headers included): bytes uploaded and served;
 * - `hangar_uploads_in_flight`: uploads (`POST /files`) being received;
 * - `hangar_rate_limited_total{route}`: requests refused with 429;
 * - `hangar_blob_store_operation_seconds{operation,outcome}` (histogram; outcome `ok`|`error`);
 * - `hangar_image_transform_seconds{outcome}` (histogram): image transformations computed;
 * - `hangar_image_transform_slots{pool,state}` (`pool` `public`|`thumbnails`, `state` `active`|`queued`):
 *   transformations running and waiting for a slot now (a queue that stays long answers 503 IMAGE_BUSY);
 * - `hangar_database_query_seconds{outcome}` (histogram): queries run through Kysely;
 * - `hangar_database_pool_connections{state}` (Postgres: `total`, `idle`, `waiting`);
 * - `hangar_webhook_deliveries_total{outcome}` (`delivered`|`retry`|`failed`): webhook attempts of this process;
 * - `hangar_webhook_outbox_age_seconds`: age of the oldest webhook delivery due and not yet delivered (0: none), read from the database at each scrape;
 * - Node's process metrics (`process_*`, `nodejs_*`, event-loop lag `nodejs_eventloop_lag_*`).
 */
export class HangarMetrics {
  readonly registry = new client.Registry();
  private readonly requests = new client.Counter({
    name: 'hangar_http_requests_total',
    help: 'HTTP requests answered, by server, method, route template and status',
    labelNames: ['server', 'method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly durations = new client.Histogram({
    name: 'hangar_http_request_duration_seconds',
    help: 'Time from the first middleware to the last byte handed to the socket',
    labelNames: ['server', 'method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly bytesIn = new client.Counter({
    name: 'hangar_http_request_body_bytes_total',
    help: 'Request body bytes read (uploads: bytes stored)',
    labelNames: ['server'] as const,
    registers: [this.registry],
  });
  private readonly bytesOut = new client.Counter({
    name: 'hangar_http_response_bytes_total',
    help: 'Response bytes written to sockets, headers included',
    labelNames: ['server'] as const,
    registers: [this.registry],
  });
  private readonly uploads = new client.Gauge({ name: 'hangar_uploads_in_flight', help: 'Uploads (POST /files) being received', registers: [this.registry] });
  private readonly rateLimited = new client.Counter({
    name: 'hangar_rate_limited_total',
    help: 'Requests refused with 429 (rate limits)',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  private readonly blobOperations = new client.Histogram({
    name: 'hangar_blob_store_operation_seconds',
    help: 'Blob store operations (get: until the body is ready to read)',
    labelNames: ['operation', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly databaseQueries = new client.Histogram({
    name: 'hangar_database_query_seconds',
    help: 'Database queries run through the query builder (SQLite reads served from the lookup caches are not queries)',
    labelNames: ['outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly imageTransforms = new client.Histogram({
    name: 'hangar_image_transform_seconds',
    help: 'Image transformations computed',
    labelNames: ['outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new client.Counter({
    name: 'hangar_webhook_deliveries_total',
    help: 'Webhook delivery attempts of this process, by outcome (delivered: a 2xx; retry: failed, tried again later; failed: given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
  }

  /** One request answered (or abandoned by its client), from the access log's observation. */
  request(observation: RequestObservation): void {
    const labels = { server: observation.server, method: observation.method, route: observation.route ?? '(none)', status: String(observation.status) };
    this.requests.inc(labels);
    this.durations.observe(labels, observation.durationMs / 1000);
    this.bytesIn.inc({ server: observation.server }, observation.bytesIn);
    this.bytesOut.inc({ server: observation.server }, observation.bytesOut);
    if (observation.status === 429) this.rateLimited.inc({ route: labels.route });
  }

  /** An upload began (+1) or ended (−1). */
  uploadsInFlight(delta: 1 | -1): void {
    this.uploads.inc(delta);
  }

  /** One blob store operation (InstrumentedBlobStore's observer). */
  blobOperation(operation: string, seconds: number, failed: boolean): void {
    this.blobOperations.observe({ operation, outcome: failed ? 'error' : 'ok' }, seconds);
  }

  /** One database query. */
  databaseQuery(seconds: number, failed: boolean): void {
    this.databaseQueries.observe({ outcome: failed ? 'error' : 'ok' }, seconds);
  }

  /** One webhook delivery attempt (SqlWebhookOutbox). */
  webhookDelivery(outcome: 'delivered' | 'retry' | 'failed'): void {
    this.webhookDeliveries.inc({ outcome });
  }

  /** Reports the age of the webhook outbox's oldest due delivery (seconds) at each scrape. */
  watchWebhookOutbox(outbox: { oldestDueAgeSeconds(): Promise<number> }): void {
    new client.Gauge({
      name: 'hangar_webhook_outbox_age_seconds',
      help: 'Age of the oldest webhook delivery due and not yet delivered, in seconds (0 when none is due)',
      registers: [this.registry],
      async collect() {
        this.set(await outbox.oldestDueAgeSeconds().catch(() => 0));
      },
    });
  }

  /** One image transformation. */
  imageTransform(seconds: number, failed: boolean): void {
    this.imageTransforms.observe({ outcome: failed ? 'error' : 'ok' }, seconds);
  }

  /** Reports the image transformations running and queued in each pool of slots (Hangar.imageSlots) at each scrape. */
  watchImageSlots(pools: Readonly<Record<string, { readonly active: number; readonly queued: number }>>): void {
    new client.Gauge({
      name: 'hangar_image_transform_slots',
      help: 'Image transformations of this process running (active) and waiting for a slot (queued), by pool',
      labelNames: ['pool', 'state'] as const,
      registers: [this.registry],
      collect() {
        for (const [pool, slots] of Object.entries(pools)) {
          this.set({ pool, state: 'active' }, slots.active);
          this.set({ pool, state: 'queued' }, slots.queued);
        }
      },
    });
  }

  /**
   * Reports the activity log's buffer (Hangar.activity) at each scrape: entries waiting to be written,
   * and the total dropped because the database fell behind by more than the buffer holds.
   */
  watchActivityLog(recorder: { readonly buffered: number; readonly dropped: number }): void {
    new client.Gauge({
      name: 'hangar_activity_log_buffered_entries',
      help: 'Activity log entries of this process recorded and not yet written to the database',
      registers: [this.registry],
      collect() {
        this.set(recorder.buffered);
      },
    });
    new client.Counter({
      name: 'hangar_activity_log_dropped_total',
      help: 'Activity log entries this process dropped, unwritten, because its buffer was full (the database fell behind)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(recorder.dropped);
      },
    });
  }

  /** Reports a node-postgres pool's connections at each scrape. */
  watchPool(pool: { totalCount: number; idleCount: number; waitingCount: number }): void {
    new client.Gauge({
      name: 'hangar_database_pool_connections',
      help: 'Postgres pool connections of this process: total open, idle, and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }

  /**
   * In a cluster worker: answers the supervisor's scrape requests (prom-client's cluster protocol
   * over the IPC channel) with this registry's metrics.
   */
  answerClusterScrapes(): void {
    client.AggregatorRegistry.setRegistries([this.registry]);
    // Constructing one installs the worker's listener (idempotent).
    new client.AggregatorRegistry();
  }
}

/** A listening metrics endpoint and how to stop it. */
export interface MetricsServer {
  /** e.g. `http://127.0.0.1:9464`. */
  address: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus text format 0.0.4) on `host:port`: `scrape` gives the text
 * (one process's registry, or the supervisor's aggregation of every worker's). Anything else is 404.
 */
export async function startMetricsServer(options: { host: string; port: number; scrape: () => Promise<string> }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    options.scrape().then(
      (text) => res.writeHead(200, { 'content-type': client.Registry.PROMETHEUS_CONTENT_TYPE }).end(text),
      (error: unknown) =>
        res.writeHead(503, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  return {
    address: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The supervisor's scrape: every worker's metrics, summed (prom-client's AggregatorRegistry over node:cluster). */
export function clusterScrape(): () => Promise<string> {
  if (!cluster.isPrimary) throw new Error('clusterScrape runs in the cluster primary');
  const aggregator = new client.AggregatorRegistry();
  return () => aggregator.clusterMetrics();
}
