import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Argon2PasswordHasher } from '../../adapters/crypto/argon2-password-hasher.js';
import { Semaphore } from '../../adapters/crypto/semaphore.js';
import { call, mailedToken } from '../support/http-harness.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';
import { scaled } from './scale.js';

const MiB = 1024 * 1024;

// OWASP ASVS 2.4.x with 11.1.4 / 12.1.1: memory-hard hashing must not let a burst of logins exhaust memory.
describe('Security: password hashing is bounded', function () {
  this.timeout(120_000);

  it('runs at most `concurrency` hashes at once however many are asked for together', async () => {
    const hasher = new Argon2PasswordHasher({ memoryCost: 1024, timeCost: 1, concurrency: 2 });
    const hashes = await Promise.all(Array.from({ length: 50 }, (_, i) => hasher.hash(`password ${i}`)));
    expect(hasher.slots.peak).to.equal(2);
    expect(await Promise.all(hashes.slice(0, 5).map((hash, i) => hasher.verify({ hash, password: `password ${i}` })))).to.deep.equal([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('frees the turn of a failing task and serves waiters in order', async () => {
    const semaphore = new Semaphore(1);
    const order: number[] = [];
    const failing = semaphore.run(async () => {
      throw new Error('boom');
    });
    const rest = [1, 2, 3].map((i) => semaphore.run(async () => void order.push(i)));
    await failing.catch(() => {});
    await Promise.all(rest);
    expect(order).to.deep.equal([1, 2, 3]);
    expect(semaphore.waiting).to.equal(0);
  });

  describe('a server process under parallel logins', () => {
    const MEMORY_KIB = 32 * 1024;
    const CONCURRENCY = 2;
    const LOGINS = scaled(50, 200);
    let dataDir: string;
    let server: ServerProcess;
    before(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-hash-'));
      server = await startServerProcess({
        HOST: '127.0.0.1',
        PORT: '0',
        CONTENT_PORT: '0',
        DATA_DIR: dataDir,
        PASSWORD_HASH_MEMORY_KIB: String(MEMORY_KIB),
        PASSWORD_HASH_CONCURRENCY: String(CONCURRENCY),
        // A big thread pool: without the semaphore up to 16 hashes (512 MiB) would run at once.
        UV_THREADPOOL_SIZE: '16',
      });
    });
    after(async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it(`keeps peak memory within ${CONCURRENCY} hashes (+64 MiB) during ${LOGINS} simultaneous logins, and every login succeeds`, async () => {
      const email = 'burst@example.com';
      await call(server.api, '/auth/register', { method: 'POST', json: { email, password: 'secret1' } });
      await call(server.api, `/auth/confirm?token=${await mailedToken({ dataDir }, email, '/auth/confirm')}`);
      expect((await call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'secret1' } })).status).to.equal(200);
      const baseline = await server.memory();
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: LOGINS }, () => call(server.api, '/auth/login', { method: 'POST', json: { email, password: 'secret1' } })),
      );
      const seconds = (Date.now() - started) / 1000;
      const after = await server.memory();
      expect(results.map((r) => r.status).filter((s) => s !== 200)).to.deep.equal([]);
      const growthMiB = (after.hwm - baseline.rss) / MiB;
      process.stdout.write(
        `      ${LOGINS} logins in ${seconds.toFixed(1)} s; peak RSS ${(after.hwm / MiB).toFixed(0)} MiB, ${growthMiB.toFixed(0)} MiB over the ${(baseline.rss / MiB).toFixed(0)} MiB baseline\n`,
      );
      expect(growthMiB).to.be.at.most((CONCURRENCY * MEMORY_KIB) / 1024 + 64);
    });
  });
});
