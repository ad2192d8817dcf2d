// ESLint (flat config), run by `npm run lint` (and by .ci/run before `npm test`): typescript-eslint's
// type-checked recommended rules on the TypeScript of core/, adapters/, apps/ (the dashboard too) and
// test/, ESLint's recommended rules on the JavaScript (scripts/, bench/, bin/), and the import
// boundaries of the hexagon (docs/tests.md, "Code style: lint and format"). A rule turned off or down says why.
import { existsSync } from 'node:fs';
import Module from 'node:module';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import { defineConfig } from 'eslint/config';
import globals from 'globals';

// typescript-eslint 8 reads types through TypeScript's JavaScript API, which TypeScript 7 (this
// project's `tsc`) no longer ships: its `require('typescript')` gets TypeScript 6 instead, installed
// apart in tools/typescript6/ (by `npm run lint`, from that folder's lockfile) so that its `tsc` never
// shadows the build's in node_modules/.bin. The build keeps TypeScript 7. Remove this, tools/typescript6/
// and the "overrides" entry of package.json once typescript-eslint reads TypeScript 7
// (typescript-eslint/typescript-eslint#10940).
const typescript6 = fileURLToPath(new URL('./tools/typescript6/node_modules/typescript', import.meta.url));
if (!existsSync(typescript6))
  throw new Error('eslint.config.mjs: TypeScript 6 for typescript-eslint is missing; run `npm run lint`, which installs it into tools/typescript6/');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const redirected = request === 'typescript' || request.startsWith('typescript/') ? typescript6 + request.slice('typescript'.length) : request;
  return resolveFilename.call(this, redirected, ...rest);
};
const { default: tseslint } = await import('typescript-eslint');

const ARCHITECTURE = 'docs/tests.md, "Code style: lint and format"';

/** A relative specifier that climbs out of its folder into a top-level folder named one of `names`. */
const into = (names, message) => ({ regex: `^(\\.\\./)+(${names.join('|')})(/|$)`, message: `${message} (${ARCHITECTURE})` });

const INVERSIFY = { name: 'inversify', message: `only apps/server knows the container; use cases and adapters take constructor parameters (${ARCHITECTURE})` };

/** `no-restricted-imports` options of each layer (a later config object replaces, not merges, a rule's options). */
const boundaries = {
  core: {
    patterns: [
      { regex: '^[^.]', message: `core/ imports only core/: no Node built-in, no package (Koa, Kysely, drivers, inversify …) (${ARCHITECTURE})` },
      into(['adapters', 'apps'], 'core/ imports nothing from adapters/ or apps/'),
    ],
  },
  adapters: { paths: [INVERSIFY], patterns: [into(['apps'], 'adapters/ import core/, never apps/')] },
  api: {
    paths: [INVERSIFY],
    // apps/api and apps/content share only apps/http; apps/server composes them (the TypeScript projects say so too).
    patterns: [into(['content'], 'apps/api does not import apps/content: what they share goes to apps/http')],
  },
  content: {
    paths: [INVERSIFY],
    patterns: [into(['api'], 'apps/content does not import apps/api: what they share goes to apps/http')],
  },
  otherApps: { paths: [INVERSIFY] },
};

export default defineConfig(
  {
    ignores: ['dist/', '.test-run*/', 'data/', 'bench/results/', 'bench/*.tmp.mjs', 'test/artifacts/', 'test/fixtures/', 'coverage/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  // Every eslint-disable comment names its rules and gives its reason after `--`.
  comments.recommended,
  {
    rules: {
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: ['eslint-enable'] }],
      // A file-wide disable (the first lines of a file) needs no eslint-enable at its end.
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    // One program over core/, adapters/, apps/ and test/ (tsconfig.eslint.json): each folder's own
    // project (projectService) built a program per tsconfig, each with the sources of the projects it
    // references, so most files were read and checked several times (docs/tests.md).
    languageOptions: {
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Off: an async method without await is how an adapter or a double implements a port that returns a
      // Promise (memory repositories, no-op adapters); being async, it reports a throw as a rejection.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks a parameter a signature requires but the body ignores, and a property
      // taken out of an object only so that the rest (`...rest`) goes without it.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Frozen migrations take Kysely<any>: each runs against the schema as it was when it was written,
    // not today's HangarDatabase (docs/migrations.md, rule 4).
    files: ['adapters/persistence/migrations/**/*.ts', 'scripts/migration-snapshot.mjs'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      // Off: a released migration is never edited, even where an untyped `new Map()` reaches a typed parameter.
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // Off where Koa's values come in: @types/koa types `ctx.state`, `ctx.params` and `next()` as any.
    // Typing them (a declaration of Koa's DefaultState for the state this app keeps) turns these back on.
    files: ['apps/api/**/*.ts', 'apps/http/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  {
    files: ['apps/dashboard/src/**/*.ts', 'apps/dashboard/src/**/*.tsx'],
    languageOptions: { parserOptions: { project: './apps/dashboard/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // Preact's event attributes take async handlers: a rejection there reaches the browser's console as a throw would.
    files: ['apps/dashboard/src/**'],
    rules: { '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }] },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Off in tests: they read JSON bodies (`await response.json()`, typed any) and database rows of
      // old schemas, and check them with chai; a body of the wrong shape fails its assertion. The
      // application code keeps these rules.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Off in tests: they send input the types forbid (`as any`) to check the refusal, and open
      // databases of earlier schemas (Kysely<any>).
      '@typescript-eslint/no-explicit-any': 'off',
      // Off in tests: chai's property assertions (`expect(x).to.be.true`) are expressions.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    // Not part of any TypeScript project (apps/dashboard's tsconfig holds src/ only): no type information.
    files: ['apps/dashboard/vite.config.ts'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['apps/dashboard/src/**'],
    languageOptions: { globals: globals.browser },
  },
  { files: ['core/**/*.ts'], rules: { 'no-restricted-imports': ['error', boundaries.core] } },
  { files: ['adapters/**/*.ts'], rules: { 'no-restricted-imports': ['error', boundaries.adapters] } },
  { files: ['apps/api/**/*.ts'], rules: { 'no-restricted-imports': ['error', boundaries.api] } },
  { files: ['apps/content/**/*.ts'], rules: { 'no-restricted-imports': ['error', boundaries.content] } },
  {
    files: ['apps/*/**/*.ts'],
    ignores: ['apps/server/**', 'apps/api/**', 'apps/content/**'],
    rules: { 'no-restricted-imports': ['error', boundaries.otherApps] },
  },
);
