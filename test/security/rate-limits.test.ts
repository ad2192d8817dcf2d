import { expect } from 'chai';
import { randomFileOf } from '../support/bytes.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, expectError, outbox, signUp, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';

type Result = Awaited<ReturnType<typeof call>>;

/** Asserts 429 RATE_LIMITED with `Retry-After` equal to `details.retry_after_seconds` (≥ 1); returns the seconds. */
function expectRateLimited(result: Result): number {
  expect(result.status, JSON.stringify(result.body)).to.equal(429);
  expect(result.body.code).to.equal('RATE_LIMITED');
  expect(result.body.message).to.be.a('string');
  const seconds = Number(result.headers.get('retry-after'));
  expect(seconds).to.be.at.least(1);
  expect(result.body.details).to.deep.equal({ retry_after_seconds: seconds });
  return seconds;
}

const login = (server: TestServer, email: string, password: string, forwardedFor?: string) =>
  call(server.api, '/auth/login', { method: 'POST', json: { email, password }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

// OWASP ASVS 2.2.1 (anti-automation, soft lockout), 11.1.4 (business limits): black-box, over HTTP.
describe('Security: rate limits', function () {
  this.timeout(60_000);

  describe('failed logins, behind one trusted proxy (TRUST_PROXY=1)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ TRUST_PROXY: '1', RATE_LIMIT_LOGIN_FREE_FAILURES: '3', RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES: '1000' });
      await signUp(server, 'owner@example.com', 'owner password');
    });
    after(async () => {
      await server.stop();
      expect(server.internalErrors).to.deep.equal([]);
    });

    it('answers 401 for the free failures, then 429 RATE_LIMITED with Retry-After, even for the right password', async () => {
      const attacker = 'spoofed-by-client, 203.0.113.7';
      for (let i = 0; i < 3; i++) expect((await login(server, 'owner@example.com', `guess ${i}`, attacker)).status).to.equal(401);
      expectRateLimited(await login(server, 'owner@example.com', 'guess 5', attacker));
      expectRateLimited(await login(server, 'owner@example.com', 'owner password', attacker));
    });

    it('never locks the owner out: the owner’s own address logs in while the attacker waits', async () => {
      expectRateLimited(await login(server, 'owner@example.com', 'guess', '203.0.113.7'));
      expect((await login(server, 'owner@example.com', 'owner password', '198.51.100.2')).status).to.equal(200);
    });

    it('checks at most RATE_LIMIT_LOGIN_FREE_FAILURES passwords of 40 simultaneous wrong logins (one more per delay run out), and refuses the right one at position 37', async () => {
      await signUp(server, 'burst@example.com', 'burst password');
      const attacker = '203.0.113.40';
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => login(server, 'burst@example.com', i === 36 ? 'burst password' : `guess ${i}`, attacker)),
      );
      const elapsedSeconds = (performance.now() - started) / 1000;
      // The delays after the free failures are 1 s, 2 s, 4 s…: a burst that outlasts k of them (on a
      // slow machine) may have one more check after each, never more.
      const delaysRunOut = Math.floor(Math.log2(elapsedSeconds + 1));
      const statuses = results.map((result) => result.status);
      const checked = statuses.filter((status) => status !== 429).length;
      // Every checked password answers 401 (wrong) or 200 (right); a refused attempt is 429 without a check.
      expect(checked, `${JSON.stringify(statuses)} in ${elapsedSeconds.toFixed(2)} s`).to.be.within(1, 3 + delaysRunOut);
      expect(statuses.filter((status) => status !== 401 && status !== 429 && status !== 200)).to.deep.equal([]);
      if (delaysRunOut === 0) expectRateLimited(results[36]);
      else expect(results[36].status, 'the right password, checked only when a delay had run out').to.be.oneOf([429, 200]);
      expect((await login(server, 'burst@example.com', 'burst password', '198.51.100.40')).status).to.equal(200);
    });

    it('answers an address without an account exactly like one with an account (statuses and Retry-After)', async () => {
      const sequence = async (email: string, client: string) => {
        const seen: string[] = [];
        for (let i = 0; i < 6; i++) {
          const result = await login(server, email, 'wrong password', client);
          seen.push(`${result.status} ${result.body.code} ${result.headers.get('retry-after') ?? '-'}`);
        }
        return seen;
      };
      const known = await sequence('owner@example.com', '192.0.2.10');
      const unknown = await sequence('nobody@example.com', '192.0.2.11');
      expect(unknown).to.deep.equal(known);
      expect(known.at(-1)).to.match(/^429 RATE_LIMITED \d+$/);
    });

    it('keys the client by the last X-Forwarded-For entry (the one the trusted proxy added), not what the client wrote before it', async () => {
      for (let i = 0; i < 4; i++) await login(server, 'owner@example.com', 'guess', `10.0.0.${i}, 203.0.113.99`);
      expectRateLimited(await login(server, 'owner@example.com', 'guess', '10.9.9.9, 203.0.113.99'));
    });
  });

  describe('without TRUST_PROXY', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        RATE_LIMIT_LOGIN_FREE_FAILURES: '1000',
        RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES: '5',
        RATE_LIMIT_REGISTER_PER_HOUR: '3',
        RATE_LIMIT_FORGOT_PASSWORD_PER_HOUR: '1000',
        RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR: '2',
        RATE_LIMIT_UPLOADS_PER_MINUTE: '3',
      });
    });
    after(async () => {
      await server.stop();
      expect(server.internalErrors).to.deep.equal([]);
    });

    it('ignores X-Forwarded-For: a client cannot escape the per-client login limit by sending a new address each time', async () => {
      for (let i = 0; i < 5; i++) expect((await login(server, `victim${i}@example.com`, 'guess', `198.51.100.${i}`)).status).to.equal(401);
      expectRateLimited(await login(server, 'victim-next@example.com', 'guess', '198.51.100.200'));
    });

    it('limits registrations per client per hour', async () => {
      for (let i = 0; i < 3; i++)
        expect((await call(server.api, '/auth/register', { method: 'POST', json: { email: `new${i}@example.com`, password: 'secret1' } })).status).to.equal(
          201,
        );
      const seconds = expectRateLimited(await call(server.api, '/auth/register', { method: 'POST', json: { email: 'new3@example.com', password: 'secret1' } }));
      expect(seconds).to.be.within(3000, 3600);
    });

    it('counts registrations and reset requests naming one address together', async () => {
      // new0 was registered once by the test above: 1 of its 2 requests per hour is used.
      expect((await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email: 'new0@example.com' } })).status).to.equal(200);
      expectRateLimited(await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email: 'NEW0@example.com' } }));
    });
  });

  describe('reset requests per address', () => {
    let dataDir: string;
    let server: TestServer;
    before(async () => {
      // The account is made by an earlier process over the same data, so this one's counters start at zero for both addresses.
      dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-limits-'));
      const database = { DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}` };
      const setup = await startTestServer(database, {}, { dataDir });
      await signUp(setup, 'known@example.com');
      await setup.stop();
      server = await startTestServer({ ...database, RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR: '2' }, {}, { dataDir });
    });
    after(async () => {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
      expect(server.internalErrors).to.deep.equal([]);
    });

    it('answers the same, request for request, whether or not the address has an account; only the account is mailed', async () => {
      const answers = async (email: string) => {
        const seen: string[] = [];
        for (let i = 0; i < 3; i++) {
          const result = await call(server.api, '/auth/forgot-password', { method: 'POST', json: { email } });
          seen.push(`${result.status} ${result.body.code ?? result.body.message}`);
        }
        return seen;
      };
      const known = await answers('known@example.com');
      expect(await answers('nobody-here@example.com')).to.deep.equal(known);
      expect(known.map((a) => a.split(' ')[0])).to.deep.equal(['200', '200', '429']);
      expect((await outbox(server, 'known@example.com', 2)).filter((m) => m.text.includes('/#/reset?token='))).to.have.length.at.least(1);
      expect(await outbox(server, 'nobody-here@example.com', 0, 0)).to.have.length(0);
    });
  });

  describe('uploads per account', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ RATE_LIMIT_UPLOADS_PER_MINUTE: '3' });
    });
    after(async () => {
      await server.stop();
      expect(server.internalErrors).to.deep.equal([]);
    });

    it('refuses the upload past the per-minute count of the account with 429, and stores nothing; another key or a session of the account does not escape it', async () => {
      const account = await signUpWithKey(server, 'uploader@example.com');
      for (let i = 0; i < 3; i++) expect((await upload(server, account.apiKey, randomFileOf(100, 'image/png', i + 1))).status).to.equal(201);
      const seconds = expectRateLimited(await upload(server, account.apiKey, randomFileOf(100)));
      expect(seconds).to.be.within(1, 60);
      expect((await call(server.api, '/files', { apiKey: account.apiKey })).body.total).to.equal(3);
      const second = await call(server.api, '/auth/api-keys', { method: 'POST', token: account.accessToken, json: { name: 'second' } });
      expectRateLimited(await upload(server, second.body.key, randomFileOf(100)));
      expectRateLimited(
        await call(server.api, '/files', { method: 'POST', token: account.accessToken, headers: { 'content-type': 'image/png' }, body: randomFileOf(100) }),
      );
      // Resumable creations share the budget.
      expectRateLimited(
        await call(server.api, '/files/resumable', {
          method: 'POST',
          apiKey: second.body.key,
          headers: { 'tus-resumable': '1.0.0', 'upload-length': '10', 'upload-metadata': `filetype ${Buffer.from('image/png').toString('base64')}` },
        }),
      );
      expect((await call(server.api, '/files', { apiKey: account.apiKey })).body.total).to.equal(3);
      // Another account has its own budget.
      const other = await signUpWithKey(server, 'uploader-two@example.com');
      expect((await upload(server, other.apiKey, randomFileOf(100))).status).to.equal(201);
    });
  });

  describe('API keys and unfinished resumable uploads per account', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ API_KEYS_PER_ACCOUNT: '3', RESUMABLE_UPLOADS_PER_ACCOUNT: '4' });
    });
    after(async () => {
      await server.stop();
      expect(server.internalErrors).to.deep.equal([]);
    });

    it('refuses a key past API_KEYS_PER_ACCOUNT with 403 API_KEY_LIMIT_REACHED, of simultaneous creations too; a revoked key frees its place', async () => {
      const account = await signUpWithKey(server, 'keys@example.com');
      const create = (json: Record<string, unknown> = {}) =>
        call(server.api, '/auth/api-keys', { method: 'POST', token: account.accessToken, json: { name: 'more', ...json } });
      const burst = await Promise.all(Array.from({ length: 6 }, () => create()));
      expect(burst.filter((answer) => answer.status === 201)).to.have.length(2);
      for (const refused of burst.filter((answer) => answer.status !== 201)) {
        expectError(refused, 403, 'API_KEY_LIMIT_REACHED');
        expect(refused.body.details).to.deep.equal({ api_keys_per_account: 3 });
      }
      expect((await call(server.api, '/auth/api-keys', { token: account.accessToken })).body.total).to.equal(3);
      const revoked = burst.find((answer) => answer.status === 201)!;
      expect((await call(server.api, `/auth/api-keys/${revoked.body.id}`, { method: 'DELETE', token: account.accessToken })).status).to.equal(204);
      expect((await create()).status).to.equal(201);
      expectError(await create(), 403, 'API_KEY_LIMIT_REACHED');
    });

    it('refuses a resumable upload past RESUMABLE_UPLOADS_PER_ACCOUNT unfinished ones with 403 RESUMABLE_UPLOAD_LIMIT_REACHED, whatever the key; a terminated one frees its place', async () => {
      const account = await signUpWithKey(server, 'tus-cap@example.com');
      const second = (await call(server.api, '/auth/api-keys', { method: 'POST', token: account.accessToken, json: { name: 'second' } })).body.key as string;
      const create = (apiKey: string) =>
        call(server.api, '/files/resumable', {
          method: 'POST',
          apiKey,
          headers: { 'tus-resumable': '1.0.0', 'upload-length': '10', 'upload-metadata': `filetype ${Buffer.from('image/png').toString('base64')}` },
        });
      const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i % 2 === 0 ? account.apiKey : second)));
      expect(burst.filter((answer) => answer.status === 201)).to.have.length(4);
      for (const refused of burst.filter((answer) => answer.status !== 201)) expectError(refused, 403, 'RESUMABLE_UPLOAD_LIMIT_REACHED');
      const location = burst.find((answer) => answer.status === 201)!.headers.get('location')!;
      const path = new URL(location, server.api).pathname;
      expect((await call(server.api, path, { method: 'DELETE', apiKey: account.apiKey, headers: { 'tus-resumable': '1.0.0' } })).status).to.equal(204);
      expect((await create(second)).status).to.equal(201);
      expectError(await create(second), 403, 'RESUMABLE_UPLOAD_LIMIT_REACHED');
    });
  });
  describe('unknown API keys, behind one trusted proxy (TRUST_PROXY=1)', () => {
    let server: TestServer;
    let owner: { accessToken: string; apiKey: string };
    const guess = (n: number) => `hgr_${String(n).padStart(32, '0')}`;
    const files = (apiKey: string, from: string) => call(server.api, '/files', { apiKey, headers: { 'x-forwarded-for': from } });
    before(async () => {
      server = await startTestServer({ TRUST_PROXY: '1', RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES: '3' });
      owner = await signUpWithKey(server, 'key-owner@example.com');
    });
    after(async () => {
      await server.stop();
      expect(server.internalErrors).to.deep.equal([]);
    });

    it('answers 401 for the free unknown keys, then 429 with Retry-After for every key from that address, the right one too', async () => {
      const guesser = '203.0.113.50';
      for (let n = 0; n < 3; n++) expect((await files(guess(n), guesser)).status).to.equal(401);
      expectRateLimited(await files(guess(3), guesser));
      expectRateLimited(await files(owner.apiKey, guesser));
      expectRateLimited(await call(server.api, '/files', { headers: { authorization: `Bearer ${guess(4)}`, 'x-forwarded-for': guesser } }));
    });

    it('does not slow a key used from another address, nor logins or session tokens from the guessing address', async () => {
      expectRateLimited(await files(guess(5), '203.0.113.50'));
      expect((await files(owner.apiKey, '198.51.100.9')).status).to.equal(200);
      expect((await call(server.api, '/files', { token: owner.accessToken, headers: { 'x-forwarded-for': '203.0.113.50' } })).status).to.equal(200);
      expect((await login(server, 'key-owner@example.com', 'correct horse', '203.0.113.50')).status).to.equal(200);
    });

    it('answers at most the free failures of 30 simultaneous unknown keys as unknown, the rest 429', async () => {
      const results = await Promise.all(Array.from({ length: 30 }, (_, n) => files(guess(100 + n), '203.0.113.77')));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((status) => status === 401).length).to.be.within(3, 4);
      expect(statuses.filter((status) => status === 429).length).to.equal(30 - statuses.filter((status) => status === 401).length);
    });

    it('lets the address use its right key again once the delay has run out', async () => {
      const guesser = '203.0.113.90';
      for (let n = 0; n < 3; n++) expect((await files(guess(200 + n), guesser)).status).to.equal(401);
      const seconds = expectRateLimited(await files(owner.apiKey, guesser));
      expect(seconds).to.equal(1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await files(owner.apiKey, guesser)).status).to.equal(200);
    });
  });
});
