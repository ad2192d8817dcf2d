import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
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
    for (const deadline = killedAt + 5000; Date.now() < deadline && requests.some((r) => r.settledAt === undefined); ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const late = requests.filter((r) => r.settledAt === undefined || r.settledAt - killedAt > 2000);
    expect(late, JSON.stringify(requests)).to.deep.equal([]);
    // The service goes on: the worker is replaced.
    for (const deadline = Date.now() + 20_000; !server.output().includes('"event":"worker_restarted"'); ) {
      if (Date.now() > deadline) throw new Error('the worker was not replaced');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    stopped = undefined;
  });
});
