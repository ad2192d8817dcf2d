import { expect } from 'chai';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';
import { httpTestDatabase } from '../support/test-database.js';

/** The worker processes of a supervisor (Linux: /proc/<pid>/task/<pid>/children). */
async function workersOf(server: ServerProcess): Promise<number[]> {
  const pid = server.child.pid!;
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return text.trim() === '' ? [] : text.trim().split(/\s+/).map(Number);
}

/** A request on a connection of its own; `settledAt` is set (Date.now()) once it is answered or its connection fails. */
function request(base: string, pathname: string): { settledAt?: number; outcome?: string } {
  const state: { settledAt?: number; outcome?: string } = {};
  const settle = (outcome: string) => {
    state.settledAt ??= Date.now();
    state.outcome ??= outcome;
  };
  const req = http.get(base + pathname, { agent: false }, (response) => {
    response.resume();
    response.on('end', () => settle(String(response.statusCode)));
    response.on('error', (error) => settle(String((error as NodeJS.ErrnoException).code)));
  });
  req.on('error', (error) => settle(String((error as NodeJS.ErrnoException).code)));
  req.setTimeout(20_000, () => req.destroy());
  return state;
}

/** The process among `pids` that holds the server side of the local TCP connection from `clientPort` (Linux: /proc/net/tcp and /proc/<pid>/fd). */
async function holderOf(pids: number[], clientPort: number): Promise<number | undefined> {
  const port = clientPort.toString(16).toUpperCase().padStart(4, '0');
  const rows = (await readFile('/proc/net/tcp', 'utf8'))
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/));
  // Columns: sl, local address, remote address, state, …, inode (10th).
  const inode = rows.find((row) => row.length > 9 && row[2].endsWith(`:${port}`) && row[9] !== '0')?.[9];
  for (const pid of pids) {
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
      if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === `socket:[${inode}]`) return pid;
    }
  }
  return undefined;
}

describe(`HTTP: WORKERS=2, a worker that dies with connections handed to it (${httpTestDatabase()})`, function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;
  let stopped: number | undefined;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-worker-death-'));
    server = await startServerProcess({ WORKERS: '2', HOST: '127.0.0.1', PORT: '0', CONTENT_PORT: '0', DATA_DIR: dataDir, PASSWORD_HASH_MEMORY_KIB: '1024' });
  });
  after(async () => {
    if (stopped !== undefined) {
      try {
        process.kill(stopped, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    if (server && server.child.exitCode === null) await server.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('closes at once the connection of a request in flight on a worker that is killed, also one it had not yet taken', async () => {
    const [victim] = await workersOf(server);
    // A stuck worker: the supervisor still hands it a connection, which it never takes.
    process.kill(victim, 'SIGSTOP');
    stopped = victim;
    const requests = Array.from({ length: 4 }, () => request(server.api, '/healthz'));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const waiting = requests.filter((r) => r.settledAt === undefined);
    expect(waiting.length, 'a request is in flight on the stopped worker').to.be.at.least(1);
    process.kill(victim, 'SIGKILL');
    const killedAt = Date.now();
    for (const deadline = killedAt + 5000; Date.now() < deadline && requests.some((r) => r.settledAt === undefined);) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const late = requests.filter((r) => r.settledAt === undefined || r.settledAt - killedAt > 2000);
    expect(late, JSON.stringify(requests)).to.deep.equal([]);
    // The service goes on: the worker is replaced.
    for (const deadline = Date.now() + 20_000; !server.output().includes('"event":"worker_restarted"');) {
      if (Date.now() > deadline) throw new Error('the worker was not replaced');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    stopped = undefined;
  });

  it('closes at once the connection of a slow upload request, still arriving, on a worker that is killed', async () => {
    const { hostname, port } = new URL(server.api);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    let closedAt: number | undefined;
    socket.on('close', () => (closedAt = Date.now()));
    socket.on('error', () => undefined);
    // A slow client: the request has started, its headers are not complete yet.
    socket.write('POST /files HTTP/1.1\r\nHost: api.hangar.test\r\nContent-Type: text/plain\r\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const holder = await holderOf(await workersOf(server), socket.localPort!);
    expect(holder, 'a worker holds the connection').to.be.a('number');
    process.kill(holder!, 'SIGKILL');
    const killedAt = Date.now();
    for (const deadline = killedAt + 5000; closedAt === undefined && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    expect(closedAt, 'the connection was closed').to.be.a('number');
    expect(closedAt! - killedAt).to.be.at.most(2000);
  });
});
