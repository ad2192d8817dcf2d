export * from './create-memory-repositories.js';
export * from './memory-api-key-repository.js';
export * from './memory-file-repository.js';
export * from './memory-health-probe.js';
export * from './memory-one-time-token-repository.js';
export * from './memory-session-repository.js';
export * from './memory-user-repository.js';
export * from '../repositories.js';
