import { scryptAsync } from '@noble/hashes/scrypt.js';
import { randomBytes } from '@noble/hashes/utils.js';
import type { PasswordHasher } from '../../core/accounts/password-hasher.js';
import { Semaphore } from './semaphore.js';

/** Cost parameters of {@link ScryptPasswordHasher} (RFC 7914 §2). */
export interface ScryptPasswordHasherOptions {
  /**
   * log2 of the CPU/memory cost N; default 15 (N = 32 768). Memory per hash is 128 × N × r bytes:
   * 32 MiB with the defaults. Between 1 and 20.
   */
  logN?: number;
  /** Block size r; default 8 (OWASP). */
  blockSize?: number;
  /**
   * Parallelisation p; default 3. N = 2^15, r = 8, p = 3 is one of the OWASP Password Storage
   * Cheat Sheet's equivalent minimums for scrypt (the same work as N = 2^17, p = 1 with a quarter
   * of the memory).
   */
  parallelism?: number;
  /**
   * Hashes (and verifications) running at once; the others wait. Default 1: the hash runs in
   * JavaScript on the caller's thread (it yields to the event loop every few ms), so two at once
   * finish no sooner and take twice the memory.
   */
  concurrency?: number;
}

/** Length of the random salt of every hash, in bytes. */
const SALT_BYTES = 16;
/** Length of the derived key, in bytes. */
const KEY_BYTES = 32;
/** The largest parameters {@link ScryptPasswordHasher.verify} accepts from a stored hash (2^20 × 8 × 128 bytes = 1 GiB at most). */
const MAX_LOG_N = 20;
const MAX_BLOCK_SIZE = 32;
const MAX_PARALLELISM = 16;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/**
 * {@link PasswordHasher} with scrypt (RFC 7914) from `@noble/hashes`, written in JavaScript: no
 * native addon, so it loads in any host (the in-memory kit, `adapters/memory-ports`). A random 16-byte
 * salt per hash; the output is a PHC string `$scrypt$ln=…,r=…,p=…$salt$hash` (unpadded base64, as
 * passlib writes it) that carries its parameters, so raising the costs later keeps old hashes
 * verifiable. It does not verify the argon2id hashes of {@link Argon2PasswordHasher} (false), so a
 * store of accounts stays with the hasher that made its hashes.
 */
export class ScryptPasswordHasher implements PasswordHasher {
  private readonly logN: number;
  private readonly blockSize: number;
  private readonly parallelism: number;
  private readonly slots: Semaphore;

  /** @throws Error when a cost parameter is outside the ranges of {@link ScryptPasswordHasherOptions} */
  constructor(options: ScryptPasswordHasherOptions = {}) {
    this.logN = options.logN ?? 15;
    this.blockSize = options.blockSize ?? 8;
    this.parallelism = options.parallelism ?? 3;
    if (!validCosts(this.logN, this.blockSize, this.parallelism)) {
      throw new Error(
        `scrypt costs out of range: logN ${this.logN} (1–${MAX_LOG_N}), r ${this.blockSize} (1–${MAX_BLOCK_SIZE}), p ${this.parallelism} (1–${MAX_PARALLELISM}).`,
      );
    }
    this.slots = new Semaphore(options.concurrency ?? 1);
  }

  /** @returns the PHC-format scrypt hash of `password` (its UTF-8 bytes) */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await this.slots.run(() => derive(password, salt, this.logN, this.blockSize, this.parallelism));
    return `$scrypt$ln=${this.logN},r=${this.blockSize},p=${this.parallelism}$${base64(salt)}$${base64(key)}`;
  }

  /** Compares in constant time. Never throws: a malformed or foreign hash (argon2id, bcrypt) is false. */
  async verify(options: { hash: string; password: string }): Promise<boolean> {
    const match = typeof options.hash === 'string' ? PHC.exec(options.hash) : null;
    if (!match) return false;
    const [logN, blockSize, parallelism] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (!validCosts(logN, blockSize, parallelism)) return false;
    const salt = Buffer.from(match[4], 'base64');
    const expected = Buffer.from(match[5], 'base64');
    if (salt.length === 0 || expected.length !== KEY_BYTES) return false;
    const key = await this.slots.run(() => derive(options.password, salt, logN, blockSize, parallelism));
    return constantTimeEqual(key, expected);
  }
}

function validCosts(logN: number, blockSize: number, parallelism: number): boolean {
  const within = (value: number, max: number) => Number.isSafeInteger(value) && value >= 1 && value <= max;
  return within(logN, MAX_LOG_N) && within(blockSize, MAX_BLOCK_SIZE) && within(parallelism, MAX_PARALLELISM);
}

function derive(password: string, salt: Uint8Array, logN: number, r: number, p: number): Promise<Uint8Array> {
  return scryptAsync(new TextEncoder().encode(password), salt, { N: 2 ** logN, r, p, dkLen: KEY_BYTES, maxmem: 2 ** 31 });
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '');
}

/** Equal length and bytes, in time that depends only on the length. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}
