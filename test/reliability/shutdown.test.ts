import { expect } from 'chai';
import { once } from 'node:events';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { ServerProcess } from '../support/server-process.js';
import { aBody, anAccount, download, killServer, sha256, startServer, tryUpload } from './harness.js';

/**
 * SIGTERM drains (docs/reliability.md): an upload in flight when the signal comes still
 * completes with 201 and reads back after a restart; no new connection is taken meanwhile; the
 * buffered usage counts and activity log entries are in the database once the process has exited 0.
 */
describe('SIGTERM: requests in flight finish, buffered usage and logs are written (docs/reliability.md)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess | undefined;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-sigterm-'));
  });
  after(async () => {
    if (server) await killServer(server);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('completes an upload that is mid-body when SIGTERM arrives (201), then exits 0 with every read and log entry written', async () => {
    server = await startServer(dataDir);
    const { apiKey } = await anAccount(server, dataDir, 'drain@example.com');
    const first = aBody(5_000);
    const stored = await tryUpload(server.api, apiKey, first, 'first.txt');
    expect(stored?.status).to.equal(201);
    const fileId = stored!.body.file.file_id as string;
    const READS = 7;
    for (let i = 0; i < READS; i++) expect((await download(server.content, fileId)).sha256).to.equal(sha256(first));

    // A slow upload: 24 chunks of 32 KiB, one every 60 ms; SIGTERM after the third.
    const chunks = Array.from({ length: 24 }, () => aBody(32 * 1024));
    const whole = Buffer.concat(chunks);
    const api = new URL(server.api);
    const request = http.request({
      host: api.hostname,
      port: api.port,
      path: '/files',
      method: 'POST',
      agent: false,
      headers: { 'x-api-key': apiKey, 'content-type': 'text/plain', 'x-file-name': 'in-flight.txt', 'content-length': String(whole.length) },
    });
    const answered = once(request, 'response') as Promise<[http.IncomingMessage]>;
    let signalledAt = 0;
    for (const [i, chunk] of chunks.entries()) {
      request.write(chunk);
      if (i === 2) {
        server.child.kill('SIGTERM');
        signalledAt = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    request.end();
    const [response] = await answered;
    let text = '';
    for await (const part of response) text += part;
    expect(response.statusCode, text).to.equal(201);
    const inFlightId = JSON.parse(text).file.file_id as string;

    // Meanwhile no new request is taken.
    expect(await tryUpload(server.api, apiKey, aBody(10), 'late.txt')).to.equal(undefined);
    expect(await server.stop()).to.equal(0);
    expect(server.output()).to.include('SIGTERM received');
    expect(Date.now() - signalledAt).to.be.below(10_000);
    server = undefined;

    const db = new BetterSqlite3(path.join(dataDir, 'hangar.db'), { readonly: true });
    try {
      const reads = db.prepare('select coalesce(sum(origin_reads), 0) as n from usage_periods').get() as { n: number };
      expect(reads.n, 'origin_reads written at shutdown').to.equal(READS);
      const logged = db.prepare("select method, path, status_code from activity_logs where path = '/files' and method = 'POST' order by created_at").all();
      expect(logged, 'both uploads are in the activity log').to.deep.equal([
        { method: 'POST', path: '/files', status_code: 201 },
        { method: 'POST', path: '/files', status_code: 201 },
      ]);
    } finally {
      db.close();
    }

    server = await startServer(dataDir);
    expect(await download(server.content, inFlightId)).to.deep.equal({ status: 200, sha256: sha256(whole), size: whole.length });
    expect(await server.stop()).to.equal(0);
    server = undefined;
  });
});
