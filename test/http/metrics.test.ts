import { expect } from 'chai';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makePng } from '../support/bytes.js';
import { call, QUICK_WEBHOOK_RETRIES, signUpWithKey, startTestServer, upload } from '../support/http-harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { freePort, startServerProcess } from '../support/server-process.js';

/** The samples of a Prometheus text exposition: name, labels, value. */
function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const found = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    found.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return found;
}

/** The value of the one sample named `name` whose labels include `labels` (0 when there is none). */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  const matching = samples(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  expect(matching.length, `${name} ${JSON.stringify(labels)}`).to.be.at.most(1);
  return matching[0]?.value ?? 0;
}

async function scrape(address: string): Promise<string> {
  const response = await fetch(`${address}/metrics`);
  expect(response.status).to.equal(200);
  expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** One GET on a connection of its own, so that a cluster hands consecutive ones to its workers in turn. */
function getAlone(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      })
      .on('error', reject);
  });
}

describe('metrics (METRICS_PORT, Prometheus text format)', function () {
  this.timeout(60_000);

  it('counts webhook deliveries by outcome and reports the age of the oldest due delivery', async () => {
    const receiver = await WebhookReceiver.start();
    const server = await startTestServer(
      { METRICS_PORT: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_HTTP: 'true' },
      {},
      { webhookRetryDelaysMs: QUICK_WEBHOOK_RETRIES },
    );
    try {
      const address = server.running.metricsAddress!;
      const { accessToken } = await signUpWithKey(server, 'metrics-hooks@example.com');
      const { webhook } = (await call(server.api, '/webhooks', { method: 'POST', token: accessToken, json: { url: receiver.url(), events: ['file.created'] } }))
        .body;
      receiver.script = [500];
      await call(server.api, `/webhooks/${webhook.id}/test`, { method: 'POST', token: accessToken });
      await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      let text = await scrape(address);
      expect(value(text, 'hangar_webhook_deliveries_total', { outcome: 'retry' })).to.equal(1);
      expect(value(text, 'hangar_webhook_outbox_age_seconds')).to.equal(0);
      await receiver.waitFor(2, { timeoutMs: 15_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      text = await scrape(address);
      expect(value(text, 'hangar_webhook_deliveries_total', { outcome: 'delivered' })).to.equal(1);
    } finally {
      await server.stop();
      await receiver.stop();
    }
  });

  it('is off by default', async () => {
    const server = await startTestServer();
    try {
      expect(server.running.metricsAddress).to.equal(undefined);
    } finally {
      await server.stop();
    }
  });

  it('counts the requests made during a load by route and status, bytes uploaded and served, blob operations, and process metrics', async () => {
    // No media probes: each would read its upload's blob once (docs/media.md), and this counts the reads of /m alone.
    const server = await startTestServer({ METRICS_PORT: '0', MEDIA_PROBE_CONCURRENCY: '0' });
    try {
      const address = server.running.metricsAddress!;
      expect(address).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      const { apiKey } = await signUpWithKey(server, 'metrics@example.com');
      const png = makePng(40, 40);
      const load = [
        ...Array.from({ length: 30 }, () => call(server.api, '/version')),
        ...Array.from({ length: 5 }, () => upload(server, apiKey, png)),
        ...Array.from({ length: 4 }, () => call(server.content, '/m/nonexistent')),
      ];
      const during = await scrape(address);
      expect(value(during, 'hangar_uploads_in_flight')).to.be.at.least(0);
      const results = await Promise.all(load);
      const ids = results.filter((r) => r.status === 201).map((r) => r.body.file.file_id as string);
      expect(ids).to.have.length(5);
      const served = await fetch(`${server.content}/m/${ids[0]}`);
      expect(served.status).to.equal(200);
      await served.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 50));

      const text = await scrape(address);
      expect(value(text, 'hangar_http_requests_total', { server: 'api', method: 'GET', route: '/version', status: '200' })).to.equal(30);
      expect(value(text, 'hangar_http_requests_total', { server: 'api', method: 'POST', route: '/files', status: '201' })).to.equal(5);
      expect(value(text, 'hangar_http_requests_total', { server: 'content', method: 'GET', route: '/m/:id', status: '404' })).to.equal(4);
      expect(value(text, 'hangar_http_requests_total', { server: 'content', method: 'GET', route: '/m/:id', status: '200' })).to.equal(1);
      expect(value(text, 'hangar_http_request_duration_seconds_count', { server: 'api', method: 'GET', route: '/version', status: '200' })).to.equal(30);
      expect(value(text, 'hangar_http_request_body_bytes_total', { server: 'api' })).to.be.at.least(5 * png.length);
      expect(value(text, 'hangar_http_response_bytes_total', { server: 'content' })).to.be.above(png.length);
      expect(value(text, 'hangar_uploads_in_flight')).to.equal(0);
      expect(value(text, 'hangar_blob_store_operation_seconds_count', { operation: 'put', outcome: 'ok' })).to.equal(5);
      expect(value(text, 'hangar_blob_store_operation_seconds_count', { operation: 'get', outcome: 'ok' })).to.equal(1);
      expect(value(text, 'hangar_database_query_seconds_count', { outcome: 'ok' })).to.be.above(5);
      const slots = samples(text)
        .filter((s) => s.name === 'hangar_image_transform_slots')
        .map((s) => `${s.labels.pool} ${s.labels.state} ${s.value}`);
      expect(slots.sort()).to.deep.equal(['public active 0', 'public queued 0', 'thumbnails active 0', 'thumbnails queued 0']);
      // The uploads' activity log entries wait for the 2 s flush or are written already; none dropped.
      expect(samples(text).filter((s) => s.name === 'hangar_activity_log_buffered_entries')).to.have.length(1);
      expect(value(text, 'hangar_activity_log_dropped_total')).to.equal(0);
      await server.running.hangar.activity.flush();
      expect(value(await scrape(address), 'hangar_activity_log_buffered_entries')).to.equal(0);
      expect(value(text, 'process_cpu_user_seconds_total')).to.be.above(0);
      expect(text).to.match(/^nodejs_eventloop_lag_seconds /m);
      expect((await fetch(`${address}/other`)).status).to.equal(404);
    } finally {
      await server.stop();
    }
  });

  it('with WORKERS=2, one scrape of the supervisor returns the requests of both workers', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-metrics-workers-'));
    const metricsPort = await freePort();
    const server = await startServerProcess({
      WORKERS: '2',
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: dataDir,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      METRICS_PORT: String(metricsPort),
      LOG_FORMAT: 'json',
    });
    try {
      expect(server.output()).to.include(`hangar: metrics on http://127.0.0.1:${metricsPort}/metrics`);
      for (let i = 0; i < 40; i++) expect(await getAlone(`${server.api}/version`)).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The access log says which worker answered each: both did.
      const byWorker = new Map<number, number>();
      for (const line of server.output().split('\n')) {
        if (!line.includes('"route":"/version"')) continue;
        const entry = JSON.parse(line) as { worker: number };
        byWorker.set(entry.worker, (byWorker.get(entry.worker) ?? 0) + 1);
      }
      expect([...byWorker.keys()].sort()).to.deep.equal([0, 1]);
      const text = await scrape(`http://127.0.0.1:${metricsPort}`);
      expect(value(text, 'hangar_http_requests_total', { server: 'api', method: 'GET', route: '/version', status: '200' })).to.equal(40);
    } finally {
      expect(await server.stop()).to.equal(0);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
