// The in-memory kit of a host that embeds the core (package entry `hangar/adapters/memory`): no native addon.
export * from './create-memory-ports.js';
export * from '../persistence/memory/index.js';
export * from '../blobs/memory-blob-store.js';
export * from '../changes/memory-change-feed.js';
export * from '../content/file-type-content-sniffer.js';
export * from '../crypto/jose-token-signer.js';
export * from '../crypto/node-hmac-url-signer.js';
export * from '../crypto/node-id-generator.js';
export * from '../crypto/node-secret-digest.js';
export * from '../crypto/scrypt-password-hasher.js';
export * from '../crypto/system-clock.js';
export * from '../edge/mock-edge-provider.js';
export * from '../images/unavailable-image-transformer.js';
export * from '../mail/memory-mailer.js';
export * from '../rate-limits/flexible-rate-limiter.js';
