import { readFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { call, signUpWithKey } from '../support/http-harness.js';
import { solidPng } from '../support/images.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

/** The child processes of `pid` (Linux). */
async function childrenOf(pid: number): Promise<number[]> {
  const listed = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).trim();
  return listed === '' ? [] : listed.split(/\s+/).map(Number);
}

/** Whether the process `pid` has libvips (sharp's native library) mapped. */
async function mapsLibvips(pid: number): Promise<boolean> {
  return /libvips/.test(await readFile(`/proc/${pid}/maps`, 'utf8').catch(() => ''));
}

// docs/media.md, "Where images are decoded": the server's process (the bundle `npm start` runs)
// hands uploaded images to a probe process of its own, which ends when idle.
describe('the server as its own process: uploaded images are probed in a process of their own', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-probe-'));
    server = await startServerProcess({ HOST: '127.0.0.1', PORT: '0', CONTENT_PORT: '0', DATA_DIR: dataDir, PASSWORD_HASH_MEMORY_KIB: '1024' });
  });
  after(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reports the image’s facts, never loads libvips in the server’s process, and the probe process ends when idle', async () => {
    const { apiKey } = await signUpWithKey({ api: server.api, dataDir }, 'probe@example.com');
    const pid = server.child.pid!;
    const uploaded = await call(server.api, '/files', { method: 'POST', apiKey, headers: { 'content-type': 'image/png' }, body: await solidPng(120, 80) });
    expect(uploaded.status).to.equal(201);
    let file: any;
    const deadline = Date.now() + 20_000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 50));
      file = (await call(server.api, `/files/${uploaded.body.file.file_id}`, { apiKey })).body;
    } while (file.width === null && Date.now() < deadline);
    expect([file.width, file.height, typeof file.thumbhash]).to.deep.equal([120, 80, 'string']);

    const probes = await childrenOf(pid);
    expect(probes, 'the probe process, still there right after the probe').to.have.length(1);
    expect(await mapsLibvips(probes[0]), 'libvips in the probe process').to.equal(true);
    expect(await mapsLibvips(pid), 'libvips in the server’s process').to.equal(false);

    const idleDeadline = Date.now() + 20_000;
    while ((await childrenOf(pid)).length > 0 && Date.now() < idleDeadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await childrenOf(pid), 'the probe process, 10 s after its last image').to.deep.equal([]);
    expect((await call(server.api, '/healthz')).status).to.equal(200);
  });
});
