import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerService, unregisterService } from './openapi-check.js';
import { freshServerDatabase, httpTestDatabase, type ServerDatabase } from './test-database.js';

/** The server as `npm start` runs it: the bundle of the compiled entry point (apps/server/rolldown.config.mjs). */
export const SERVER_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/bundle/main.js');

/** A server started as its own process, as a self-hoster starts it. */
export interface ServerProcess {
  child: ChildProcess;
  api: string;
  content: string;
  output(): string;
  /** Resident memory figures of the server process, in bytes (from /proc/<pid>/status). */
  memory(): Promise<{ rss: number; hwm: number }>;
  /** SIGTERM, then waits for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The lowest port of the tests' own range: above the ports services usually take (Postgres, Redis, …). */
const TEST_PORTS_FROM = 10_000;

/**
 * The first port of the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`, 32,768
 * by default), from which it picks the ports of `listen(0)` and of outgoing connections.
 */
function ephemeralPortsFrom(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > TEST_PORTS_FROM + 1_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * Listens on `port` at 127.0.0.1 (0: a port the kernel picks) and closes again at once.
 * @returns the port listened on, or undefined when it is taken
 */
async function listenOnce(port: number): Promise<number | undefined> {
  const server = createServer();
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
  } catch {
    return undefined;
  }
  const listened = (server.address() as AddressInfo).port;
  server.close();
  await once(server, 'close');
  return listened;
}

/**
 * A TCP port free on 127.0.0.1 right now (closed again before use), for a server that must keep
 * one fixed port across restarts (a test that cannot use port 0). It is taken at random below the
 * kernel's ephemeral range: a port from that range (what `listen(0)` gives) can be handed to an
 * outgoing connection or another process's `listen(0)` between this choice and the server's
 * listen, which then fails with EADDRINUSE; below it, only another test's random choice could
 * take it in that window. Falls back to the kernel's choice when no port tried is free.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralPortsFrom();
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = TEST_PORTS_FROM + Math.floor(Math.random() * (below - TEST_PORTS_FROM));
    if ((await listenOnce(port)) !== undefined) return port;
  }
  const picked = await listenOnce(0);
  if (picked === undefined) throw new Error('no TCP port can be listened on at 127.0.0.1');
  return picked;
}

/** Server processes started and not yet exited, for {@link killLeftoverServers}. */
const running = new Set<ChildProcess>();

/**
 * Kills (SIGKILL) every server process still running and returns how many there were: the root
 * hook (root-hooks.ts) calls it after the last test, so that a test that lost track of a server
 * (a failed `before`, say) fails alone instead of keeping mocha, and CI, waiting forever.
 */
export function killLeftoverServers(): number {
  const leftover = [...running];
  for (const child of leftover) child.kill('SIGKILL');
  running.clear();
  return leftover.length;
}

/**
 * Starts one server per entry of `envs`, all at once (as a deployment starts them), and resolves
 * once all listen. If any fails to start, the others are stopped before the first failure is thrown.
 */
export async function startServerProcesses(envs: Record<string, string>[]): Promise<ServerProcess[]> {
  const results = await Promise.allSettled(envs.map((env) => startServerProcess(env)));
  const failure = results.find((result) => result.status === 'rejected');
  if (!failure) return results.map((result) => (result as PromiseFulfilledResult<ServerProcess>).value);
  await Promise.all(results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.stop()] : [])));
  throw failure.reason;
}

/**
 * Starts `node dist/apps/bundle/main.js` with `env` and waits until both servers listen. With
 * `HANGAR_TEST_DB=postgres` and no DATABASE_URL in `env`, the server gets a fresh Postgres schema
 * of its own, dropped once it has stopped. It runs as one process (`WORKERS=1`) unless `env` asks
 * for workers: tests that kill, watch or measure "the server" mean that one process. `nodeArgs`
 * go to `node` before the script (V8 flags such as `--trace-gc`).
 */
export async function startServerProcess(env: Record<string, string>, { nodeArgs = [] }: { nodeArgs?: string[] } = {}): Promise<ServerProcess> {
  const database: ServerDatabase | undefined =
    httpTestDatabase() === 'postgres' && env.DATABASE_URL === undefined ? await freshServerDatabase(env.DATA_DIR ?? '.') : undefined;
  const child = spawn(process.execPath, [...nodeArgs, SERVER_MAIN], {
    env: { PATH: process.env.PATH ?? '', WORKERS: '1', ...database?.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = once(child, 'exit');
  exited.then(
    () => running.delete(child),
    () => running.delete(child),
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  // A start takes about 0.5 s of CPU per process; on a machine shared with the other mocha workers
  // and their servers, at half its speed, two workers on Postgres took over 20 s. A start that hangs still fails.
  const deadline = Date.now() + 60_000;
  let match: RegExpExecArray | null;
  while (!(match = /API on (\S+) .*content on (\S+) /.exec(output))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      await database?.drop();
      throw new Error(`server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // The start line names the address bound (`http://0.0.0.0:3000`: every interface); connect over loopback.
  const [api, content] = [match[1], match[2]].map((address) => address.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://127.0.0.1'));
  await registerService(api, content);
  return {
    child,
    api,
    content,
    output: () => output,
    memory: async () => {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
      return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
    },
    stop: async () => {
      unregisterService(api, content);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const [code] = await exited;
      await database?.drop();
      return code as number | null;
    },
  };
}

/**
 * Resolves once `condition` resolves true, checking every 50 ms.
 * @throws Error 'timed out' after `timeoutMs` (ms) without it
 */
export async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await condition());) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
