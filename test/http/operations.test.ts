import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePng } from '../support/bytes.js';
import { call, signUpWithKey, startTestServer } from '../support/http-harness.js';
import { type CliResult, runCli, runNode } from '../support/cli-process.js';
import { SERVER_MAIN } from '../support/server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const STAMP = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'build-info.json'), 'utf8')) as { version: string; commit: string };
const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('HTTP: version and readiness', () => {
  it('answers GET /version on both servers with the version and the commit the build was made from', async () => {
    expect(STAMP.commit).to.match(/^[0-9a-f]{40}$/);
    // The stamped commit is one of this repository's (the build's HEAD at the time).
    execFileSync('git', ['cat-file', '-e', `${STAMP.commit}^{commit}`], { cwd: ROOT });
    const server = await startTestServer();
    try {
      for (const base of [server.api, server.content]) {
        const answer = await call(base, '/version');
        expect(answer.status).to.equal(200);
        expect(answer.body).to.deep.include({ version: PACKAGE_VERSION, commit: STAMP.commit });
        expect(answer.body.built_at).to.match(/^\d{4}-\d\d-\d\dT/);
      }
    } finally {
      await server.stop();
    }
  });

  it('prints the version and commit for --version, from the server and from the CLI, without reading the configuration', async () => {
    const env = { PORT: 'not a port' };
    const runs: Array<[string, Promise<CliResult>]> = [
      ['server --version', runNode([SERVER_MAIN, '--version'], env)],
      ['cli --version', runCli(['--version'], env)],
      ['cli version', runCli(['version'], env)],
    ];
    for (const [name, run] of runs) {
      const { code, stdout, stderr } = await run;
      expect(code, `${name}: ${stderr}`).to.equal(0);
      expect(stdout, name).to.match(new RegExp(`^hangar ${PACKAGE_VERSION.replace(/\./g, '\\.')} \\(commit ${STAMP.commit}`));
    }
  });

  it('answers /readyz 200 on both servers when ready, 503 unavailable when the blob store fails', async () => {
    const server = await startTestServer();
    try {
      for (const base of [server.api, server.content]) {
        const ready = await call(base, '/readyz');
        expect(ready.status).to.equal(200);
        expect(ready.body).to.deep.equal({ status: 'ready', checks: { database: 'ok', blob_store: 'ok' } });
        expect(ready.headers.get('cache-control')).to.equal('no-store');
      }
      await rm(path.join(server.dataDir, 'blobs'), { recursive: true, force: true });
      for (const base of [server.api, server.content]) {
        const unready = await call(base, '/readyz');
        expect(unready.status).to.equal(503);
        expect(unready.body).to.deep.equal({ status: 'unavailable', checks: { database: 'ok', blob_store: 'failing' } });
      }
    } finally {
      await server.stop();
    }
  });

  it('answers /readyz 503 draining once a shutdown has begun, while a request in flight finishes', async () => {
    const server = await startTestServer();
    let stopped: Promise<void> | undefined;
    try {
      const { apiKey } = await signUpWithKey(server, 'drain@example.com');
      const png = makePng(64, 64);
      const socket = connect(Number(new URL(server.api).port), '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.write(`POST /files HTTP/1.1\r\nhost: api.hangar.test\r\ncontent-type: image/png\r\nx-api-key: ${apiKey}\r\ncontent-length: ${png.length}\r\n\r\n`);
      socket.write(png.subarray(0, 100));
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The shutdown begins with the upload half sent; the same connection then asks for readiness.
      stopped = server.stop();
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.write(png.subarray(100));
      socket.write('GET /readyz HTTP/1.1\r\nhost: api.hangar.test\r\n\r\n');
      const deadline = Date.now() + 5000;
      while (!/"status":"draining"/.test(received) && Date.now() < deadline && !socket.destroyed) await new Promise((resolve) => setTimeout(resolve, 20));
      socket.destroy();
      expect(received).to.match(/^HTTP\/1\.1 201 /);
      expect(received).to.match(/HTTP\/1\.1 503 [^]*\{"status":"draining","checks":\{\}\}/);
    } finally {
      await (stopped ?? server.stop());
    }
  });
});
