// Starting and stopping the processes of a bench run: the service (as the README starts it), the
// baseline servers and the load clients; and reading a process's resident memory from /proc.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BENCH = path.join(ROOT, 'bench');
/** The server as `npm start` runs it (the bundle of apps/server/rolldown.config.mjs). */
export const SERVER_MAIN = path.join(ROOT, 'dist/apps/bundle/main.js');

/** A TCP port free on 127.0.0.1 right now (the OS picks it; closed again before use). */
export async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

const MiB = 1024 * 1024;

/**
 * The environment of the bench's service: the caller's (so DATABASE_URL and BLOB_STORE_URL are
 * honoured), with the listen addresses, a file outbox under DATA_DIR (the setup reads its links),
 * a plan whose quotas cannot interfere with a measurement, and no rate limits.
 */
export function serviceEnvironment({ dataDir, port, contentPort }) {
  const env = { ...process.env };
  for (const name of ['PLANS_FILE', 'DEFAULT_PLAN', 'PUBLIC_API_URL', 'PUBLIC_CONTENT_URL', 'ALLOWED_CONTENT_TYPES', 'JWT_SECRET']) delete env[name];
  return {
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
    CONTENT_PORT: String(contentPort),
    DATA_DIR: dataDir,
    MAIL_URL: `file:${path.join(dataDir, 'outbox')}`,
    TRIAL_DAYS: 'off',
    FILE_COUNT_LIMIT: String(100_000_000),
    STORAGE_LIMIT_BYTES: String(2 ** 50),
    MAX_UPLOAD_SIZE_LIMIT_BYTES: String(2 ** 40),
    DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(100 * MiB),
    // The bench's own load would trip the abuse limits (120 uploads a minute per key, 20
    // registrations an hour per address): off, as the plan's quotas are out of reach.
    RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
    RATE_LIMIT_REGISTER_PER_HOUR: '0',
    RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR: '0',
    // As `npm start` and the container image run it (decision 0023), unless the caller set it.
    MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
  };
}

/**
 * Starts `node [nodeArgs] dist/apps/bundle/main.js` (with `env` over {@link serviceEnvironment}'s)
 * and resolves once it printed its addresses.
 * @returns { child, api, content, dataDir, output(), stop() }
 */
export async function startService({ dataDir, nodeArgs = [], env = {}, timeoutMs = 30_000 }) {
  const port = await freePort();
  const contentPort = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, SERVER_MAIN], {
    cwd: ROOT,
    env: { ...serviceEnvironment({ dataDir, port, contentPort }), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  // The start line, or (LOG_LEVEL=warn leaves that line out) a 200 on /healthz of both servers.
  let answered = false;
  const probe = setInterval(() => {
    Promise.all([port, contentPort].map((p) => answers200(`http://127.0.0.1:${p}/healthz`))).then((both) => {
      if (both.every(Boolean)) answered = true;
    });
  }, 20);
  try {
    await waitFor(() => answered || /hangar: API on /.test(output.text), child, timeoutMs, output);
  } finally {
    clearInterval(probe);
  }
  return {
    child,
    pid: child.pid,
    api: `http://127.0.0.1:${port}`,
    content: `http://127.0.0.1:${contentPort}`,
    dataDir,
    output: () => output.text,
    stop: () => stop(child),
  };
}

/** Starts a baseline server script of bench/baselines with `directory`; resolves with its URL. */
export async function startBaseline(script, directory) {
  const child = spawn(process.execPath, [path.join(BENCH, 'baselines', script), directory, '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collect(child);
  await waitFor(() => /listening \d+/.test(output.text), child, 10_000, output);
  const port = Number(/listening (\d+)/.exec(output.text)[1]);
  return { child, pid: child.pid, url: `http://127.0.0.1:${port}`, stop: () => stop(child) };
}

/** Runs a client script of bench/clients with its options as JSON; resolves with the JSON line it prints. */
export async function runClient(script, options) {
  const child = spawn(process.execPath, [path.join(BENCH, 'clients', script), typeof options === 'string' ? options : JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  const [code] = await once(child, 'exit');
  const line = output.stdout.trim().split('\n').pop();
  let result;
  try {
    result = JSON.parse(line);
  } catch {
    throw new Error(`${script} exited with ${code} and no result:\n${output.text}`);
  }
  if (result.error) throw new Error(`${script}: ${result.error}`);
  return result;
}

/** SIGTERM, then waits for the exit (SIGKILL after 15 s). */
export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Output kept from the start of a process (its start-up lines) and from its end, in characters. */
const OUTPUT_HEAD = 64 * 1024;
const OUTPUT_TAIL = 1024 * 1024;

/**
 * A child's stdout and stderr as `text`: all of it up to OUTPUT_HEAD + OUTPUT_TAIL characters,
 * beyond that the first OUTPUT_HEAD and the last OUTPUT_TAIL (the service writes an access-log line
 * per request: millions in a full run, more than a string may hold). `stdout` alike, stdout alone.
 */
function collect(child) {
  const all = bounded();
  const stdout = bounded();
  child.stdout.on('data', (chunk) => {
    all.add(chunk);
    stdout.add(chunk);
  });
  child.stderr.on('data', (chunk) => all.add(chunk));
  return {
    get text() {
      return all.text();
    },
    get stdout() {
      return stdout.text();
    },
  };
}

function bounded() {
  let head = '';
  let tail = '';
  let dropped = 0;
  return {
    add(chunk) {
      const text = String(chunk);
      if (head.length < OUTPUT_HEAD) {
        const room = OUTPUT_HEAD - head.length;
        head += text.slice(0, room);
        if (text.length <= room) return;
        tail += text.slice(room);
      } else {
        tail += text;
      }
      if (tail.length > 2 * OUTPUT_TAIL) {
        dropped += tail.length - OUTPUT_TAIL;
        tail = tail.slice(-OUTPUT_TAIL);
      }
    },
    text: () => (dropped === 0 ? head + tail : `${head}\n[… ${dropped} characters of output left out …]\n${tail}`),
  };
}

/** Whether `url` answers 200 now (false on any error). */
function answers200(url) {
  return new Promise((resolve) => {
    const request = get(url, { agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('error', () => resolve(false));
  });
}

async function waitFor(ready, child, timeoutMs, output) {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}:\n${output.text}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`process did not start within ${timeoutMs} ms:\n${output.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A process and its descendants, as pids (Linux: /proc/<pid>/task/<pid>/children): the service
 * with WORKERS > 1 is a supervisor and its worker processes.
 */
export function processTree(pid) {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    try {
      const children = readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8').trim();
      if (children !== '') pids.push(...children.split(/\s+/).map(Number));
    } catch {
      // it ended meanwhile
    }
  }
  return pids;
}

/**
 * CPU time a process and its descendants (the service's workers) have used so far (user + system,
 * all their threads), in ms; Linux clock ticks are 10 ms. A process that ended is not counted.
 */
export function cpuTimeOf(pid) {
  let total = 0;
  for (const one of processTree(pid)) {
    const stat = readStat(`/proc/${one}/stat`);
    if (stat) total += stat.userMs + stat.systemMs;
  }
  return total;
}

/** {@link cpuTimeOf} summed over several service processes (and their workers), in ms. */
export function cpuOfAll(pids) {
  return pids.reduce((total, pid) => total + cpuTimeOf(pid), 0);
}

/**
 * Waits (up to `timeoutMs`, default 60 s) until `pids` have used less than 5 % of one CPU over half
 * a second: the work a load set off after its answers (an upload's media facts, computed in the
 * background) ends before the next run, instead of running under it and slowing its side, the
 * baseline's turn included. Resolves true once they are idle, false when the time ran out.
 */
export async function settled(pids, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const before = cpuOfAll(pids);
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (cpuOfAll(pids) - before < 25) return true;
  }
  return false;
}

/**
 * A process's or thread's `stat` file (proc(5)): its command name and the CPU it has used so far,
 * user and system, in ms (Linux clock ticks are 10 ms); undefined once it has ended.
 */
function readStat(file) {
  let stat;
  try {
    stat = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // The name is between the first '(' and the last ')' (it may hold either); the fields follow.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), userMs: Number(fields[11]) * 10, systemMs: Number(fields[12]) * 10 };
}

/**
 * CPU time all processes of one command name have used so far (user + system), in ms, e.g.
 * `postgres` for a database server on this machine: its backends answer the service's queries, so
 * their CPU is part of a request's cost that the service's own figure leaves out.
 */
export function cpuTimeOfCommand(command) {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (stat?.command === command) total += stat.userMs + stat.systemMs;
  }
  return total;
}

/**
 * CPU time of each of a process's threads so far, in ms of user and system time: `main thread`,
 * the others by the kernel's name and id (Node 20 calls them all `node`: libuv's thread pool, V8's
 * helpers, worker_threads). Threads that ended are not counted.
 * @returns Map name → { user, system, threads }
 */
export function threadCpuOf(pid) {
  const byName = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readStat(`/proc/${pid}/task/${tid}/stat`);
    if (!stat) continue; // the thread ended meanwhile
    // Node 20 names every thread `node`: the main thread is told apart by its id (= the pid).
    const name = tid === String(pid) ? 'main thread' : `${stat.command} ${tid}`;
    const entry = byName.get(name) ?? { user: 0, system: 0, threads: 0 };
    entry.user += stat.userMs;
    entry.system += stat.systemMs;
    entry.threads += 1;
    byName.set(name, entry);
  }
  return byName;
}

/** VmRSS and VmHWM of a process, in bytes. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/**
 * Peak resident memory of a process and its descendants (the service's workers) over a stretch of
 * time. Preferred: reset the kernel's high-water mark of each (writing "5" to /proc/<pid>/clear_refs
 * sets VmHWM to the current VmRSS), then add up their VmHWM at the end: catches a spike of any
 * length; with several processes it is the sum of each one's own peak, so at most their peak
 * together. Where clear_refs cannot be written, the summed VmRSS is sampled every 50 ms instead
 * (may miss a peak shorter than that).
 * @returns { start(), end() → { startRss, peakRss, growth, method } } figures in bytes
 */
export function peakMemoryTracker(pid) {
  let startRss = 0;
  let sampled = 0;
  let timer;
  let pids = [pid];
  let method = 'VmHWM after clear_refs';
  const sum = (field) =>
    pids.reduce((total, one) => {
      try {
        return total + memoryOf(one)[field];
      } catch {
        return total; // it ended meanwhile
      }
    }, 0);
  return {
    start() {
      pids = processTree(pid);
      try {
        for (const one of pids) writeFileSync(`/proc/${one}/clear_refs`, '5');
      } catch {
        method = 'VmRSS sampled every 50 ms';
      }
      startRss = sum('rss');
      if (method !== 'VmHWM after clear_refs') {
        sampled = startRss;
        timer = setInterval(() => (sampled = Math.max(sampled, sum('rss'))), 50);
      }
    },
    end() {
      clearInterval(timer);
      const peakRss = method === 'VmHWM after clear_refs' ? sum('hwm') : Math.max(sampled, sum('rss'));
      return { startRss, peakRss, growth: peakRss - startRss, method };
    },
  };
}
