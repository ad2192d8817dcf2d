// Load generator, run as its own process by bench/lib/load.mjs: autocannon with the options given
// as JSON in argv[2] (plus `bodyBytes`: a random body of that size, generated once and reused).
// Prints one JSON line: requests/s counted from 2xx answers only, latency percentiles in ms.
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { withMagic } from '../lib/magic.mjs';

const { bodyBytes, ...options } = JSON.parse(process.argv[2]);
// A body of the declared type: its header's magic bytes, then random filler.
if (bodyBytes) options.body = withMagic(randomBytes(bodyBytes), options.headers?.['content-type']);
const result = await autocannon(options);
const ok = result['2xx'];
process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: ok / result.duration,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: result.latency.mean },
  })}\n`,
);
