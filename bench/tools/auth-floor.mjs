// The floor of the `auth` scenario: what `GET /settings` with an API key costs next to an
// unauthenticated endpoint when the same work is done with nothing but node:http and
// better-sqlite3 — no Koa, no middleware, no Kysely, no domain layer. Both routes run in one bare
// server on the service's own schema (the migrations, WAL, synchronous=NORMAL):
//   /reference  a constant JSON body (as /reference/allowed-content-types);
//   /settings   SHA-256 of the X-Api-Key header, the API key by its hash, the user by id and the
//               custom domain by user (three indexed lookups, as the service does), one activity
//               log entry buffered and written in 1,000-row transactions, the Settings JSON.
// The ratio this server reaches is the most the service's ratio could reach with the same
// database work (bench/README.md, "Profiles"). Load as in the bench: autocannon, 32 connections,
// from a separate process, alternating pairs.
// Usage: node bench/tools/auth-floor.mjs [seconds=10] [pairs=3]
//   FLOOR_WITHOUT=log,log-writes,lookups drops those parts of /settings, to see what each costs.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTimeOf, freePort, runClient } from '../lib/processes.mjs';
import { median } from '../lib/stats.mjs';

const KEY = `hk_${'a'.repeat(43)}`;

if (process.argv[2] === '--serve') {
  const [, , , file, port] = process.argv;
  const { openSqliteDatabase } = await import('../../dist/adapters/persistence/sqlite/sqlite-database.js');
  await (await openSqliteDatabase({ path: file })).close();
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const now = Date.now();
  db.prepare(
    `insert into users (id, email, password_hash, email_confirmed_at, created_at, updated_at, plan_name) values ('u1', 'floor@example.com', 'x', ?, ?, ?, 'default')`,
  ).run(now, now, now);
  db.prepare(`insert into api_keys (id, user_id, name, key_prefix, key_hash, created_at, last_used_at) values ('k1', 'u1', 'bench', 'hk_aaaa', ?, ?, ?)`).run(
    createHash('sha256').update(KEY).digest('hex'),
    now,
    now,
  );
  const keyByHash = db.prepare('select * from "api_keys" where "key_hash" = ?');
  const userById = db.prepare('select * from "users" where "id" = ?');
  const domainByUser = db.prepare('select * from "custom_domains" where "user_id" = ?');
  // As the service writes them: 500-row INSERT statements, prepared once, in one transaction per batch.
  const insertLogs = db.prepare(
    `insert into activity_logs (id, user_id, method, path, status_code, request_size_bytes, created_at, metadata) values ${Array(500).fill('(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  );
  const writeLogs = db.transaction((entries) => {
    for (let start = 0; start < entries.length; start += 500)
      insertLogs.run(entries.slice(start, start + 500).flatMap((e) => [e.id, e.userId, e.method, e.path, e.status, null, e.at, e.metadata]));
  });
  const without = new Set((process.env.FLOOR_WITHOUT ?? '').split(',').filter(Boolean));
  const fixedKey = keyByHash.get(createHash('sha256').update(KEY).digest('hex'));
  const fixedUser = userById.get('u1');
  let logs = [];
  const reference = JSON.stringify({
    content_types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'video/mp4', 'audio/mpeg', 'text/plain'],
  });
  const send = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  http
    .createServer((req, res) => {
      if (req.url === '/reference') return send(res, 200, reference);
      const started = performance.now();
      const key = req.headers['x-api-key'];
      const hash = without.has('hash') ? undefined : createHash('sha256').update(String(key)).digest('hex');
      const apiKey = without.has('lookups') ? (key === KEY ? fixedKey : undefined) : typeof key === 'string' ? keyByHash.get(hash) : undefined;
      if (!apiKey) return send(res, 401, '{"code":"UNAUTHORIZED"}');
      const user = without.has('lookups') ? fixedUser : userById.get(apiKey.user_id);
      const domain = without.has('lookups') ? undefined : domainByUser.get(apiKey.user_id);
      const body = JSON.stringify({
        public_url_base: domain ? `https://${domain.hostname}` : 'http://127.0.0.1/',
        custom_domain: null,
        max_upload_size_bytes: user.max_upload_size_bytes ?? 104857600,
      });
      send(res, 200, body);
      if (without.has('log')) return;
      logs.push({
        id: randomUUID(),
        userId: user.id,
        method: req.method,
        path: '/settings',
        status: 200,
        at: Date.now(),
        metadata: JSON.stringify({
          auth: 'api_key',
          api_key_id: apiKey.id,
          duration_ms: Math.round((performance.now() - started) * 10) / 10,
          user_agent: req.headers['user-agent'] ?? null,
          ip: req.socket.remoteAddress,
        }),
      });
      if (logs.length >= 1000) {
        const batch = logs;
        logs = [];
        if (!without.has('log-writes')) setImmediate(() => writeLogs(batch));
      }
    })
    .listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
} else {
  const [seconds = '10', pairs = '3'] = process.argv.slice(2);
  const work = await mkdtemp(path.join(os.tmpdir(), 'hangar-auth-floor-'));
  const port = await freePort();
  const server = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', path.join(work, 'floor.db'), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(server.stdout, 'data');
  const base = `http://127.0.0.1:${port}`;
  const load = async (url, headers = {}) => {
    const cpu = cpuTimeOf(server.pid);
    const result = await runClient('autocannon.mjs', { connections: 32, url, headers, duration: Number(seconds) });
    return { rate: result.requestsPerSecond, cpuUs: ((cpuTimeOf(server.pid) - cpu) * 1000) / Math.max(1, result.ok) };
  };
  try {
    await load(`${base}/settings`, { 'x-api-key': KEY }); // warm-up
    const runs = [];
    for (let pair = 0; pair < Number(pairs); pair++) {
      const baseline = await load(`${base}/reference`);
      const settings = await load(`${base}/settings`, { 'x-api-key': KEY });
      runs.push({ baseline, settings, ratio: settings.rate / baseline.rate });
      console.log(
        `pair ${pair + 1}: /reference ${baseline.rate.toFixed(0)} req/s (${baseline.cpuUs.toFixed(0)} µs CPU), /settings ${settings.rate.toFixed(0)} req/s (${settings.cpuUs.toFixed(0)} µs CPU), ratio ${(settings.rate / baseline.rate).toFixed(2)}`,
      );
    }
    console.log(`bare floor: median ratio ${median(runs.map((run) => run.ratio)).toFixed(2)}`);
  } finally {
    server.kill('SIGTERM');
    await rm(work, { recursive: true, force: true });
  }
}
