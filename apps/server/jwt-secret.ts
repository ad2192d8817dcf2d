import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';

/**
 * The HS256 key for session tokens as bytes (the UTF-8 bytes of JWT_SECRET). Without JWT_SECRET,
 * a random 48-byte secret is generated once and kept in `$DATA_DIR/jwt-secret` (mode 0600), so
 * sessions survive restarts. Several processes starting at once (the workers of WORKERS, or a
 * deployment's processes on one DATA_DIR) agree: each writes its candidate to a temporary file and
 * links it into place, which succeeds for one of them only; nobody ever reads a half-written secret.
 * A start that finds the secret kept only reads it.
 * @throws Error when the kept secret is shorter than 32 bytes, or the file system's error
 */
export async function loadJwtSecret(config: Config['jwtSecret']): Promise<Uint8Array> {
  if (config.kind === 'value') return new TextEncoder().encode(config.value);
  const secret = (await readKept(config.path)) ?? (await keep(config.path));
  if (Buffer.byteLength(secret) < 32) throw new Error(`${config.path}: the kept JWT secret is shorter than 32 bytes; delete the file or set JWT_SECRET.`);
  return new TextEncoder().encode(secret);
}

/** The kept secret, or undefined when there is none yet. */
async function readKept(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Keeps a new random secret at `file` unless another process kept one first; returns the one kept. */
async function keep(file: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  const candidate = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(candidate, 'wx', 0o600);
    try {
      await handle.writeFile(randomBytes(48).toString('base64url'));
      await handle.sync();
    } finally {
      await handle.close();
    }
    // link, unlike rename, never replaces a secret another process kept first.
    await link(candidate, file).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(candidate, { force: true });
  }
  return (await readFile(file, 'utf8')).trim();
}
