// Throughput client, run as its own process: POSTs `bytes` bytes built from one reusable random
// chunk (no buffering of the body, no hashing), honouring backpressure. Options as JSON in argv[2]:
// { url, bytes, headers, chunkBytes? }; the body starts with a real header of headers['content-type']. Prints one JSON line: status, seconds, bytes/s, the answer.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { withMagic } from '../lib/magic.mjs';

const { url, bytes, headers = {}, chunkBytes = 1024 * 1024 } = JSON.parse(process.argv[2]);
const chunk = randomBytes(chunkBytes);
// The first chunk carries a real header of the declared type (the service sniffs magic bytes).
const first = withMagic(chunk, headers['content-type']);
const started = performance.now();
const request = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(bytes) } });
let sent = 0;
const write = () => {
  while (sent < bytes) {
    const whole = sent === 0 ? first : chunk;
    const part = bytes - sent >= whole.length ? whole : whole.subarray(0, bytes - sent);
    sent += part.length;
    if (!request.write(part)) return void request.once('drain', write);
  }
  request.end();
};
request.on('error', (error) => {
  process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
  process.exitCode = 1;
});
request.on('response', (response) => {
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (text) => (body += text));
  response.on('end', () => {
    const seconds = (performance.now() - started) / 1000;
    let answer;
    try {
      answer = JSON.parse(body);
    } catch {
      answer = body.slice(0, 500);
    }
    process.stdout.write(`${JSON.stringify({ status: response.statusCode, bytes: sent, seconds, bytesPerSecond: sent / seconds, answer })}\n`);
  });
});
write();
