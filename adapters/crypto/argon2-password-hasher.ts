import { availableParallelism } from 'node:os';
import type { PasswordHasher } from '../../core/accounts/password-hasher.js';
import { Semaphore } from './semaphore.js';

let library: Promise<typeof import('argon2')> | undefined;
/** argon2 (a native addon), imported on first use: a process that never hashes or checks a password does not load it. */
function argon2(): Promise<typeof import('argon2')> {
  return (library ??= import('argon2'));
}

/** Cost parameters of {@link Argon2PasswordHasher} (RFC 9106 §3.1). */
export interface Argon2PasswordHasherOptions {
  /** Memory per hash in KiB; default 19 456 (19 MiB, the OWASP Password Storage Cheat Sheet minimum for argon2id). */
  memoryCost?: number;
  /** Passes over the memory; default 2 (OWASP). */
  timeCost?: number;
  /** Lanes; default 1 (OWASP). */
  parallelism?: number;
  /**
   * Hashes (and verifications) running at once; the others wait (PASSWORD_HASH_CONCURRENCY).
   * Default: the number of CPUs. Memory taken by hashing is then at most `concurrency × memoryCost` KiB.
   */
  concurrency?: number;
}

/**
 * {@link PasswordHasher} with argon2id (RFC 9106) from the `argon2` package: a random 16-byte salt
 * per hash, output as a PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) that carries its own
 * parameters, so raising the costs later keeps old hashes verifiable. Hashing runs on the libuv
 * thread pool and takes about `memoryCost` KiB and tens of milliseconds with the defaults. At most
 * `concurrency` run at once, so a burst of logins queues instead of exhausting memory or the
 * thread pool that file I/O shares (OWASP ASVS 2.4.x, 11.1.4).
 */
export class Argon2PasswordHasher implements PasswordHasher {
  private readonly memoryCost: number;
  private readonly timeCost: number;
  private readonly parallelism: number;
  /** Bounds hashes in flight (see {@link Argon2PasswordHasherOptions.concurrency}). */
  readonly slots: Semaphore;

  constructor(options: Argon2PasswordHasherOptions = {}) {
    this.memoryCost = options.memoryCost ?? 19_456;
    this.timeCost = options.timeCost ?? 2;
    this.parallelism = options.parallelism ?? 1;
    this.slots = new Semaphore(options.concurrency ?? availableParallelism());
  }

  /** @returns the PHC-format argon2id hash of `password` (UTF-8) */
  async hash(password: string): Promise<string> {
    const { argon2id, hash } = await argon2();
    return this.slots.run(() => hash(password, { type: argon2id, memoryCost: this.memoryCost, timeCost: this.timeCost, parallelism: this.parallelism }));
  }

  /** Constant-time comparison inside `argon2`. Never throws: a malformed or foreign hash is simply false. */
  async verify(options: { hash: string; password: string }): Promise<boolean> {
    if (typeof options.hash !== 'string' || !options.hash.startsWith('$argon2')) return false;
    try {
      const { verify } = await argon2();
      return await this.slots.run(() => verify(options.hash, options.password));
    } catch {
      return false;
    }
  }
}
