import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomFileOf } from '../support/bytes.js';
import { call, mailedToken } from '../support/http-harness.js';
import { freePort, startServerProcess, until } from '../support/server-process.js';

// The supervisor's failures (docs/operations.md): workers that cannot listen, and a crash loop.
// What it does does not depend on the database, so only the SQLite pass runs this file
// (.mocharc.postgres.json); test/http/workers.test.ts runs the workers on both databases.

const PASSWORD = 'correct horse';

describe('HTTP: WORKERS=2 when the workers cannot start or keep dying', function () {
  this.timeout(60_000);

  it('exits 1 with the reason', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-workers-busy-'));
    // The API port is taken: every worker's listen fails.
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const port = (blocker.address() as { port: number }).port;
    try {
      let message = '';
      await startServerProcess({
        WORKERS: '2',
        HOST: '127.0.0.1',
        PORT: String(port),
        CONTENT_PORT: '0',
        DATA_DIR: dataDir,
        PASSWORD_HASH_MEMORY_KIB: '1024',
      }).catch((error: Error) => (message = error.message));
      expect(message).to.match(/EADDRINUSE/);
      expect(message).to.match(/hangar: failed to start: Error: worker \d+ exited before listening \(exit code 1\)/);
    } finally {
      blocker.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('stops everything and exits 1 after more than 5 restarts within a minute (a crash loop)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-workers-loop-'));
    // Every upload kills the worker that stores it (a crash test's failpoint). Fixed ports: when
    // every worker has died, the cluster closes the listening socket and the replacements listen
    // anew, on the configured port (port 0 would mean a new random one).
    const server = await startServerProcess({
      WORKERS: '2',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      CONTENT_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      HANGAR_FAILPOINTS: 'blob_write',
    });
    try {
      const email = 'loop@example.com';
      await call(server.api, '/auth/register', { method: 'POST', json: { email, password: PASSWORD } });
      await call(server.api, `/auth/confirm?token=${await mailedToken({ dataDir }, email, '/auth/confirm')}`);
      const login = await call(server.api, '/auth/login', { method: 'POST', json: { email, password: PASSWORD } });
      const apiKey = (await call(server.api, '/auth/api-keys', { method: 'POST', token: login.body.session.access_token, json: {} })).body.key as string;
      const count = (event: string) => (server.output().match(new RegExp(`"event":"${event}"`, 'g')) ?? []).length;
      const kills = () => count('worker_exited');
      for (let i = 1; i <= 6; i++) {
        await until(async () => count('worker_restarted') === i - 1); // the last one killed is back
        await uploadAlone(server.api, apiKey).catch(() => undefined); // the connection dies with its worker
        await until(async () => kills() >= i);
      }
      const code = server.child.exitCode ?? (await once(server.child, 'exit'))[0];
      expect(code).to.equal(1);
      expect(server.output()).to.match(/"action":"stop"/);
      expect(server.output()).to.include('hangar: more than 5 worker restarts within 60 s; stopping');
    } finally {
      if (server.child.exitCode === null) await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/** A 100-byte PNG upload on a connection of its own. */
function uploadAlone(base: string, apiKey: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = randomFileOf(100, 'image/png', 7);
    const request = http.request(
      `${base}/files`,
      { method: 'POST', agent: false, headers: { 'x-api-key': apiKey, 'content-type': 'image/png', 'content-length': body.byteLength } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      },
    );
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error('no answer in 10 s')));
    request.end(body);
  });
}
