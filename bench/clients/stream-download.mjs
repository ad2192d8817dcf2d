// Throughput client, run as its own process: GETs argv[2] and counts the bytes (no buffering, no
// hashing). Prints one JSON line: status, bytes, seconds, bytes/s.
import http from 'node:http';

const started = performance.now();
http
  .get(process.argv[2], (response) => {
    let bytes = 0;
    response.on('data', (chunk) => (bytes += chunk.length));
    response.on('end', () => {
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(`${JSON.stringify({ status: response.statusCode, bytes, seconds, bytesPerSecond: bytes / seconds })}\n`);
    });
  })
  .on('error', (error) => {
    process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
    process.exitCode = 1;
  });
