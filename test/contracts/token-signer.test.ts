import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { JoseTokenSigner } from '../../adapters/crypto/jose-token-signer.js';

const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
const otherSecret = new TextEncoder().encode('fedcba9876543210fedcba9876543210');
const now = new Date('2026-01-01T00:00:00.000Z');
const claims = { userId: '0f8fad5b-d9cb-469f-a165-70867728950e', sessionId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' };

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('JoseTokenSigner', () => {
  const signer = new JoseTokenSigner({ secret });

  it('round-trips the claims and reports the expiry in Unix seconds', async () => {
    const { token, expiresAt } = await signer.sign({ claims, now, ttlSeconds: 900 });
    expect(expiresAt).to.equal(now.getTime() / 1000 + 900);
    expect(await signer.verify({ token, now })).to.deep.equal(claims);
  });

  it('writes sub, sid, iat, exp, iss and aud in an HS256 JWT', async () => {
    const { token } = await signer.sign({ claims, now, ttlSeconds: 900 });
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'))).to.deep.equal({ alg: 'HS256', typ: 'JWT' });
    expect(payloadOf(token)).to.deep.equal({
      sid: claims.sessionId,
      sub: claims.userId,
      iss: 'hangar',
      aud: 'hangar',
      iat: 1767225600,
      exp: 1767225600 + 900,
    });
  });

  it('accepts a token until just before its expiry and refuses it from then on', async () => {
    const { token } = await signer.sign({ claims, now, ttlSeconds: 900 });
    expect(await signer.verify({ token, now: new Date(now.getTime() + 899_999) })).to.deep.equal(claims);
    expect(await signer.verify({ token, now: new Date(now.getTime() + 900_000) })).to.equal(undefined);
    expect(await signer.verify({ token, now: new Date(now.getTime() + 86_400_000) })).to.equal(undefined);
  });

  it('refuses a token signed with another secret', async () => {
    const { token } = await new JoseTokenSigner({ secret: otherSecret }).sign({ claims, now, ttlSeconds: 900 });
    expect(await signer.verify({ token, now })).to.equal(undefined);
  });

  it('refuses a token from another issuer', async () => {
    const { token } = await new JoseTokenSigner({ secret, issuer: 'someone-else' }).sign({ claims, now, ttlSeconds: 900 });
    expect(await signer.verify({ token, now })).to.equal(undefined);
  });

  it('refuses an unsigned token (alg: none)', async () => {
    const { token } = await signer.sign({ claims, now, ttlSeconds: 900 });
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${token.split('.')[1]}.`;
    expect(await signer.verify({ token: unsigned, now })).to.equal(undefined);
  });

  it('refuses an HS512 token made with the same secret (algorithm pinned to HS256)', async () => {
    const token = await new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject(claims.userId)
      .setIssuer('hangar')
      .setAudience('hangar')
      .setIssuedAt(now)
      .setExpirationTime(new Date(now.getTime() + 900_000))
      .sign(secret);
    expect(await signer.verify({ token, now })).to.equal(undefined);
  });

  it('refuses a validly signed token that lacks the session id', async () => {
    const header = base64url({ alg: 'HS256', typ: 'JWT' });
    const payload = base64url({ sub: claims.userId, iss: 'hangar', aud: 'hangar', iat: 1767225600, exp: 1767225600 + 900 });
    const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
    expect(await signer.verify({ token: `${header}.${payload}.${signature}`, now })).to.equal(undefined);
  });

  it('refuses a tampered payload', async () => {
    const { token } = await signer.sign({ claims, now, ttlSeconds: 900 });
    const [header, , signature] = token.split('.');
    const forged = base64url({ ...payloadOf(token), sub: 'someone-else' });
    expect(await signer.verify({ token: `${header}.${forged}.${signature}`, now })).to.equal(undefined);
  });

  it('answers undefined, without throwing, for garbage', async () => {
    for (const token of ['', 'abc', 'a.b.c', '...', 'eyJhbGciOiJIUzI1NiJ9..']) {
      expect(await signer.verify({ token, now }), token).to.equal(undefined);
    }
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => new JoseTokenSigner({ secret: new Uint8Array(31) })).to.throw(/32 bytes/);
    expect(() => new JoseTokenSigner({ secret: new Uint8Array(32) })).to.not.throw();
  });

  it('is not affected by later changes to the secret array it was given', async () => {
    const key = Uint8Array.from(secret);
    const own = new JoseTokenSigner({ secret: key });
    const { token } = await own.sign({ claims, now, ttlSeconds: 60 });
    key.fill(0);
    expect(await own.verify({ token, now })).to.deep.equal(claims);
  });
});
