import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Config } from './config.js';

/** Name of the generated session-token key in the database's `service_secrets` (migration 0011). */
export const JWT_SECRET_NAME = 'jwt_hs256';

/** Where a generated secret is kept: every process sharing the database gets the one kept first. */
export interface SecretKeeper {
  /** The secret kept under `name`, keeping `candidate` when there is none (see SqlServiceSecrets.keep). */
  keep(name: string, candidate: { value: string; createdAt: number }): Promise<string>;
}

/**
 * The HS256 key for session tokens as bytes (the UTF-8 bytes of JWT_SECRET). Without JWT_SECRET the
 * key is kept in the database (`service_secrets`, migration 0011) and so shared by every process on
 * it, whatever their DATA_DIR: the first process to start generates 48 random bytes (base64url);
 * racing processes insert with `on conflict do nothing` and all read the one kept. A secret an older
 * release generated into `$DATA_DIR/jwt-secret` (`config.path`) is kept instead of a new one, so the
 * sessions it signed stay valid; the file is only read.
 * @throws Error when the secret (kept or in the file) is shorter than 32 bytes; the database's error
 */
export async function loadJwtSecret(config: Config['jwtSecret'], keeper: SecretKeeper): Promise<Uint8Array> {
  if (config.kind === 'value') return new TextEncoder().encode(config.value);
  const earlier = await readEarlier(config.path);
  if (earlier !== undefined && Buffer.byteLength(earlier) < 32) {
    throw new Error(`${config.path}: the JWT secret kept there is shorter than 32 bytes; delete the file or set JWT_SECRET.`);
  }
  const secret = await keeper.keep(JWT_SECRET_NAME, { value: earlier ?? randomBytes(48).toString('base64url'), createdAt: Date.now() });
  if (Buffer.byteLength(secret) < 32) throw new Error(`The JWT secret kept in the database (service_secrets) is shorter than 32 bytes; delete that row or set JWT_SECRET.`);
  return new TextEncoder().encode(secret);
}

/** The secret an older release kept at `file`, or undefined when there is none. */
async function readEarlier(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
