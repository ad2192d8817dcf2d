import { hash, timingSafeEqual } from 'node:crypto';
import type { SecretDigest } from '../../core/shared/secret-digest.js';

/** {@link SecretDigest} with `node:crypto`: SHA-256 (FIPS 180-4) and `timingSafeEqual`. */
export class NodeSecretDigest implements SecretDigest {
  /**
   * @returns SHA-256 of the UTF-8 bytes of `secret`, 64 lower-case hex characters. One-shot
   * `crypto.hash` (Node ≥ 20.12): about half the cost of a Hash object, on every authenticated
   * request.
   */
  sha256(secret: string): string {
    return hash('sha256', secret, 'hex');
  }

  /** Compares the UTF-8 bytes in constant time; false at once when their lengths differ (a length is not a secret here). */
  equals(a: string, b: string): boolean {
    const left = Buffer.from(a, 'utf8');
    const right = Buffer.from(b, 'utf8');
    return left.length === right.length && timingSafeEqual(left, right);
  }
}
