import { expect } from 'chai';
import { JoseTokenSigner } from '../../adapters/crypto/jose-token-signer.js';
import { type ApiKeyRepository, requireSession } from '../../core/index.js';
import { createMemoryHangar, expectDomainError, START, TEST_SECRET } from '../support/memory-hangar.js';

/** Counts `touch` calls, the only write authentication makes. */
class TouchCountingApiKeyRepository implements ApiKeyRepository {
  touches = 0;
  constructor(private readonly inner: ApiKeyRepository) {}
  create(...args: Parameters<ApiKeyRepository['create']>) {
    return this.inner.create(...args);
  }
  createWithin(...args: Parameters<ApiKeyRepository['createWithin']>) {
    return this.inner.createWithin(...args);
  }
  findByHash(...args: Parameters<ApiKeyRepository['findByHash']>) {
    return this.inner.findByHash(...args);
  }
  findById(...args: Parameters<ApiKeyRepository['findById']>) {
    return this.inner.findById(...args);
  }
  list(...args: Parameters<ApiKeyRepository['list']>) {
    return this.inner.list(...args);
  }
  delete(...args: Parameters<ApiKeyRepository['delete']>) {
    return this.inner.delete(...args);
  }
  deleteAllForUser(...args: Parameters<ApiKeyRepository['deleteAllForUser']>) {
    return this.inner.deleteAllForUser(...args);
  }
  touch(...args: Parameters<ApiKeyRepository['touch']>) {
    this.touches++;
    return this.inner.touch(...args);
  }
}

async function withAlice(replacePorts?: Parameters<typeof createMemoryHangar>[1]) {
  const world = createMemoryHangar({}, replacePorts);
  const alice = await world.registerConfirmed('alice@example.com');
  const principal = await world.hangar.authenticate.execute({ authorization: `Bearer ${alice.session.accessToken}` });
  if (principal.kind !== 'session') throw new Error('expected a session principal');
  const { apiKey, key } = await world.hangar.createApiKey.execute({ userId: alice.userId, name: 'ci' });
  return { ...world, alice, sessionId: principal.sessionId, apiKey, key };
}

describe('Authenticate', () => {
  describe('session tokens (JWT)', () => {
    it('accepts Authorization: Bearer <JWT> and names the user and session', async () => {
      const { hangar, alice, sessionId } = await withAlice();
      const principal = await hangar.authenticate.execute({ authorization: `Bearer ${alice.session.accessToken}` });
      expect(principal).to.deep.equal({ kind: 'session', userId: alice.userId, sessionId, secondFactor: false });
    });

    it('accepts the scheme in any case and extra spaces around the token', async () => {
      const { hangar, alice } = await withAlice();
      await hangar.authenticate.execute({ authorization: `bearer ${alice.session.accessToken}` });
      await hangar.authenticate.execute({ authorization: `BEARER   ${alice.session.accessToken} ` });
    });

    it('accepts a JWT until its expiry and refuses it 3601 s after issue with UNAUTHORIZED', async () => {
      const { hangar, alice, clock } = await withAlice();
      clock.advance(3599_000);
      await hangar.authenticate.execute({ authorization: `Bearer ${alice.session.accessToken}` });
      clock.set(new Date(START.getTime() + 3601_000));
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${alice.session.accessToken}` }), 'UNAUTHORIZED');
    });

    it('refuses a JWT signed with another secret', async () => {
      const { hangar, alice, sessionId } = await withAlice();
      const forger = new JoseTokenSigner({ secret: new Uint8Array(32).fill(7) });
      const { token } = await forger.sign({ claims: { userId: alice.userId, sessionId }, now: START, ttlSeconds: 3600 });
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${token}` }), 'UNAUTHORIZED');
    });

    it('refuses a JWT whose payload was altered', async () => {
      const { hangar, alice } = await withAlice();
      const [header, payload, signature] = alice.session.accessToken.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, exp: Number(claims.exp) + 86_400 })).toString('base64url');
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${header}.${forged}.${signature}` }), 'UNAUTHORIZED');
    });

    it('refuses an unsigned JWT (alg none)', async () => {
      const { hangar, alice, sessionId } = await withAlice();
      const enc = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const exp = START.getTime() / 1000 + 3600;
      const token = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub: alice.userId, sid: sessionId, iat: START.getTime() / 1000, exp })}.`;
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${token}` }), 'UNAUTHORIZED');
    });

    it('refuses a valid JWT whose session does not exist', async () => {
      const { hangar, alice } = await withAlice();
      const signer = new JoseTokenSigner({ secret: TEST_SECRET });
      const { token } = await signer.sign({
        claims: { userId: alice.userId, sessionId: '00000000-0000-4000-8000-000000000000' },
        now: START,
        ttlSeconds: 3600,
      });
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${token}` }), 'UNAUTHORIZED');
    });

    it('refuses a valid JWT that names another user than its session’s', async () => {
      const world = await withAlice();
      const bob = await world.registerConfirmed('bob@example.com');
      const signer = new JoseTokenSigner({ secret: TEST_SECRET });
      const { token } = await signer.sign({ claims: { userId: bob.userId, sessionId: world.sessionId }, now: START, ttlSeconds: 3600 });
      await expectDomainError(world.hangar.authenticate.execute({ authorization: `Bearer ${token}` }), 'UNAUTHORIZED');
    });
  });

  describe('API keys', () => {
    it('accepts Authorization: Bearer <API key>', async () => {
      const { hangar, alice, apiKey, key } = await withAlice();
      expect(await hangar.authenticate.execute({ authorization: `Bearer ${key}` })).to.deep.equal({
        kind: 'api_key',
        userId: alice.userId,
        apiKeyId: apiKey.id,
        scopes: ['files:read', 'files:write', 'files:delete', 'account:read', 'webhooks:manage'],
      });
    });

    it('accepts X-Api-Key: <API key>', async () => {
      const { hangar, alice, apiKey, key } = await withAlice();
      expect(await hangar.authenticate.execute({ apiKey: key })).to.deep.equal({
        kind: 'api_key',
        userId: alice.userId,
        apiKeyId: apiKey.id,
        scopes: ['files:read', 'files:write', 'files:delete', 'account:read', 'webhooks:manage'],
      });
    });

    it('refuses a well-formed but unknown key with UNAUTHORIZED', async () => {
      const { hangar } = await withAlice();
      const unknown = `hgr_${'A'.repeat(32)}`;
      await expectDomainError(hangar.authenticate.execute({ apiKey: unknown }), 'UNAUTHORIZED');
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${unknown}` }), 'UNAUTHORIZED');
    });

    it('refuses a key with one character changed', async () => {
      const { hangar, key } = await withAlice();
      const last = key.at(-1) === 'a' ? 'b' : 'a';
      await expectDomainError(hangar.authenticate.execute({ apiKey: key.slice(0, -1) + last }), 'UNAUTHORIZED');
    });

    it('refuses a revoked key with UNAUTHORIZED', async () => {
      const { hangar, alice, apiKey, key } = await withAlice();
      await hangar.revokeApiKey.execute({ userId: alice.userId, id: apiKey.id });
      await expectDomainError(hangar.authenticate.execute({ apiKey: key }), 'UNAUTHORIZED');
      await expectDomainError(hangar.authenticate.execute({ authorization: `Bearer ${key}` }), 'UNAUTHORIZED');
    });

    it('refuses a JWT sent as X-Api-Key', async () => {
      const { hangar, alice } = await withAlice();
      await expectDomainError(hangar.authenticate.execute({ apiKey: alice.session.accessToken }), 'UNAUTHORIZED');
    });

    it('records last_used_at at the first use', async () => {
      const { hangar, repos, alice, apiKey, key, clock } = await withAlice();
      expect((await repos.apiKeys.findByHash(apiKey.keyHash))?.lastUsedAt).to.equal(null);
      clock.advance(5000);
      await hangar.authenticate.execute({ apiKey: key });
      const listed = await hangar.listApiKeys.execute({ userId: alice.userId, page: 1, limit: 30 });
      expect(listed.items[0].lastUsedAt?.getTime()).to.equal(START.getTime() + 5000);
    });

    it('updates last_used_at at most once a minute', async () => {
      const { hangar, repos, apiKey, key, clock } = await withAlice();
      const lastUsed = async () => (await repos.apiKeys.findByHash(apiKey.keyHash))?.lastUsedAt?.getTime();
      await hangar.authenticate.execute({ apiKey: key });
      expect(await lastUsed()).to.equal(START.getTime());

      clock.advance(30_000);
      await hangar.authenticate.execute({ authorization: `Bearer ${key}` });
      expect(await lastUsed()).to.equal(START.getTime());

      clock.advance(29_999);
      await hangar.authenticate.execute({ apiKey: key });
      expect(await lastUsed()).to.equal(START.getTime());

      clock.advance(1);
      await hangar.authenticate.execute({ apiKey: key });
      expect(await lastUsed()).to.equal(START.getTime() + 60_000);
    });

    it('does not write to the repository while last_used_at is less than a minute old', async () => {
      let apiKeys!: TouchCountingApiKeyRepository;
      const { hangar, key, clock } = await withAlice((ports) => ({ apiKeys: (apiKeys = new TouchCountingApiKeyRepository(ports.apiKeys)) }));
      await hangar.authenticate.execute({ apiKey: key });
      expect(apiKeys.touches).to.equal(1);
      for (let i = 0; i < 5; i++) {
        clock.advance(10_000);
        await hangar.authenticate.execute({ apiKey: key });
      }
      expect(apiKeys.touches).to.equal(1);
      clock.advance(10_000);
      await hangar.authenticate.execute({ apiKey: key });
      expect(apiKeys.touches).to.equal(2);
    });
  });

  describe('malformed or missing credentials', () => {
    for (const [label, credentials] of [
      ['no header at all', {}],
      ['an empty Authorization header', { authorization: '' }],
      ['Basic credentials', { authorization: 'Basic YWxpY2U6cHc=' }],
      ['Bearer without a token', { authorization: 'Bearer' }],
      ['Bearer with two tokens', { authorization: 'Bearer abc def' }],
      ['Bearer with garbage', { authorization: 'Bearer not-a-jwt' }],
      ['an empty X-Api-Key', { apiKey: '' }],
      ['an X-Api-Key without the hgr_ marker', { apiKey: 'A'.repeat(36) }],
      ['an X-Api-Key one character short', { apiKey: `hgr_${'A'.repeat(31)}` }],
      ['an X-Api-Key with a non-base62 character', { apiKey: `hgr_${'A'.repeat(31)}-` }],
    ] as const) {
      it(`refuses ${label} with UNAUTHORIZED`, async () => {
        const { hangar } = await withAlice();
        await expectDomainError(hangar.authenticate.execute(credentials), 'UNAUTHORIZED');
      });
    }
  });

  describe('requireSession', () => {
    it('refuses an API key principal with JWT_REQUIRED', async () => {
      const { hangar, key } = await withAlice();
      const principal = await hangar.authenticate.execute({ apiKey: key });
      expect(() => requireSession(principal))
        .to.throw()
        .with.property('code', 'JWT_REQUIRED');
    });

    it('passes a session principal through', async () => {
      const { hangar, alice } = await withAlice();
      const principal = await hangar.authenticate.execute({ authorization: `Bearer ${alice.session.accessToken}` });
      expect(requireSession(principal)).to.equal(principal);
    });
  });
});
