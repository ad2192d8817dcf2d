import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root (this file runs as dist/test/apps/embedding.test.js). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/**
 * A host project in a temporary directory, as a user who installed Hangar would have it:
 * `node_modules/hangar` (this repository, built) and `@types/node`, ESM, strict, `nodenext`.
 */
async function hostProject(): Promise<{
  dir: string;
  write(file: string, text: string): Promise<void>;
  tsc(tsconfig: object): Promise<void>;
  node(file: string): Promise<string>;
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hangar-host-'));
  await mkdir(path.join(dir, 'node_modules/@types'), { recursive: true });
  await symlink(ROOT, path.join(dir, 'node_modules/hangar'), 'dir');
  await symlink(path.join(ROOT, 'node_modules/@types/node'), path.join(dir, 'node_modules/@types/node'), 'dir');
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
  return {
    dir,
    write: (file, text) => writeFile(path.join(dir, file), text),
    async tsc(tsconfig) {
      await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      try {
        await run(process.execPath, [TSC, '-p', dir], { cwd: dir });
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        throw new Error(`tsc failed in the host project:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
      }
    },
    node: async (file) => (await run(process.execPath, [path.join(dir, file)], { cwd: dir, timeout: 30_000 })).stdout,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

const HOST_OPTIONS = {
  target: 'es2023',
  lib: ['es2023'],
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  types: ['node'],
  skipLibCheck: false,
};

/** Runs `script` (an ES module) in a new Node process started in the repository; resolves with its stdout. */
async function inChild(script: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, timeout: 30_000 });
  return stdout;
}

/**
 * A script that records every native addon the process loads (`process.dlopen`) and the CommonJS
 * modules of argon2, sharp and better-sqlite3 it requires, imports `imports`, builds and uses a
 * core, and prints what it saw as JSON.
 */
function addonProbe(imports: string): string {
  return `
    const dlopened = [];
    const dlopen = process.dlopen;
    process.dlopen = function (module, filename, ...rest) { dlopened.push(filename); return dlopen.call(this, module, filename, ...rest); };
    const { createRequire } = await import('node:module');
    ${imports}
    const { createHangar, DEFAULT_ALLOWED_CONTENT_TYPES } = await import('hangar/core');
    const { createMemoryPorts, ScryptPasswordHasher } = await import('hangar/adapters/memory');
    const hangar = createHangar(createMemoryPorts({ passwords: new ScryptPasswordHasher({ logN: 10 }) }), {
      publicApiUrl: 'http://api.test', publicContentUrl: 'http://cdn.test', allowedRedirectUrls: [],
      allowedContentTypes: DEFAULT_ALLOWED_CONTENT_TYPES, defaultMaxUploadSizeBytes: 1024, defaultPlan: 'p',
      plans: [{ name: 'p', trialDays: null, storageLimitBytes: 10000, fileCountLimit: 10, maxUploadSizeBytes: 1024 }],
    });
    const { user } = await hangar.registerAccount.execute({ email: 'a@example.com', password: 'correct horse battery' });
    await hangar.confirmAccount.execute({ email: user.email });
    const { session } = await hangar.logIn.execute({ email: 'a@example.com', password: 'correct horse battery' });
    const required = Object.keys(createRequire(import.meta.url).cache).filter((file) => /node_modules[\\\\/](argon2|sharp|@img|better-sqlite3)[\\\\/]/.test(file));
    console.log(JSON.stringify({ dlopened, required, loggedIn: typeof session.accessToken === 'string' }));
  `;
}

describe('Embedding kit', function () {
  this.timeout(120_000);

  it('builds and runs a core from hangar/adapters/memory without loading a native addon (argon2, sharp, better-sqlite3)', async () => {
    const seen = JSON.parse(await inChild(addonProbe('')));
    expect(seen).to.deep.equal({ dlopened: [], required: [], loggedIn: true });
  });

  it('would notice a native addon: the same probe sees argon2 when a host hashes with its hasher', async () => {
    // The hasher imports argon2 on its first hash (a server that never hashes never loads it), so the host hashes once.
    const hasher = JSON.stringify(path.join(ROOT, 'dist/adapters/crypto/argon2-password-hasher.js'));
    const seen = JSON.parse(
      await inChild(addonProbe(`const { Argon2PasswordHasher } = await import(${hasher}); await new Argon2PasswordHasher({ memoryCost: 1024 }).hash('x');`)),
    );
    expect(seen.dlopened.join(' ')).to.match(/argon2/);
    expect(seen.required.join(' ')).to.match(/argon2/);
  });

  it('compiles the core sources inside a host project typed with @types/node', async () => {
    const host = await hostProject();
    try {
      await host.write(
        'host.ts',
        `import { parseUrl } from '${path.join(ROOT, 'core/shared/web-globals.js')}';\nexport const u: URL = new URL(parseUrl('http://x.test/').href);\n`,
      );
      await host.tsc({ compilerOptions: { ...HOST_OPTIONS, noEmit: true }, include: ['host.ts', path.join(ROOT, 'core/**/*.ts')] });
    } finally {
      await host.remove();
    }
  });

  it("compiles and runs the architecture guide's embedding example as it is written", async () => {
    const guide = await readFile(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const section = guide.slice(guide.indexOf('- **Embedding the core**'));
    const example = /```ts\n([\s\S]*?)\n\s*```/.exec(section);
    expect(example, 'no ```ts block after "Embedding the core" in docs/architecture.md').to.not.equal(null);
    const code = example![1].replace(/^ {2}/gm, '');
    expect(code).to.include("from 'hangar/core'");
    const host = await hostProject();
    try {
      await host.write('embed.ts', code);
      await host.tsc({ compilerOptions: { ...HOST_OPTIONS, outDir: 'out' }, include: ['embed.ts'] });
      const output = await host.node('out/embed.js');
      expect(output).to.match(/^stored [0-9A-Za-z]+ at http:\/\/localhost:3001\/m\/[0-9A-Za-z]+\nread back hello, world\n$/);
    } finally {
      await host.remove();
    }
  });
});
