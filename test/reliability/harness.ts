// Shared by the reliability tests (docs/reliability.md): a server process over one DATA_DIR that
// can be killed and started again, an account to drive it with, the admin CLI, and the checks
// that must hold after every crash.
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { call, mailedToken } from '../support/http-harness.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';
export { runCli } from '../support/cli-process.js';

/** `HANGAR_LONG=1` (npm run test:long) runs the full counts of docs/reliability.md; otherwise the fast ones of npm test. */
export const LONG = process.env.HANGAR_LONG === '1';

/** The environment of every reliability server: loopback, ephemeral ports, cheap hashing, no upload rate limit. */
export function serverEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    CONTENT_PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}`,
    PASSWORD_HASH_MEMORY_KIB: '1024',
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    STORAGE_LIMIT_BYTES: String(64 * 1024 ** 3),
    FILE_COUNT_LIMIT: '1000000',
    ...extra,
  };
}

/** Starts the server process; the test kills or stops it. */
export function startServer(dataDir: string, extra: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess(serverEnv(dataDir, extra));
}

/** SIGKILL, then waits for the process to be gone (no handler runs, nothing is flushed). */
export async function killServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await server.stop();
}

/** Registers, confirms, logs in and creates an API key on a running server. */
export async function anAccount(server: ServerProcess, dataDir: string, email: string): Promise<{ apiKey: string; accessToken: string }> {
  const password = 'correct horse';
  expect((await call(server.api, '/auth/register', { method: 'POST', json: { email, password } })).status).to.equal(201);
  const token = await mailedToken({ dataDir }, email, '/auth/confirm');
  expect((await call(server.api, `/auth/confirm?token=${token}`)).status).to.equal(302);
  const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password } });
  expect(login.status, JSON.stringify(login.body)).to.equal(200);
  const created = await call(server.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: { name: 'reliability' } });
  expect(created.status).to.equal(201);
  return { apiKey: created.body.key, accessToken: login.body.session.access_token };
}

/** `size` bytes (at least 1) that no content sniffer takes for a typed format: an ASCII line, then random bytes. */
export function aBody(size: number): Buffer {
  const head = Buffer.from('hangar reliability test body\n');
  if (size <= head.length) return head.subarray(0, Math.max(1, size));
  return Buffer.concat([head, randomBytes(size - head.length)]);
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Uploads as text/plain; resolves with the status and body, or `undefined` when no answer came (the server died). */
export async function tryUpload(api: string, apiKey: string, body: Buffer, name: string): Promise<{ status: number; body: any } | undefined> {
  try {
    const response = await fetch(`${api}/files`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'text/plain', 'x-file-name': name },
      body,
    });
    return { status: response.status, body: await response.json().catch(() => undefined) };
  } catch {
    return undefined;
  }
}

/** Any request; `undefined` when no answer came. */
export async function tryFetch(url: string, init: RequestInit = {}): Promise<{ status: number; body: any } | undefined> {
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, body };
  } catch {
    return undefined;
  }
}

/** Every file record of the account, through GET /files (100 per page). */
export async function listAllFiles(api: string, apiKey: string): Promise<Array<{ file_id: string; name: string | null; size: number }>> {
  const all: Array<{ file_id: string; name: string | null; size: number }> = [];
  for (let page = 1; ; page++) {
    const result = await call(api, `/files?limit=100&page=${page}`, { apiKey });
    expect(result.status, JSON.stringify(result.body)).to.equal(200);
    all.push(...result.body.files);
    if (result.body.files.length < 100) return all;
  }
}

/** SHA-256 and size of a public file as the content server serves it, or the status when not 200. */
export async function download(content: string, fileId: string): Promise<{ status: number; sha256?: string; size?: number }> {
  const response = await fetch(`${content}/d/${fileId}`);
  if (response.status !== 200) {
    await response.arrayBuffer();
    return { status: response.status };
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: 200, sha256: sha256(bytes), size: bytes.length };
}

/**
 * With the server stopped: `PRAGMA integrity_check` is `ok`, and every account's `files_count` /
 * `storage_bytes` equal the count and sum over its file records, and the trigram index of `q`
 * (migration 0042) holds exactly one entry per record. Returns the totals checked.
 */
export function checkSqlite(databasePath: string): { files: number; bytes: number } {
  const db = new BetterSqlite3(databasePath);
  try {
    expect(db.pragma('integrity_check', { simple: true })).to.equal('ok');
    const mismatched = db
      .prepare(
        `select t.user_id, t.files_count, t.storage_bytes, coalesce(f.n, 0) as n, coalesce(f.bytes, 0) as bytes
           from account_totals t left join (select user_id, count(*) as n, sum(size) as bytes from files group by user_id) f on f.user_id = t.user_id
          where t.files_count != coalesce(f.n, 0) or t.storage_bytes != coalesce(f.bytes, 0)`,
      )
      .all();
    expect(mismatched, 'account_totals that differ from the sum over the records').to.deep.equal([]);
    const unindexed = db
      .prepare(
        'select (select count(*) from files where id not in (select file_record_id from files_trigram_keys)) as missing, (select count(*) from files_trigram_keys where file_record_id not in (select id from files)) as stale',
      )
      .get() as { missing: number; stale: number };
    expect(unindexed, 'records missing from the trigram index, and index entries of no record').to.deep.equal({ missing: 0, stale: 0 });
    const orphanedRecords = db.prepare('select count(*) as n from files where user_id not in (select user_id from account_totals)').get() as { n: number };
    expect(orphanedRecords.n, 'records of accounts without totals').to.equal(0);
    const totals = db.prepare('select count(*) as files, coalesce(sum(size), 0) as bytes from files').get() as { files: number; bytes: number };
    return totals;
  } finally {
    db.close();
  }
}

/** Every regular file under `directory` (recursively), relative names; empty when it does not exist. */
export async function filesUnder(directory: string): Promise<string[]> {
  try {
    const entries = await readdir(directory, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => path.relative(directory, path.join(e.parentPath, e.name)));
  } catch {
    return [];
  }
}

/** Resident memory (bytes) and open file descriptors of a process, from /proc. */
export async function processResources(pid: number): Promise<{ rss: number; fds: number }> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) * 1024;
  const fds = (await readdir(`/proc/${pid}/fd`)).length;
  return { rss, fds };
}
