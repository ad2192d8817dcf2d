import { randomFillSync } from 'node:crypto';
import type { IdGenerator } from '../../core/shared/id-generator.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Largest multiple of 62 that fits a byte: bytes at or above it are discarded, so `byte % 62` is uniform. */
const UNBIASED_LIMIT = 62 * 4;
/** Random bytes drawn from OpenSSL at a time (256 UUIDs' worth). */
const POOL_BYTES = 4096;

/**
 * {@link IdGenerator} on Node's CSPRNG (`node:crypto`). `base62` draws by rejection sampling: each
 * random byte below 248 gives one character (`byte % 62`), others are dropped, so every character
 * is equally likely (about 5.95 bits each; 22 characters give 130 bits).
 *
 * Both draw their bytes from one pool of {@link POOL_BYTES} refilled by one call into OpenSSL when
 * used up, as Node's own `randomUUID` does: a call per id cost ~4.4 µs on this project's machines
 * (decision 0002, docs/decisions/), against ~20 ns from the pool. Each pool byte
 * is used once.
 */
export class NodeIdGenerator implements IdGenerator {
  private readonly pool = Buffer.alloc(POOL_BYTES);
  private poolOffset = POOL_BYTES;

  /**
   * A version 7 UUID (RFC 9562 §5.7), lower-case: 48 bits of Unix time in ms, then 74 random bits.
   * Ids made later sort later (to the millisecond), so rows keyed by them are appended to their
   * B-tree index rather than scattered over it: with a random (version 4) key each activity-log
   * insert into a large table costs several times more (decision 0002).
   * The time it reveals is no secret: every record with such an id also shows when it was created.
   */
  uuid(): string {
    const bytes = this.randomBytes16();
    const ms = Date.now();
    // 48-bit big-endian milliseconds: the high 16 bits, then the low 32.
    bytes.writeUInt16BE(Math.floor(ms / 2 ** 32) & 0xffff, 0);
    bytes.writeUInt32BE(ms % 2 ** 32, 2);
    bytes[6] = 0x70 | (bytes[6] & 0x0f); // version 7
    bytes[8] = 0x80 | (bytes[8] & 0x3f); // variant 10
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** A fresh copy of 16 random bytes from the pool. */
  private randomBytes16(): Buffer {
    if (this.poolOffset + 16 > this.pool.length) this.refill();
    const bytes = Buffer.from(this.pool.subarray(this.poolOffset, this.poolOffset + 16));
    this.poolOffset += 16;
    return bytes;
  }

  /** The pool's next unused byte. */
  private randomByte(): number {
    if (this.poolOffset >= this.pool.length) this.refill();
    return this.pool[this.poolOffset++];
  }

  private refill(): void {
    randomFillSync(this.pool);
    this.poolOffset = 0;
  }

  /** @throws Error when `length` is not a non-negative integer */
  base62(length: number): string {
    if (!Number.isSafeInteger(length) || length < 0) throw new Error(`Invalid base62 length ${String(length)}.`);
    let out = '';
    while (out.length < length) {
      const byte = this.randomByte();
      if (byte < UNBIASED_LIMIT) out += BASE62[byte % 62];
    }
    return out;
  }
}
