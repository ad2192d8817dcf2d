import { expect } from 'chai';
import { API_KEY_SCOPES, authorize, type Principal } from '../../core/index.js';
import { createMemoryHangar, expectDomainError, START } from '../support/memory-hangar.js';

const DAY_MS = 24 * 60 * 60 * 1000;

async function withAlice(overrides: Parameters<typeof createMemoryHangar>[0] = {}) {
  const world = createMemoryHangar(overrides);
  const alice = await world.registerConfirmed('alice@example.com');
  return { ...world, alice };
}

describe('API key scopes and expiry', () => {
  describe('CreateApiKey', () => {
    it('gives a key every scope and no expiry when none are asked for', async () => {
      const { hangar, alice } = await withAlice();
      const { apiKey, key } = await hangar.createApiKey.execute({ userId: alice.userId });
      expect(apiKey.scopes).to.deep.equal(['files:read', 'files:write', 'files:delete', 'account:read', 'webhooks:manage']);
      expect(apiKey.expiresAt).to.equal(null);
      const principal = await hangar.authenticate.execute({ apiKey: key });
      expect(principal).to.deep.include({ scopes: [...API_KEY_SCOPES] });
    });

    it('keeps the scopes asked for, each once, in the catalogue order', async () => {
      const { hangar, alice } = await withAlice();
      const { apiKey, key } = await hangar.createApiKey.execute({ userId: alice.userId, scopes: ['account:read', 'files:read', 'files:read'] });
      expect(apiKey.scopes).to.deep.equal(['files:read', 'account:read']);
      expect(await hangar.authenticate.execute({ apiKey: key })).to.deep.include({ scopes: ['files:read', 'account:read'] });
    });

    it('refuses an unknown scope and an empty list, storing nothing', async () => {
      const { hangar, alice } = await withAlice();
      const unknown = await expectDomainError(
        hangar.createApiKey.execute({ userId: alice.userId, scopes: ['files:read', 'files:admin'] }),
        'VALIDATION_FAILED',
      );
      expect(unknown.message).to.include('"files:admin"');
      // The admin scope is known, but only an administrator may hold it (docs/admin.md).
      await expectDomainError(hangar.createApiKey.execute({ userId: alice.userId, scopes: ['files:read', 'admin'] }), 'ADMIN_REQUIRED');
      await expectDomainError(hangar.createApiKey.execute({ userId: alice.userId, scopes: [] }), 'VALIDATION_FAILED');
      expect((await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 10 })).total).to.equal(0);
    });

    it('accepts an expiry up to 366 days away and refuses one in the past, now, further, or not a date', async () => {
      const { hangar, alice } = await withAlice();
      const latest = new Date(START.getTime() + 366 * DAY_MS);
      expect((await hangar.createApiKey.execute({ userId: alice.userId, expiresAt: latest })).apiKey.expiresAt).to.deep.equal(latest);
      for (const expiresAt of [new Date(START.getTime() - 1), START, new Date(latest.getTime() + 1), new Date(Number.NaN)]) {
        await expectDomainError(hangar.createApiKey.execute({ userId: alice.userId, expiresAt }), 'VALIDATION_FAILED');
      }
      expect((await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 10 })).total).to.equal(1);
    });
  });

  describe('expiry', () => {
    it('accepts a key until the instant before expires_at, then refuses it with API_KEY_EXPIRED and lists it as expired', async () => {
      const { hangar, alice, clock } = await withAlice();
      const expiresAt = new Date(START.getTime() + 60_000);
      const { key } = await hangar.createApiKey.execute({ userId: alice.userId, expiresAt });
      clock.set(new Date(expiresAt.getTime() - 1));
      expect(await hangar.authenticate.execute({ apiKey: key })).to.include({ kind: 'api_key' });
      expect((await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 10 })).items[0].expired).to.equal(false);
      clock.set(expiresAt);
      await expectDomainError(hangar.authenticate.execute({ apiKey: key }), 'API_KEY_EXPIRED');
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${key}` }), 'API_KEY_EXPIRED');
      expect((await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 10 })).items[0].expired).to.equal(true);
    });
  });

  describe('authorize', () => {
    const session: Principal = { kind: 'session', userId: 'u', sessionId: 's', secondFactor: false };
    const reader: Principal = { kind: 'api_key', userId: 'u', apiKeyId: 'k', scopes: ['files:read'] };

    it('lets a session token do everything', () => {
      authorize(session, API_KEY_SCOPES);
    });

    it('lets a key act within its scopes and refuses outside them, naming the missing scopes', async () => {
      authorize(reader, ['files:read']);
      authorize(reader, []);
      const refused = await expectDomainError(
        Promise.resolve().then(() => authorize(reader, ['files:read', 'files:write', 'files:delete'])),
        'INSUFFICIENT_SCOPE',
      );
      expect(refused.message).to.include('files:write, files:delete');
      expect(refused.details).to.deep.equal({
        required_scopes: ['files:read', 'files:write', 'files:delete'],
        missing_scopes: ['files:write', 'files:delete'],
      });
    });
  });

  describe('unknown keys from one address', () => {
    const unknownKey = (n: number) => `hgr_${String(n).padStart(32, '0')}`;

    it('are answered UNAUTHORIZED while free, then RATE_LIMITED for every key from that address, known or not; other addresses are not slowed', async () => {
      const { hangar, alice } = await withAlice({ rateLimits: { loginFreeFailuresPerClient: 3 } });
      const { key } = await hangar.createApiKey.execute({ userId: alice.userId });
      const guesser = '203.0.113.7';
      for (let n = 0; n < 3; n++) await expectDomainError(hangar.authenticate.execute({ apiKey: unknownKey(n), client: guesser }), 'UNAUTHORIZED');
      const limited = await expectDomainError(hangar.authenticate.execute({ apiKey: unknownKey(9), client: guesser }), 'RATE_LIMITED');
      expect(limited.details).to.deep.equal({ retry_after_seconds: 1 });
      await expectDomainError(hangar.authenticate.execute({ apiKey: key, client: guesser }), 'RATE_LIMITED');
      await expectDomainError(hangar.authenticate.execute({ apiKey: 'hgr_short', client: guesser }), 'RATE_LIMITED');
      expect(await hangar.authenticate.execute({ apiKey: key, client: '198.51.100.1' })).to.include({ kind: 'api_key' });
      await expectDomainError(hangar.authenticate.execute({ apiKey: unknownKey(10), client: '198.51.100.1' }), 'UNAUTHORIZED');
    });

    it('do not count a known key, and do not touch the login limits of the address', async () => {
      const { hangar, alice } = await withAlice({ rateLimits: { loginFreeFailuresPerClient: 2 } });
      const { key } = await hangar.createApiKey.execute({ userId: alice.userId });
      const client = '203.0.113.8';
      for (let n = 0; n < 5; n++) expect(await hangar.authenticate.execute({ apiKey: key, client })).to.include({ kind: 'api_key' });
      await expectDomainError(hangar.authenticate.execute({ apiKey: unknownKey(1), client }), 'UNAUTHORIZED');
      await expectDomainError(hangar.authenticate.execute({ apiKey: unknownKey(2), client }), 'UNAUTHORIZED');
      await expectDomainError(hangar.authenticate.execute({ apiKey: key, client }), 'RATE_LIMITED');
      const login = await hangar.logIn.execute({ email: 'alice@example.com', password: 'correct horse battery', client });
      expect(login.user.id).to.equal(alice.userId);
    });
  });
});
