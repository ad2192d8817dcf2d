import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { NodeHmacUrlSigner } from '../../adapters/crypto/node-hmac-url-signer.js';

describe('NodeHmacUrlSigner', () => {
  const signer = new NodeHmacUrlSigner();

  it('signs with HMAC-SHA-256 under the base64url-decoded key (RFC 2104), as base64url without padding', () => {
    const key = signer.newKey();
    expect(key).to.match(/^[A-Za-z0-9_-]{43}$/);
    const signature = signer.sign({ key, payload: 'file\n123' });
    expect(signature).to.equal(createHmac('sha256', Buffer.from(key, 'base64url')).update('file\n123').digest('base64url'));
    expect(signer.sign({ key, payload: 'file\n123' })).to.equal(signature);
  });

  it('verifies its own signature and refuses another payload, another key, a changed or malformed signature', () => {
    const key = signer.newKey();
    const signature = signer.sign({ key, payload: 'a' });
    expect(signer.verify({ key, payload: 'a', signature })).to.equal(true);
    expect(signer.verify({ key, payload: 'b', signature })).to.equal(false);
    expect(signer.verify({ key: signer.newKey(), payload: 'a', signature })).to.equal(false);
    expect(signer.verify({ key, payload: 'a', signature: (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1) })).to.equal(false);
    for (const bad of ['', 'short', `${signature}=`, `${signature}A`, signature.slice(0, 42) + '!'])
      expect(signer.verify({ key, payload: 'a', signature: bad })).to.equal(false);
  });

  it('accepts only the canonical spelling: the three other last characters that decode to the same bytes are refused', () => {
    const key = signer.newKey();
    const signature = signer.sign({ key, payload: 'a' });
    // The last of 43 base64url characters carries 4 digest bits and 2 unused ones: its group of four shares the 4 bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature[42]);
    expect(last % 4, 'the issued signature has its unused bits at zero').to.equal(0);
    for (const neighbour of [1, 2, 3].map((offset) => alphabet[last + offset])) {
      const variant = signature.slice(0, 42) + neighbour;
      expect(Buffer.from(variant, 'base64url').equals(Buffer.from(signature, 'base64url')), 'decodes to the same digest').to.equal(true);
      expect(signer.verify({ key, payload: 'a', signature: variant }), variant).to.equal(false);
    }
  });

  it('makes a new random key every time', () => {
    expect(new Set(Array.from({ length: 100 }, () => signer.newKey())).size).to.equal(100);
  });
});
