/** The start of the line loaded-packages-preload.ts writes to stderr; the package names follow, space-separated, sorted. */
export const LOADED_PACKAGES_PREFIX = 'loaded packages:';

/** `NODE_OPTIONS` that preloads loaded-packages-preload.ts into a process a test starts. */
export const LOADED_PACKAGES_NODE_OPTIONS = `--import=${new URL('./loaded-packages-preload.js', import.meta.url).href}`;

/**
 * The npm packages named by the {@link LOADED_PACKAGES_PREFIX} line of a process's `stderr`.
 * @throws Error when `stderr` has no such line (the process was not started with {@link LOADED_PACKAGES_NODE_OPTIONS})
 */
export function loadedPackages(stderr: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith(LOADED_PACKAGES_PREFIX));
  if (line === undefined) throw new Error(`no "${LOADED_PACKAGES_PREFIX}" line in: ${stderr}`);
  return line.slice(LOADED_PACKAGES_PREFIX.length).trim().split(' ').filter(Boolean);
}
