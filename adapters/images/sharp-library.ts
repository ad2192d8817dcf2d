import { createRequire } from 'node:module';
import type Sharp from 'sharp';

let library: typeof Sharp | undefined;

/**
 * sharp, loaded on first use (the first thumbnail, media probe, or read of the image transformer's
 * `version`): with libvips it is the largest native library of the service, and many processes
 * never touch an image between two restarts. Loaded through `require` (sharp ships a CommonJS
 * entry) because the transformer's `version` is read synchronously by the core.
 *
 * libvips's operation cache is turned off (`sharp.cache(false)`) as sharp loads. Every image the
 * service decodes comes in as a new Buffer, which never matches a cached operation, so the cache
 * could only keep up to 100 finished operations and their images resident. Measured with the
 * bench's `startup` mix (decision 0023): CPU per probe the same or lower, and an idle worker about
 * 1 MiB smaller after 1,000 requests, within the runs' noise. sharp ships a CommonJS build and an ES
 * module build, and each sets the cache to its defaults when it loads: the service loads only the
 * CommonJS one, here; a host that also imports sharp's ES module build after this has run turns the
 * cache back on (`test/adapters/media-probers.test.ts` checks in a process of its own).
 * @throws Error (Node's or sharp's) when sharp or its libvips cannot be loaded on this platform
 */
export function sharpLibrary(): typeof Sharp {
  if (!library) {
    library = createRequire(import.meta.url)('sharp') as typeof Sharp;
    library.cache(false);
  }
  return library;
}
