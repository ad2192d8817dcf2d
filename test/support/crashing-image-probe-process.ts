// An image probe process that crashes on its first image, as libvips might on a hostile file
// (test/adapters/isolated-image-prober.test.ts passes it to IsolatedImageProber as `script`).
process.on('message', () => process.exit(3));
process.on('disconnect', () => process.exit(0));
