import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeSmtpServer } from '../support/fake-smtp-server.js';
import { call } from '../support/http-harness.js';
import { freePort, startServerProcess } from '../support/server-process.js';

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Reliability: e-mail survives SIGKILL (the mail outbox)', function () {
  this.timeout(60_000);

  it('sends the confirmation e-mail of a registration after the server was killed (SIGKILL) while the mail server refused it', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-mail-crash-'));
    const smtp = await FakeSmtpServer.start();
    // Every delivery is refused (451) until the server has been killed.
    smtp.failNext = 1_000_000;
    const [port, contentPort] = [await freePort(), await freePort()];
    const env = {
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_PORT: String(contentPort),
      DATA_DIR: dataDir,
      PASSWORD_HASH_MEMORY_KIB: '1024',
      MAIL_URL: `smtp://127.0.0.1:${smtp.port}`,
    };
    try {
      const first = await startServerProcess(env);
      const registered = await call(first.api, '/auth/register', { method: 'POST', json: { email: 'crash-mail@example.com', password: 'correct horse' } });
      expect(registered.status).to.equal(201);
      await until(() => first.output().includes('"event":"mail_retry"'), 10_000);
      first.child.kill('SIGKILL');
      await first.stop();
      expect(smtp.messages).to.have.length(0);

      smtp.failNext = 0;
      const second = await startServerProcess(env);
      try {
        await until(() => smtp.messages.length > 0, 20_000);
        expect(smtp.messages.map((m) => m.to)).to.deep.equal([['crash-mail@example.com']]);
        expect(smtp.messages[0].raw).to.match(/\/auth\/confirm\?token=/);
      } finally {
        await second.stop();
      }
    } finally {
      await smtp.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
