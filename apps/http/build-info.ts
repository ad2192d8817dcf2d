import { readFileSync } from 'node:fs';

/** What was built: `dist/build-info.json`, written by `npm run build` (scripts/stamp-build.mjs). */
export interface BuildInfo {
  /** package.json's version, e.g. `0.1.0`. */
  version: string;
  /** The git commit built from (40 hex digits), or null when it is not known (not built from a git checkout). */
  commit: string | null;
  /** The working tree had uncommitted changes when it was built; null when not known. */
  dirty: boolean | null;
  /** When it was built (ISO 8601), or null when the tree was compiled without the build's last step. */
  built_at: string | null;
}

/**
 * Reads the build's stamp, two directories above this module in dist/ (dist/apps/http/ and the
 * bundle's dist/apps/bundle/ alike): dist/build-info.json. Without it (compiled by `tsc` alone),
 * the version from package.json and an unknown commit. Never throws.
 */
export function readBuildInfo(): BuildInfo {
  try {
    const info = JSON.parse(readFileSync(new URL('../../build-info.json', import.meta.url), 'utf8')) as Partial<BuildInfo>;
    if (typeof info.version === 'string') {
      return { version: info.version, commit: info.commit ?? null, dirty: info.dirty ?? null, built_at: info.built_at ?? null };
    }
  } catch {
    // No stamp: fall through.
  }
  let version = '0.0.0';
  try {
    version = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    // Neither: an unknown version.
  }
  return { version, commit: null, dirty: null, built_at: null };
}

/** `hangar 0.1.0 (commit 0123abc…, built 2026-…)`: the answer of `--version`. */
export function versionLine(info: BuildInfo): string {
  const commit = info.commit === null ? 'commit unknown' : `commit ${info.commit}${info.dirty ? ' with uncommitted changes' : ''}`;
  return `hangar ${info.version} (${commit}${info.built_at ? `, built ${info.built_at}` : ''})`;
}
