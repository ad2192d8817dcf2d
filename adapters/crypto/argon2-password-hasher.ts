import { argon2id, hash, verify } from 'argon2';
import type { PasswordHasher } from '../../core/accounts/password-hasher.js';

/** Cost parameters of {@link Argon2PasswordHasher} (RFC 9106 §3.1). */
export interface Argon2PasswordHasherOptions {
  /** Memory per hash in KiB; default 19 456 (19 MiB, the OWASP Password Storage Cheat Sheet minimum for argon2id). */
  memoryCost?: number;
  /** Passes over the memory; default 2 (OWASP). */
  timeCost?: number;
  /** Lanes; default 1 (OWASP). */
  parallelism?: number;
}

/**
 * {@link PasswordHasher} with argon2id (RFC 9106) from the `argon2` package: a random 16-byte salt
 * per hash, output as a PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) that carries its own
 * parameters, so raising the costs later keeps old hashes verifiable. Hashing runs on the libuv
 * thread pool and takes about `memoryCost` KiB and tens of milliseconds with the defaults.
 */
export class Argon2PasswordHasher implements PasswordHasher {
  private readonly memoryCost: number;
  private readonly timeCost: number;
  private readonly parallelism: number;

  constructor(options: Argon2PasswordHasherOptions = {}) {
    this.memoryCost = options.memoryCost ?? 19_456;
    this.timeCost = options.timeCost ?? 2;
    this.parallelism = options.parallelism ?? 1;
  }

  /** @returns the PHC-format argon2id hash of `password` (UTF-8) */
  async hash(password: string): Promise<string> {
    return hash(password, { type: argon2id, memoryCost: this.memoryCost, timeCost: this.timeCost, parallelism: this.parallelism });
  }

  /** Constant-time comparison inside `argon2`. Never throws: a malformed or foreign hash is simply false. */
  async verify(options: { hash: string; password: string }): Promise<boolean> {
    if (typeof options.hash !== 'string' || !options.hash.startsWith('$argon2')) return false;
    try {
      return await verify(options.hash, options.password);
    } catch {
      return false;
    }
  }
}
