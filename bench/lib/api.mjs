// Preparing the service through its public API, as a user would: register, confirm through the
// mailed link, log in, create an API key, raise the upload limit; upload and seed files.
import { randomBytes } from 'node:crypto';
import { withMagic } from './magic.mjs';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

const GiB = 1024 ** 3;

/** One JSON call. @returns { status, body } */
export async function call(base, pathname, { method = 'GET', json, headers = {}, body } = {}) {
  const response = await fetch(new URL(pathname, base), {
    method,
    redirect: 'manual',
    headers: { ...(json !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: json !== undefined ? JSON.stringify(json) : body,
  });
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

function expectStatus(result, status, what) {
  if (result.status !== status) throw new Error(`${what}: expected ${status}, got ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

/** The newest confirmation link mailed to `email`, from the file outbox (polled: mail leaves through a queue). */
async function confirmationLink(outbox, email, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const names = (await readdir(outbox).catch(() => []))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .reverse();
    for (const name of names) {
      const message = JSON.parse(await readFile(path.join(outbox, name), 'utf8'));
      const link = message.to === email && /https?:\/\/\S+\/auth\/confirm\?token=[0-9A-Za-z]+/.exec(message.text)?.[0];
      if (link) return link;
    }
    if (Date.now() > deadline) throw new Error(`no confirmation mail for ${email} in ${outbox}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A confirmed account with an API key and an upload limit of `maxUploadBytes`.
 * @returns { email, jwt, key }
 */
export async function createAccount(service, label, { maxUploadBytes = 2 * GiB } = {}) {
  const email = `bench-${label}-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`;
  const password = 'bench correct horse';
  expectStatus(await call(service.api, '/auth/register', { method: 'POST', json: { email, password } }), 201, 'register');
  const link = await confirmationLink(path.join(service.dataDir, 'outbox'), email);
  expectStatus(await call(service.api, new URL(link).pathname + new URL(link).search), 302, 'confirm');
  const login = expectStatus(await call(service.api, '/auth/login', { method: 'POST', json: { email, password } }), 200, 'login');
  const jwt = login.session.access_token;
  const created = expectStatus(
    await call(service.api, '/auth/api-keys', { method: 'POST', json: { name: 'bench' }, headers: { authorization: `Bearer ${jwt}` } }),
    201,
    'create API key',
  );
  const key = created.key;
  expectStatus(
    await call(service.api, '/settings', { method: 'PATCH', json: { max_upload_size_bytes: maxUploadBytes }, headers: { 'x-api-key': key } }),
    200,
    'raise upload limit',
  );
  return { email, jwt, key };
}

/** Uploads `bytes` (a Buffer) with the API key. @returns the File object */
export async function uploadFile(service, key, bytes, { contentType = 'image/png', name = 'bench.png' } = {}) {
  const result = await call(service.api, '/files', {
    method: 'POST',
    body: bytes,
    headers: { 'x-api-key': key, 'content-type': contentType, 'x-file-name': name },
  });
  return expectStatus(result, 201, 'upload').file;
}

/**
 * Uploads `count` small files through POST /files, `concurrency` at a time on keep-alive
 * connections; file `i` is named `nameOf(i)`. Reports progress through `onProgress(done)`.
 * @returns files per second
 */
export async function seedFiles(service, key, { count, concurrency = 16, nameOf, onProgress = () => undefined }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL('/files', service.api);
  const body = withMagic(Buffer.from('.'.repeat(16) + 'hangar bench seed\n'), 'image/jpeg');
  let next = 0;
  let done = 0;
  const started = performance.now();
  const one = (name) =>
    new Promise((resolve, reject) => {
      const request = http.request(url, {
        method: 'POST',
        agent,
        headers: { 'x-api-key': key, 'content-type': 'image/jpeg', 'x-file-name': encodeURIComponent(name), 'content-length': body.length },
      });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => (response.statusCode === 201 ? resolve() : reject(new Error(`seed upload: ${response.statusCode} ${text}`))));
      });
      request.on('error', reject);
      request.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        await one(nameOf(i));
        if (++done % 5000 === 0) onProgress(done);
      }
    }),
  );
  agent.destroy();
  return count / ((performance.now() - started) / 1000);
}
