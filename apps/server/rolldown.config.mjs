// The server as `npm start` runs it (and the admin CLI as `npm run cli` runs it): the compiled entry
// points (dist/apps/server/main.js, dist/apps/cli/main.js) and the modules they import, our own and the npm packages', bundled into a few files in dist/apps/bundle/
// (`npm run build`, after tsc). Why: Node's ES module loader resolves, reads and compiles each of
// the ~450 files separately, which is most of the time from start to first answer; one file per
// chunk takes a third of that (decision 0010, docs/decisions/).
//
// What stays outside the bundle, loaded from node_modules as before:
// - native addons and the packages that find files of their own next to them (better-sqlite3,
//   argon2, sharp and its libvips, swagger-ui-dist's assets);
// - the clients of optional backends (pg, nodemailer, the Google Cloud, AWS S3 and Cloudflare SDKs): they
//   are imported only when the configuration chooses them, from chunks of their own.
//
// Paths that depend on where a module lies (`new URL(…, import.meta.url)`) still hold: the bundle
// is two directories below dist/, as apps/api/ and apps/server/ are (so `../../dashboard/` is
// dist/dashboard/), and the WAL worker and the image probe process are entries of their own, written
// next to the chunk that starts them as `./wal-checkpoint-worker.js` and `./image-probe-process.js`. test/support/server-process.ts starts this bundle, so every
// test that runs the server as a process (and scripts/smoke.sh, through npm start) runs these files.
export default {
  input: {
    main: 'dist/apps/server/main.js',
    cli: 'dist/apps/cli/main.js',
    'wal-checkpoint-worker': 'dist/adapters/persistence/sqlite/wal-checkpoint-worker.js',
    'image-probe-process': 'dist/adapters/media/image-probe-process.js',
  },
  platform: 'node',
  external: [
    'better-sqlite3',
    'argon2',
    'sharp',
    'swagger-ui-dist',
    'pg',
    'nodemailer',
    '@google-cloud/storage',
    '@aws-sdk/client-s3',
    '@aws-sdk/lib-storage',
    'cloudflare',
  ],
  // depd (a dependency of Koa's) builds its deprecation wrappers with eval, by design.
  checks: { eval: false },
  output: {
    dir: 'dist/apps/bundle',
    cleanDir: true,
    format: 'esm',
    entryFileNames: '[name].js',
    sourcemap: true,
    // Smaller to read, compile and hold: V8 keeps each module's source text for as long as the
    // process runs, as one-byte Latin-1 only when every character fits, else as two bytes per
    // character. So strings with non-ASCII characters are written with \u escapes (the same values),
    // and the documentation comments are left out (the sources and the source maps keep them);
    // legal comments and the bundler's annotations stay.
    charset: 'ascii',
    comments: { legal: true, annotation: true, jsdoc: false },
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
    banner: "import { createRequire as __hangarCreateRequire } from 'node:module'; const require = __hangarCreateRequire(import.meta.url);",
  },
};
