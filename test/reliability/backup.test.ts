import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli-process.js';
import { signUpWithKey, startTestServer, upload } from '../support/http-harness.js';
import { serverEnv } from './harness.js';

/** A text file of `size` random bytes (text/plain needs no signature). */
function textOf(size: number): Uint8Array {
  return new TextEncoder().encode(
    randomBytes(Math.ceil(size / 2))
      .toString('hex')
      .slice(0, size),
  );
}

describe('admin CLI: backup and restore (SQLite, blobs on disk)', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  const tempDir = async (name: string) => {
    const dir = await mkdtemp(path.join(tmpdir(), `hangar-${name}-`));
    dirs.push(dir);
    return dir;
  };
  after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('backs up while uploads go on, restores into an empty DATA_DIR, fsck is clean, and every file acknowledged before the backup is byte-identical', async () => {
    const dataDir = await tempDir('backup-source');
    const server = await startTestServer({ RATE_LIMIT_UPLOADS_PER_MINUTE: '0' }, {}, { dataDir });
    const acknowledged = new Map<string, Uint8Array>();
    let uploading = true;
    let during = 0;
    try {
      const { apiKey } = await signUpWithKey(server, 'backup@example.com');
      // Small files (rows of small-blobs.db) and large ones (files of their own).
      for (const size of [10, 1_000, 60_000, 70_000, 300_000, 2_000, 150_000, 5]) {
        const body = textOf(size);
        const stored = await upload(server, apiKey, body, { contentType: 'text/plain', name: `f${size}.txt` });
        expect(stored.status).to.equal(201);
        acknowledged.set(stored.body.file.file_id, body);
      }
      const writer = (async () => {
        while (uploading) {
          const stored = await upload(server, apiKey, textOf(during % 2 === 0 ? 500 : 100_000), { contentType: 'text/plain' });
          expect(stored.status).to.equal(201);
          during += 1;
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const backupDir = path.join(await tempDir('backup'), 'snapshot');
      const backedUp = await runCli(['backup', backupDir], serverEnv(dataDir));
      uploading = false;
      await writer;
      expect(backedUp.code, backedUp.stderr).to.equal(0);
      expect(backedUp.stdout).to.match(/^Backed up 1 account and \d+ files \(\d+ bytes of file contents\)/);
      expect(during, 'uploads went on during the backup').to.be.above(0);
      const manifest = JSON.parse(await readFile(path.join(backupDir, 'manifest.json'), 'utf8'));
      expect(manifest.files.map((f: { path: string }) => f.path)).to.include.members(['hangar.db', 'blobs/small-blobs.db']);
      for (const file of manifest.files) expect(file.sha256).to.match(/^[0-9a-f]{64}$/);

      // Into an empty DATA_DIR; never over data.
      const restoredDir = await tempDir('restored');
      expect((await runCli(['restore', backupDir], serverEnv(dataDir))).code, 'restore over data').to.equal(1);
      const restored = await runCli(['restore', backupDir], serverEnv(restoredDir));
      expect(restored.code, restored.stderr).to.equal(0);
      const fsck = await runCli(['fsck'], serverEnv(restoredDir));
      expect(fsck.code, fsck.stdout + fsck.stderr).to.equal(0);

      const again = await startTestServer({}, {}, { dataDir: restoredDir });
      try {
        for (const [id, body] of acknowledged) {
          const response = await fetch(`${again.content}/d/${id}`);
          expect(response.status, id).to.equal(200);
          expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(body)), id).to.equal(true);
        }
      } finally {
        await again.stop();
      }
    } finally {
      uploading = false;
      await server.stop();
    }
  });

  it('refuses a damaged backup, and Postgres (pointing at pg_dump)', async () => {
    const dataDir = await tempDir('backup-damaged');
    const server = await startTestServer({}, {}, { dataDir });
    try {
      const { apiKey } = await signUpWithKey(server, 'damaged@example.com');
      expect((await upload(server, apiKey, textOf(100_000), { contentType: 'text/plain' })).status).to.equal(201);
    } finally {
      await server.stop();
    }
    const backupDir = path.join(await tempDir('backup-damaged-copy'), 'b');
    expect((await runCli(['backup', backupDir], serverEnv(dataDir))).code).to.equal(0);
    const manifest = JSON.parse(await readFile(path.join(backupDir, 'manifest.json'), 'utf8'));
    const blob = manifest.files.find((f: { path: string }) => f.path.startsWith('blobs/') && !f.path.includes('small-blobs'));
    await writeFile(path.join(backupDir, blob.path), 'tampered');
    const refused = await runCli(['restore', backupDir], serverEnv(await tempDir('backup-damaged-target')));
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/differs from the manifest; the backup is damaged/);
    const postgres = await runCli(['backup', path.join(backupDir, 'x')], { ...serverEnv(dataDir), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(postgres.code).to.equal(1);
    expect(postgres.stderr).to.include('pg_dump');
  });
});
