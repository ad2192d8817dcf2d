// Start to first answer, idle memory and modules loaded (issue 59), against a bare node:http server
// started the same way (spawned by the same Node, polled the same way).
//
//   node bench/scenarios/startup.mjs [--runs=N]     prints the table and the JSON (needs a built dist/)
//
// For each case (one process or WORKERS=2; a DATA_DIR that already holds a database, or a fresh one):
// - time: spawn → first 200 on the API's /healthz (median of `runs`, after a warm-up start so the
//   page cache holds node_modules and dist/, as on any restart);
// - RSS: the resident memory of each server process (the supervisor and its workers apart) once the
//   first answer came and after IDLE_MS idle, then right after 1,000 mixed requests (an account
//   registered, confirmed and logged in, then 4 KiB uploads, reads, listings, settings, and
//   unauthenticated and unknown paths on both servers; 8 at a time; see mixedRequests) and after
//   IDLE_MS idle again. The target is on the idle figures: a worker gives memory back once idle
//   (apps/server/idle-heap.ts, decision 0023);
// - modules: ES modules and CommonJS files each process loaded (one more start, under
//   bench/lib/count-modules.mjs, kept out of the timed runs since the counting slows the start).
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAccount } from '../lib/api.mjs';
import { withMagic } from '../lib/magic.mjs';
import { BENCH, ROOT, freePort, memoryOf, processTree, SERVER_MAIN, serviceEnvironment, stop } from '../lib/processes.mjs';

const MiB = 1024 * 1024;
const BARE_SERVER = path.join(BENCH, 'baselines/download-server.mjs');

/** The cases measured, each with its target in ms (issue 59). */
export const STARTUP_CASES = [
  { id: 'one-existing', workers: 1, fresh: false, targetMs: 500 },
  { id: 'two-existing', workers: 2, fresh: false, targetMs: 800 },
  { id: 'one-fresh', workers: 1, fresh: true, targetMs: 1500 },
  { id: 'two-fresh', workers: 2, fresh: true, targetMs: 1500 },
];
/** Idle resident memory allowed per server process (issue 59), in MiB. */
export const RSS_TARGET_MIB = 80;
/**
 * How long a process is left idle before its idle RSS is read, in ms: the idle heap trimmer's 6 s
 * of idleness and its collections 2 s apart (apps/server/idle-heap.ts), with room to spare.
 */
export const IDLE_MS = 14_000;

/**
 * Measures every case of {@link STARTUP_CASES}.
 * @param {{ runs?: number, work?: string, requests?: number, log?: (line: string) => void }} options
 * @returns {Promise<{ cases: Array<{ id, workers, fresh, targetMs, ms: number[], bareMs: number[], medianMs, bareMedianMs, ratio,
 *   rssAfterStartMiB: number[], rssIdleAfterStartMiB: number[], rssAfterRequestsMiB: number[], rssIdleAfterRequestsMiB: number[], modules: Array<{ esm, cjs }>, bareModules: { esm, cjs }, bareRssMiB: number, pass: boolean }> }>}
 *   ms per run; RSS per server process (MiB), the supervisor first when WORKERS=2.
 */
export async function measureStartup({ runs = 3, work, requests = 1000, log = () => {} } = {}) {
  const root = work ?? (await mkdtemp(path.join(tmpdir(), 'hangar-startup-')));
  const existing = path.join(root, 'existing');
  // An existing data directory: one start creates the database, the JWT secret and the blob folders.
  const first = await startOnce({ dataDir: existing, workers: 1 });
  await stop(first.child);

  const cases = [];
  for (const item of STARTUP_CASES) {
    const ms = [];
    const bareMs = [];
    let rssAfterStartMiB = [];
    let rssIdleAfterStartMiB = [];
    let rssAfterRequestsMiB = [];
    let rssIdleAfterRequestsMiB = [];
    let bareRssMiB = 0;
    for (let run = -1; run < runs; run++) {
      const dataDir = item.fresh ? await mkdtemp(path.join(root, 'fresh-')) : existing;
      const started = await startOnce({ dataDir, workers: item.workers });
      if (run === 0) {
        rssAfterStartMiB = started.rssMiB;
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
        rssIdleAfterStartMiB = rssOfTree(started.child.pid);
        await mixedRequests(started, requests);
        rssAfterRequestsMiB = rssOfTree(started.child.pid);
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
        rssIdleAfterRequestsMiB = rssOfTree(started.child.pid);
      }
      await stop(started.child);
      if (item.fresh) await rm(dataDir, { recursive: true, force: true });
      const bare = await startBare(root);
      if (run === 0) bareRssMiB = bare.rssMiB[0];
      await stop(bare.child);
      if (run < 0) continue; // warm-up
      ms.push(started.ms);
      bareMs.push(bare.ms);
      log(`  startup ${item.id}: bare node ${bare.ms.toFixed(0)} ms, service ${started.ms.toFixed(0)} ms`);
    }
    const modules = await countModules(root, item, existing);
    const bareModules = await countModules(root, undefined);
    const medianMs = median(ms);
    const bareMedianMs = median(bareMs);
    const idle = rssIdleAfterStartMiB.concat(rssIdleAfterRequestsMiB);
    // With WORKERS=2 the first process is the supervisor, which serves nothing.
    const workerRss = item.workers > 1 ? rssIdleAfterStartMiB.slice(1).concat(rssIdleAfterRequestsMiB.slice(1)) : idle;
    cases.push({
      ...item,
      ms,
      bareMs,
      medianMs,
      bareMedianMs,
      ratio: medianMs / bareMedianMs,
      rssAfterStartMiB,
      rssIdleAfterStartMiB,
      rssAfterRequestsMiB,
      rssIdleAfterRequestsMiB,
      bareRssMiB,
      modules,
      bareModules,
      pass: medianMs <= item.targetMs && workerRss.every((rss) => rss <= RSS_TARGET_MIB),
    });
  }
  if (!work) await rm(root, { recursive: true, force: true });
  return { cases };
}

/** Spawns the service and resolves at its first 200 on /healthz, with the time and each process's RSS (MiB). */
async function startOnce({ dataDir, workers, nodeArgs = [], env = {} }) {
  const port = await freePort();
  const contentPort = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, SERVER_MAIN], {
    cwd: ROOT,
    env: { ...serviceEnvironment({ dataDir, port, contentPort }), WORKERS: String(workers), LOG_LEVEL: 'warn', ...env },
    stdio: 'ignore',
  });
  await firstAnswer(`http://127.0.0.1:${port}/healthz`, child);
  const ms = performance.now() - started;
  return { child, ms, rssMiB: rssOfTree(child.pid), api: `http://127.0.0.1:${port}`, content: `http://127.0.0.1:${contentPort}`, dataDir };
}

/** The bare node:http server of the bench's baselines, started and polled the same way. */
async function startBare(directory, nodeArgs = [], env = {}) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, BARE_SERVER, directory, String(port)], { stdio: 'ignore', env: { ...process.env, ...env } });
  await firstAnswer(`http://127.0.0.1:${port}/startup-probe`, child, true);
  return { child, ms: performance.now() - started, rssMiB: rssOfTree(child.pid) };
}

/** Modules loaded by each process of one start (the bare server's when `item` is undefined). */
async function countModules(root, item, existing) {
  const directory = await mkdtemp(path.join(root, 'modules-'));
  const nodeArgs = ['--import', pathToFileURL(path.join(BENCH, 'lib/count-modules.mjs')).href];
  const env = { HANGAR_BENCH_MODULES_DIR: directory };
  let dataDir;
  if (item) {
    dataDir = item.fresh ? await mkdtemp(path.join(root, 'fresh-')) : existing;
    const started = await startOnce({ dataDir, workers: item.workers, nodeArgs, env });
    await new Promise((resolve) => setTimeout(resolve, 300)); // the counts are written every 50 ms
    await stop(started.child);
  } else {
    const bare = await startBare(root, nodeArgs, env);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await stop(bare.child);
  }
  const counts = [];
  for (const name of await readdir(directory)) if (name.endsWith('.json')) counts.push(JSON.parse(await readFile(path.join(directory, name), 'utf8')));
  await rm(directory, { recursive: true, force: true });
  if (item?.fresh) await rm(dataDir, { recursive: true, force: true });
  return item ? counts : counts[0];
}

/** Resident memory (MiB) of `pid` and then of each of its children. */
function rssOfTree(pid) {
  return processTree(pid).map((one) => (memoryOf(one)?.rss ?? 0) / MiB);
}

/**
 * `count` requests, 8 at a time, as a service in use gets them: first an account (register, the
 * confirmation link from the file outbox, log in, an API key: two password hashes), then in turn a
 * 4 KiB upload with the key, a read of an uploaded file on the content server, a listing of the
 * account's files, its settings, and unauthenticated requests (health, reference, refused and
 * unknown paths, the OpenAPI document) on both servers.
 * @throws when an upload or a listing is not answered 201 / 200
 */
export async function mixedRequests({ api, content, dataDir }, count) {
  const service = { api, dataDir };
  const { key } = await createAccount(service, 'startup');
  const body = withMagic(Buffer.alloc(4096, 0x61), 'image/png');
  const files = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const plain = [
    `${api}/healthz`,
    `${api}/reference/allowed-content-types`,
    `${api}/files`,
    `${api}/no-such-route`,
    `${content}/healthz`,
    `${content}/d/unknownfile`,
    `${api}/openapi.json`,
  ];
  const send = (url, { method = 'GET', headers = {}, payload } = {}) =>
    new Promise((resolve, reject) => {
      const request = http.request(url, { method, agent, headers: payload ? { ...headers, 'content-length': payload.length } : headers }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString() }));
      });
      request.on('error', reject);
      request.end(payload);
    });
  const expect = (answer, status, what) => {
    if (answer.status !== status) throw new Error(`startup scenario: ${what} answered ${answer.status} ${answer.text.slice(0, 200)}`);
    return answer;
  };
  let next = 0;
  const one = async () => {
    while (next < count) {
      const i = next++;
      const kind = i % 8;
      if (kind === 0 || files.length === 0) {
        const answer = expect(
          await send(`${api}/files`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'image/png', 'x-file-name': `startup-${i}.png` },
            payload: body,
          }),
          201,
          'an upload',
        );
        files.push(JSON.parse(answer.text).file.id);
      } else if (kind === 1 || kind === 5) {
        await send(`${content}/m/${files[i % files.length]}`);
      } else if (kind === 2) {
        expect(await send(`${api}/files?limit=30`, { headers: { 'x-api-key': key } }), 200, 'a listing');
      } else if (kind === 3) {
        await send(`${api}/settings`, { headers: { 'x-api-key': key } });
      } else {
        await send(plain[i % plain.length]);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, one));
  agent.destroy();
}

/** Polls `url` every 5 ms until it answers 200 (or anything, with `anyStatus`); rejects if `child` exits first. */
async function firstAnswer(url, child, anyStatus = false) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before answering`);
    const answered = await new Promise((resolve) => {
      const request = http.get(url, { agent: false }, (response) => {
        response.resume();
        resolve(anyStatus || response.statusCode === 200);
      });
      request.on('error', () => resolve(false));
    });
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * A case's RSS per process, in MiB: after start, idle, after the requests, idle, e.g.
 * `91/82→120/100` (the supervisor first when WORKERS=2).
 */
export function rssSummary(c) {
  const mib = (values, i) => (values[i] ?? 0).toFixed(0);
  return c.rssAfterStartMiB
    .map((_, i) => `${mib(c.rssAfterStartMiB, i)}/${mib(c.rssIdleAfterStartMiB, i)}→${mib(c.rssAfterRequestsMiB, i)}/${mib(c.rssIdleAfterRequestsMiB, i)}`)
    .join(', ');
}

/** One line per case, for the terminal. */
export function startupTable({ cases }) {
  const rows = [
    'case            service   bare   ratio  target  RSS/process after start/idle → after 1,000 requests/idle (MiB)   modules esm+cjs per process (bare)   pass',
  ];
  for (const c of cases) {
    const rss = rssSummary(c);
    const modules = c.modules.map((m) => `${m.esm}+${m.cjs}`).join(', ');
    rows.push(
      `${c.id.padEnd(14)} ${c.medianMs.toFixed(0).padStart(6)} ms ${c.bareMedianMs.toFixed(0).padStart(4)} ms ${c.ratio.toFixed(1).padStart(6)}× ${String(c.targetMs).padStart(5)} ms  ${rss.padEnd(50)} ${modules} (${c.bareModules.esm}+${c.bareModules.cjs})  ${c.pass ? 'pass' : 'FAIL'}`,
    );
  }
  return rows.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);
  const result = await measureStartup({ runs, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${startupTable(result)}\n${JSON.stringify(result)}\n`);
}
