import { randomBytes, randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../core/shared/ids.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Largest multiple of 62 that fits a byte: bytes at or above it are discarded, so `byte % 62` is uniform. */
const UNBIASED_LIMIT = 62 * 4;

/**
 * {@link IdGenerator} on Node's CSPRNG (`node:crypto`). `base62` draws by rejection sampling: each
 * random byte below 248 gives one character (`byte % 62`), others are dropped, so every character
 * is equally likely (about 5.95 bits each; 22 characters give 130 bits).
 */
export class NodeIdGenerator implements IdGenerator {
  /** A random version 4 UUID (RFC 9562 §5.4), lower-case. */
  uuid(): string {
    return randomUUID();
  }

  /** @throws Error when `length` is not a non-negative integer */
  base62(length: number): string {
    if (!Number.isSafeInteger(length) || length < 0) throw new Error(`Invalid base62 length ${String(length)}.`);
    let out = '';
    while (out.length < length) {
      // 248/256 of the bytes are kept: ask for a little more than needed to usually finish in one draw.
      const bytes = randomBytes(Math.ceil((length - out.length) * 1.1) + 4);
      for (const byte of bytes) {
        if (byte >= UNBIASED_LIMIT) continue;
        out += BASE62[byte % 62];
        if (out.length === length) break;
      }
    }
    return out;
  }
}
