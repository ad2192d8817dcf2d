export * from './image-metadata-mode.js';
export * from './strip-image-metadata.js';
