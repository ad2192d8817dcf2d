import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';

/**
 * The HS256 key for session tokens as bytes (the UTF-8 bytes of JWT_SECRET). Without JWT_SECRET,
 * a random 48-byte secret is generated once and kept in `$DATA_DIR/jwt-secret` (mode 0600), so
 * sessions survive restarts; several processes starting at once agree (exclusive create).
 * @throws Error when the kept secret is shorter than 32 bytes
 */
export async function loadJwtSecret(config: Config['jwtSecret']): Promise<Uint8Array> {
  if (config.kind === 'value') return new TextEncoder().encode(config.value);
  await mkdir(path.dirname(config.path), { recursive: true });
  try {
    const handle = await open(config.path, 'wx', 0o600);
    try {
      await handle.writeFile(randomBytes(48).toString('base64url'));
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = (await readFile(config.path, 'utf8')).trim();
  if (Buffer.byteLength(secret) < 32) throw new Error(`${config.path}: the kept JWT secret is shorter than 32 bytes; delete the file or set JWT_SECRET.`);
  return new TextEncoder().encode(secret);
}
