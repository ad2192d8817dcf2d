import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../core/accounts/secret-box.js';

const VERSION = 'v1';

/**
 * {@link SecretBox} with AES-256-GCM (NIST SP 800-38D) from node:crypto: a random 96-bit nonce per
 * seal, the 128-bit tag checked on open. The AES key is derived with HKDF-SHA-256 (RFC 5869) from
 * `keyMaterial` and `purpose`, so one kept secret can serve several purposes without reusing keys.
 * Sealed form: `v1.<nonce>.<ciphertext>.<tag>`, each part base64url.
 */
export class NodeSecretBox implements SecretBox {
  private readonly key: Buffer;

  /**
   * @param options.keyMaterial at least 32 bytes of secret key material
   * @param options.purpose HKDF `info`, e.g. `hangar totp secrets`
   * @throws Error when the key material is shorter than 32 bytes
   */
  constructor(options: { keyMaterial: Uint8Array; purpose: string }) {
    if (options.keyMaterial.byteLength < 32) throw new Error('The secret box key material must be at least 32 bytes long.');
    this.key = Buffer.from(hkdfSync('sha256', options.keyMaterial, new Uint8Array(0), options.purpose, 32));
  }

  seal(plaintext: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, nonce, body, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  open(sealed: string): string | undefined {
    const [version, nonce, body, tag, ...rest] = sealed.split('.');
    if (version !== VERSION || tag === undefined || rest.length > 0) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
