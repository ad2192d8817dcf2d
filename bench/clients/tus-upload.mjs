// Resumable upload client, run as its own process: the tus 1.0.0 requests a client sends
// (https://tus.io/protocols/resumable-upload): one creation POST with Upload-Length, then PATCHes
// of `chunkBytes` (16 MiB by default) with Upload-Offset, each streamed from one reusable random
// chunk (never buffered or hashed here), honouring backpressure. Options as JSON in argv[2]:
// { url, bytes, headers, contentType, chunkBytes? }; the body starts with a real header of
// `contentType` (the service sniffs magic bytes). Prints one JSON line: status of the last PATCH,
// seconds (creation included), bytes/s, the Hangar-File-Id of the last answer, the PATCH count and
// the seconds of the last PATCH (which completes the upload).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { withMagic } from '../lib/magic.mjs';

const { url, bytes, headers = {}, contentType, chunkBytes = 16 * 1024 * 1024 } = JSON.parse(process.argv[2]);
const WRITE = 1024 * 1024;
const chunk = randomBytes(WRITE);
const first = withMagic(chunk, contentType);
const base64 = (text) => Buffer.from(text).toString('base64');

/** One request; resolves with status, headers and body text. */
function send(target, method, extra, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(target, { method, headers: { ...headers, 'tus-resumable': '1.0.0', ...extra } });
    request.on('error', reject);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (part) => (text += part));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body: text }));
    });
    if (!body) return void request.end();
    body(request);
  });
}

/** Streams bytes [offset, offset + length) of the upload into `request`. */
const streamPart = (offset, length) => (request) => {
  let sent = 0;
  const write = () => {
    while (sent < length) {
      const at = offset + sent;
      const whole = at === 0 ? first : chunk;
      const size = Math.min(WRITE - (at % WRITE), length - sent);
      const part = whole.subarray(at % WRITE, (at % WRITE) + size);
      sent += part.length;
      if (!request.write(part)) return void request.once('drain', write);
    }
    request.end();
  };
  write();
};

try {
  const started = performance.now();
  const metadata = `filename ${base64('big.mp4')},filetype ${base64(contentType)}`;
  const created = await send(url, 'POST', { 'upload-length': String(bytes), 'upload-metadata': metadata, 'content-length': '0' });
  if (created.status !== 201) throw new Error(`creation answered ${created.status}: ${created.body.slice(0, 300)}`);
  const location = new URL(created.headers.location, url).href;
  let offset = 0;
  let last;
  let patches = 0;
  let patchStarted = 0;
  while (offset < bytes) {
    const length = Math.min(chunkBytes, bytes - offset);
    patchStarted = performance.now();
    last = await send(
      location,
      'PATCH',
      { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', 'content-length': String(length) },
      streamPart(offset, length),
    );
    patches += 1;
    if (last.status !== 204) throw new Error(`PATCH at ${offset} answered ${last.status}: ${last.body.slice(0, 300)}`);
    offset = Number(last.headers['upload-offset']);
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${JSON.stringify({ status: last.status, bytes: offset, seconds, bytesPerSecond: offset / seconds, fileId: last.headers['hangar-file-id'], patches, lastPatchSeconds: (performance.now() - patchStarted) / 1000 })}\n`,
  );
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
  process.exitCode = 1;
}
