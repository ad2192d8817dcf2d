import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadJwtSecret } from '../../apps/server/jwt-secret.js';

describe('the kept JWT secret ($DATA_DIR/jwt-secret)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-jwt-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is generated once, when many processes start at once on a fresh DATA_DIR: all get the same secret', async () => {
    const file = path.join(dir, 'data', 'jwt-secret');
    // Each call is what one starting worker does; they interleave at every file-system step.
    const secrets = await Promise.all(Array.from({ length: 16 }, () => loadJwtSecret({ kind: 'file', path: file })));
    const texts = new Set(secrets.map((secret) => Buffer.from(secret).toString()));
    expect(texts.size).to.equal(1);
    expect([...texts][0]).to.match(/^[A-Za-z0-9_-]{64}$/);
    expect(await readdir(path.dirname(file))).to.deep.equal(['jwt-secret']);
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
  });

  it('never shows another process a half-written secret: the file appears whole or not at all', async () => {
    const file = path.join(dir, 'jwt-secret');
    const loading = loadJwtSecret({ kind: 'file', path: file });
    // What a second process starting now would read, looked at between the first one's
    // file-system steps: each step runs on libuv's threads while this loop holds the event loop for
    // 2 ms, so the step after it waits and its result stays on view; then the loop lets it go on.
    const seen = new Set<number>();
    for (const end = Date.now() + 300; Date.now() < end; ) {
      for (const burst = Date.now() + 2; Date.now() < burst; ) {
        try {
          seen.add(readFileSync(file, 'utf8').length);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await loading;
    seen.add(readFileSync(file, 'utf8').length);
    expect([...seen]).to.deep.equal([64]);
  });

  it('keeps an existing secret across restarts, and refuses one shorter than 32 bytes', async () => {
    const file = path.join(dir, 'jwt-secret');
    const first = await loadJwtSecret({ kind: 'file', path: file });
    expect(Buffer.from(await loadJwtSecret({ kind: 'file', path: file })).equals(Buffer.from(first))).to.equal(true);
    await writeFile(file, 'short');
    let error: unknown;
    await loadJwtSecret({ kind: 'file', path: file }).catch((caught: unknown) => (error = caught));
    expect(String(error)).to.match(/shorter than 32 bytes/);
    expect(await readdir(dir)).to.deep.equal(['jwt-secret']);
  });
});
