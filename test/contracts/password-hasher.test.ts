import { expect } from 'chai';
import { Argon2PasswordHasher } from '../../adapters/crypto/argon2-password-hasher.js';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.js';
import type { PasswordHasher } from '../../core/index.js';

/** The parts of a PHC string `$<algorithm>[$v=…]$<k=v,…>$salt$hash` (parameters in any order). */
function phc(hash: string): Record<string, string> {
  const match = /^\$(argon2id|scrypt)(?:\$v=(\d+))?\$([a-z=0-9,]+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.exec(hash);
  expect(match, hash).to.not.equal(null);
  const parameters = Object.fromEntries(match![3].split(',').map((pair) => pair.split('=')));
  return { algorithm: match![1], ...(match![2] ? { version: match![2] } : {}), ...parameters };
}

/** What every PasswordHasher does, whatever its algorithm. */
function describePasswordHasherContract(name: string, hasher: PasswordHasher, foreignHash: () => Promise<string>) {
  describe(`PasswordHasher contract: ${name}`, () => {
    it('verifies the right password', async () => {
      const hash = await hasher.hash('correct horse battery staple');
      expect(await hasher.verify({ hash, password: 'correct horse battery staple' })).to.equal(true);
    });

    it('refuses a wrong password', async () => {
      const hash = await hasher.hash('correct horse battery staple');
      expect(await hasher.verify({ hash, password: 'correct horse battery stapler' })).to.equal(false);
      expect(await hasher.verify({ hash, password: '' })).to.equal(false);
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
        valid.slice(0, valid.indexOf('$', 1) + 1),
        valid.slice(0, valid.lastIndexOf('$') + 1),
        valid.slice(0, -5),
        valid.replace(/^\$[a-z0-9]+\$/, '$argon2xx$'),
        '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy',
        await foreignHash(),
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
}

// Low costs keep the suite fast; production uses the OWASP defaults.
const argon2 = new Argon2PasswordHasher({ memoryCost: 1024, timeCost: 1 });
const scrypt = new ScryptPasswordHasher({ logN: 10, parallelism: 1 });

describePasswordHasherContract('Argon2PasswordHasher', argon2, () => scrypt.hash('pw'));
describePasswordHasherContract('ScryptPasswordHasher', scrypt, () => argon2.hash('pw'));

describe('Argon2PasswordHasher', () => {
  it('produces argon2id PHC strings with the configured costs', async () => {
    expect(phc(await argon2.hash('pw'))).to.deep.equal({ algorithm: 'argon2id', version: '19', m: '1024', t: '1', p: '1' });
  });

  it('uses the OWASP costs by default (19 MiB, 2 passes, 1 lane)', async () => {
    expect(phc(await new Argon2PasswordHasher().hash('pw'))).to.deep.equal({ algorithm: 'argon2id', version: '19', m: '19456', t: '2', p: '1' });
  });
});

describe('ScryptPasswordHasher', () => {
  it('produces scrypt PHC strings with the configured costs', async () => {
    expect(phc(await scrypt.hash('pw'))).to.deep.equal({ algorithm: 'scrypt', ln: '10', r: '8', p: '1' });
  });

  it('uses an OWASP minimum by default (N = 2^15, r = 8, p = 3), and verifies it', async function () {
    // Two hashes at full cost in JavaScript: a few seconds alone, many more beside the other test pass on two cores.
    this.timeout(120_000);
    const hasher = new ScryptPasswordHasher();
    const hash = await hasher.hash('pw');
    expect(phc(hash)).to.deep.equal({ algorithm: 'scrypt', ln: '15', r: '8', p: '3' });
    expect(await hasher.verify({ hash, password: 'pw' })).to.equal(true);
  });

  it('verifies hashes made with other costs, from the costs the hash carries', async () => {
    const hash = await new ScryptPasswordHasher({ logN: 11, blockSize: 4, parallelism: 2 }).hash('pw');
    expect(await scrypt.verify({ hash, password: 'pw' })).to.equal(true);
    expect(await scrypt.verify({ hash, password: 'pW' })).to.equal(false);
  });

  it('refuses stored costs beyond its bounds instead of spending the memory', async () => {
    const hash = await scrypt.hash('pw');
    expect(await scrypt.verify({ hash: hash.replace('ln=10', 'ln=30'), password: 'pw' })).to.equal(false);
  });

  it('refuses to be built with costs out of range', () => {
    expect(() => new ScryptPasswordHasher({ logN: 0 })).to.throw(/logN/);
    expect(() => new ScryptPasswordHasher({ parallelism: 1.5 })).to.throw(/scrypt costs/);
  });
});
