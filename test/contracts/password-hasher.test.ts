import { expect } from 'chai';
import { Argon2PasswordHasher } from '../../adapters/crypto/argon2-password-hasher.js';

/** The algorithm and parameters of a PHC string `$argon2id$v=19$m=…,t=…,p=…$salt$hash` (parameters in any order). */
function phc(hash: string): Record<string, string> {
  const match = /^\$(argon2id)\$v=(\d+)\$([a-z=0-9,]+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.exec(hash);
  expect(match, hash).to.not.equal(null);
  const parameters = Object.fromEntries(match![3].split(',').map((pair) => pair.split('=')));
  return { algorithm: match![1], version: match![2], ...parameters };
}

describe('Argon2PasswordHasher', () => {
  // Low costs keep the suite fast; production uses the OWASP defaults.
  const hasher = new Argon2PasswordHasher({ memoryCost: 1024, timeCost: 1 });

  it('verifies the right password', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    expect(await hasher.verify({ hash, password: 'correct horse battery staple' })).to.equal(true);
  });

  it('refuses a wrong password', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    expect(await hasher.verify({ hash, password: 'correct horse battery stapler' })).to.equal(false);
    expect(await hasher.verify({ hash, password: '' })).to.equal(false);
  });

  it('produces argon2id PHC strings with the configured costs', async () => {
    expect(phc(await hasher.hash('pw'))).to.deep.equal({ algorithm: 'argon2id', version: '19', m: '1024', t: '1', p: '1' });
  });

  it('uses the OWASP costs by default (19 MiB, 2 passes, 1 lane)', async () => {
    expect(phc(await new Argon2PasswordHasher().hash('pw'))).to.deep.equal({ algorithm: 'argon2id', version: '19', m: '19456', t: '2', p: '1' });
  });

  it('salts every hash: the same password hashes differently twice', async () => {
    const [first, second] = await Promise.all([hasher.hash('same password'), hasher.hash('same password')]);
    expect(first).to.not.equal(second);
    expect(await hasher.verify({ hash: first, password: 'same password' })).to.equal(true);
    expect(await hasher.verify({ hash: second, password: 'same password' })).to.equal(true);
  });

  it('answers false, without throwing, for malformed or foreign hashes', async () => {
    const valid = await hasher.hash('pw');
    const malformed = [
      '',
      'not a hash',
      '$argon2id$',
      '$argon2id$v=19$m=1024,t=1,p=1$',
      valid.slice(0, -5),
      valid.replace('$argon2id$', '$argon2xx$'),
      '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy',
      'pw',
    ];
    for (const hash of malformed) expect(await hasher.verify({ hash, password: 'pw' }), hash).to.equal(false);
  });

  it('handles non-ASCII passwords by their UTF-8 bytes', async () => {
    const hash = await hasher.hash('pässwörd ✓ 密码');
    expect(await hasher.verify({ hash, password: 'pässwörd ✓ 密码' })).to.equal(true);
    expect(await hasher.verify({ hash, password: 'passwörd ✓ 密码' })).to.equal(false);
  });
});
