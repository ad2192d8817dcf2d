// CPU cost per request of the two things every request or upload now does beyond its work (issue 59):
// - the access log: one `request` entry (recordRequest, the fields of apps/http/access-log.ts) through the
//   PinoLogger to this process's stdout as the service writes it (lines gathered, written in batches);
// - upload pacing: a 4 KiB body read through pacedBody (apps/http/upload-pacing.ts, the default
//   pacing: its idle timer per chunk) against the same body read as it is (pacing off).
// Figures are CPU µs (user + system) per request, to set against the service's CPU per request in
// `npm run bench` (upload-4k, read-4k): a cost of more than 5 % of those is worth making cheaper.
// Run on a built tree with stdout sent somewhere that takes it, as the service's would be:
//   node bench/tools/hot-path-costs.mjs > /dev/null     (the figures go to stderr)
import { Readable } from 'node:stream';
import { PinoLogger } from '../../dist/adapters/logging/pino-logger.js';
import { recordRequest } from '../../dist/apps/http/access-log.js';
import { DEFAULT_UPLOAD_PACING, pacedBody } from '../../dist/apps/http/upload-pacing.js';

const ROUNDS = 5;
const REQUESTS = 20_000;
const BODIES = 20_000;

/** CPU µs (user + system) per call of `one` over `count` calls (awaited in turn). */
async function cpuPer(count, one) {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await one(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const logger = new PinoLogger({ level: 'info' });
const silent = new PinoLogger({ level: 'warn' });
const request = (i) => ({
  server: 'api',
  method: 'POST',
  route: '/files',
  status: 201,
  durationMs: 3.2,
  bytesIn: 4096,
  bytesOut: 412,
  requestId: `req_${i.toString(36).padStart(12, '0')}`,
  clientIp: '127.0.0.1',
  userAgent: 'autocannon/8',
  aborted: false,
  principal: { kind: 'api_key', userId: 'usr_0123456789abcdef' },
});
const chunk = new Uint8Array(4096);
const body = () => Readable.from([chunk], { objectMode: false });
const drain = async (iterable) => {
  let bytes = 0;
  for await (const part of iterable) bytes += part.byteLength;
  return bytes;
};

const figures = { accessLogInfo: [], accessLogWarn: [], bodyPaced: [], bodyPlain: [] };
for (let round = 0; round < ROUNDS; round++) {
  figures.accessLogInfo.push(await cpuPer(REQUESTS, (i) => recordRequest(logger, undefined, request(i))));
  figures.accessLogWarn.push(await cpuPer(REQUESTS, (i) => recordRequest(silent, undefined, request(i))));
  figures.bodyPaced.push(await cpuPer(BODIES, () => drain(pacedBody(body(), DEFAULT_UPLOAD_PACING))));
  figures.bodyPlain.push(await cpuPer(BODIES, () => drain(pacedBody(body(), { idleTimeoutMs: 0, minBytesPerSecond: 0, windowMs: 0 }))));
}
const result = Object.fromEntries(Object.entries(figures).map(([name, values]) => [name, Number(median(values).toFixed(2))]));
result.accessLogCost = Number((result.accessLogInfo - result.accessLogWarn).toFixed(2));
result.pacingCost = Number((result.bodyPaced - result.bodyPlain).toFixed(2));
process.stderr.write(`access log: ${result.accessLogCost} µs CPU per request (info ${result.accessLogInfo}, warn ${result.accessLogWarn})\n`);
process.stderr.write(`upload pacing: ${result.pacingCost} µs CPU per 4 KiB body (paced ${result.bodyPaced}, off ${result.bodyPlain})\n`);
process.stderr.write(`${JSON.stringify(result)}\n`);
