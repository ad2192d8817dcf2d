import type { Repositories } from '../repositories.js';
import { MemoryApiKeyRepository } from './memory-api-key-repository.js';
import { MemoryFileRepository } from './memory-file-repository.js';
import { MemoryHealthProbe } from './memory-health-probe.js';
import { MemoryOneTimeTokenRepository } from './memory-one-time-token-repository.js';
import { MemorySessionRepository } from './memory-session-repository.js';
import { MemoryUserRepository } from './memory-user-repository.js';

/**
 * A fresh, empty set of in-memory repositories ({@link Repositories}). Nothing links them (no foreign keys): deleting
 * is per repository, as the ports offer no account deletion.
 */
export function createMemoryRepositories(): Repositories {
  return {
    users: new MemoryUserRepository(),
    tokens: new MemoryOneTimeTokenRepository(),
    sessions: new MemorySessionRepository(),
    apiKeys: new MemoryApiKeyRepository(),
    files: new MemoryFileRepository(),
    probe: new MemoryHealthProbe(),
  };
}
