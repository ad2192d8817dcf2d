// Counts the SQL statements each kind of request sends to Postgres: starts the service (WORKERS=1)
// on DATABASE_URL with `log_statement = all` set on that database, makes an account, sends each
// request kind N times after a warm-up, and counts the statements the server log shows for the
// server log in between (only that database logs statements). For finding round trips on the per-request path (issue 21).
// Usage: [CONCURRENCY=64] DATABASE_URL=postgres://…/db PG_LOG=/var/log/postgresql/postgresql-15-main.log node bench/tools/statements-per-request.mjs [N=20]
import { readFile, stat, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { call, createAccount, uploadFile } from '../lib/api.mjs';
import { withMagic } from '../lib/magic.mjs';
import { startService } from '../lib/processes.mjs';

const n = Number(process.argv[2] ?? 20);
const logFile = process.env.PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const database = new URL(process.env.DATABASE_URL).pathname.slice(1);
const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
await admin.connect();
await admin.query(`alter database "${database}" set log_statement = 'all'`);
const work = await mkdtemp(path.join(os.tmpdir(), 'hangar-statements-'));
const service = await startService({ dataDir: path.join(work, 'service'), env: { WORKERS: '1' } });
const mark = async () => (await stat(logFile)).size;
const statementsSince = async (offset) => {
  const text = (await readFile(logFile)).subarray(offset).toString('utf8');
  return text.split('\n').filter((line) => /(LOG|DETAIL):\s+(statement|execute)/.test(line));
};
try {
  const account = await createAccount(service, 'statements');
  const file = await uploadFile(service, account.key, withMagic(Buffer.alloc(4096, 1), 'image/png'));
  const kinds = {
    'upload-4k (POST /files)': () => uploadFile(service, account.key, withMagic(Buffer.alloc(4096, 2), 'image/png')),
    'read-4k (GET /m/:id)': () =>
      fetch(`${service.content}/m/${file.file_id}`).then(async (r) => {
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`read: ${r.status}`);
      }),
    'auth (GET /settings)': () => call(service.api, '/settings', { headers: { 'x-api-key': account.key } }),
    'list (GET /files?q=)': () => call(service.api, '/files?limit=30&q=bench', { headers: { 'x-api-key': account.key } }),
  };
  for (const [name, send] of Object.entries(kinds)) {
    for (let i = 0; i < 3; i++) await send();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const before = await mark();
    // CONCURRENCY (default 1): requests in flight at once, as a loaded service sees them.
    const concurrency = Number(process.env.CONCURRENCY ?? 1);
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < n) {
          sent += 1;
          await send();
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = await statementsSince(before);
    console.log(`${name}: ${(lines.length / n).toFixed(2)} statements per request`);
    const counts = new Map();
    for (const line of lines) {
      const text = line.replace(/^.*?(statement|execute[^:]*):\s*/, '').slice(0, 140);
      counts.set(text, (counts.get(text) ?? 0) + 1);
    }
    for (const [text, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${(count / n).toFixed(2)} × ${text}`);
  }
} finally {
  await service.stop();
  await admin.query(`alter database "${database}" reset log_statement`);
  await admin.end();
  await rm(work, { recursive: true, force: true });
}
