import BetterSqlite3 from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SMALL_BLOBS_FILE } from '../../adapters/blobs/file-and-sqlite-blob-store.js';
import type { Config } from '../server/config.js';
import { readBuildInfo } from '../http/build-info.js';
import { findHangarDatabase, noDatabaseMessage } from './database-check.js';

/** A refusal with a message for the operator (exit 1), e.g. a Postgres database or a non-empty target. */
export class BackupRefusal extends Error {}

/** One file of a backup, in `manifest.json`: its path under the backup directory, size in bytes and SHA-256 (hex). */
export interface BackupEntry {
  path: string;
  size: number;
  sha256: string;
}

/** `manifest.json` of a backup directory. */
export interface BackupManifest {
  format: 'hangar-backup-1';
  hangar_version: string;
  /** When the backup began (ISO 8601): every file acknowledged before it is in the backup. */
  started_at: string;
  finished_at: string;
  files: BackupEntry[];
}

const MANIFEST = 'manifest.json';

function embeddedOnly(config: Config): { database: string; blobs: string; smallBlobs: string } {
  if (config.database.kind !== 'sqlite' || config.database.path === ':memory:') {
    throw new BackupRefusal(
      'backup and restore handle a SQLite database (DATABASE_URL=sqlite:…); for Postgres use pg_dump and pg_restore (docs/operations.md, "Backups").',
    );
  }
  if (config.blobs.kind !== 'file') {
    throw new BackupRefusal(
      'backup and restore handle blobs on local disk (BLOB_STORE_URL=file:…); for an object store use the bucket\'s versioning or replication (docs/operations.md, "Backups").',
    );
  }
  return { database: config.database.path, blobs: config.blobs.directory, smallBlobs: path.join(config.blobs.directory, SMALL_BLOBS_FILE) };
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every blob file under `dir` (relative paths): not the small-blob database, its WAL, nor upload temp files. */
async function blobFiles(dir: string, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  let entries;
  try {
    entries = await readdir(path.join(dir, prefix), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return found;
    throw error;
  }
  for (const entry of entries) {
    const relative = path.join(prefix, entry.name);
    if (prefix === '' && (entry.name === '.tmp' || entry.name.startsWith(SMALL_BLOBS_FILE))) continue;
    if (entry.isDirectory()) found.push(...(await blobFiles(dir, relative)));
    else if (entry.isFile()) found.push(relative);
  }
  return found;
}

/** SQLite's online backup of `source` into `target` (a consistent snapshot while other connections write). */
async function sqliteBackup(source: string, target: string): Promise<void> {
  const database = new BetterSqlite3(source, { fileMustExist: true, timeout: 10_000 });
  try {
    await database.backup(target);
  } finally {
    database.close();
  }
}

/** What a backup holds, counted in its own snapshot of the database. */
export interface BackupContents {
  /** Rows of `users`: every account, confirmed or not. */
  accounts: number;
  /** Rows of `files`. */
  files: number;
  /** Sum of the files' sizes, bytes. */
  fileBytes: number;
}

/** Outcome of {@link backup}. */
export interface BackupResult {
  manifest: BackupManifest;
  contents: BackupContents;
  /** The database backed up (its path). */
  database: string;
}

/** Accounts, files and their bytes in the SQLite database at `file` (read-only). */
function contentsOf(file: string): BackupContents {
  const database = new BetterSqlite3(file, { readonly: true, fileMustExist: true, timeout: 10_000 });
  try {
    const accounts = (database.prepare('select count(*) as n from users').get() as { n: number }).n;
    const files = database.prepare('select count(*) as n, coalesce(sum(size), 0) as bytes from files').get() as { n: number; bytes: number };
    return { accounts, files: files.n, fileBytes: files.bytes };
  } finally {
    database.close();
  }
}

/**
 * `backup <dir>`: a consistent copy of the embedded data while servers run, into `dir` (created; it
 * must not exist or be empty): SQLite's online backup of the database, then of the small-blob
 * database, then every blob file, and the JWT secret file, with `manifest.json` (sizes, SHA-256).
 * Blobs are written before their records and never change, so every file whose upload was
 * acknowledged before the backup began is in it, with its contents; blobs of uploads that finish
 * meanwhile may come along without a record (orphans `fsck --repair` removes after a restore).
 *
 * Refuses, before writing anything, a configuration that points at no Hangar database (issue #61:
 * a wrong DATA_DIR must not yield a "successful" backup of nothing), and an instance with no
 * account and no file unless `options.allowEmpty` (a fresh instance backed up on purpose).
 * @returns the manifest, and the accounts, files and bytes counted in the backup's own snapshot
 * @throws BackupRefusal for Postgres or an object store, a missing or non-Hangar database, an empty
 *         instance without allowEmpty, or a target that is not empty
 */
export async function backup(config: Config, dir: string, options: { allowEmpty?: boolean } = {}): Promise<BackupResult> {
  const places = embeddedOnly(config);
  const startedAt = new Date().toISOString();
  const state = await findHangarDatabase(config.database);
  if (!state.found) throw new BackupRefusal(noDatabaseMessage(state));
  if (existsSync(dir) && (await readdir(dir)).length > 0) throw new BackupRefusal(`${dir} is not empty; back up into a new directory.`);
  const before = contentsOf(places.database);
  if (before.accounts === 0 && before.files === 0 && !options.allowEmpty) {
    throw new BackupRefusal(
      `the database at ${places.database} holds no account and no file: is DATA_DIR (or DATABASE_URL) the instance's? Add --allow-empty to back up an empty instance on purpose.`,
    );
  }
  await mkdir(path.join(dir, 'blobs'), { recursive: true });
  const files: string[] = [];
  await sqliteBackup(places.database, path.join(dir, 'hangar.db'));
  files.push('hangar.db');
  if (existsSync(places.smallBlobs)) {
    await sqliteBackup(places.smallBlobs, path.join(dir, 'blobs', SMALL_BLOBS_FILE));
    files.push(path.join('blobs', SMALL_BLOBS_FILE));
  }
  for (const relative of await blobFiles(places.blobs)) {
    await mkdir(path.dirname(path.join(dir, 'blobs', relative)), { recursive: true });
    try {
      await copyFile(path.join(places.blobs, relative), path.join(dir, 'blobs', relative));
    } catch (error) {
      // Deleted since it was listed: its record is gone too (or goes), nothing to keep.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    files.push(path.join('blobs', relative));
  }
  if (config.jwtSecret.kind === 'file' && existsSync(config.jwtSecret.path)) {
    await copyFile(config.jwtSecret.path, path.join(dir, 'jwt-secret'));
    files.push('jwt-secret');
  }
  const entries: BackupEntry[] = [];
  for (const file of files) entries.push({ path: file, size: (await stat(path.join(dir, file))).size, sha256: await sha256Of(path.join(dir, file)) });
  const manifest: BackupManifest = {
    format: 'hangar-backup-1',
    hangar_version: readBuildInfo().version,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
    files: entries,
  };
  await writeFile(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifest, contents: contentsOf(path.join(dir, 'hangar.db')), database: places.database };
}

/**
 * `restore <dir>`: puts a backup back where the configuration says (the database file, the blob
 * directory, the JWT secret file), which must not hold data yet, checking every file's size and
 * SHA-256 against the manifest first. Start the servers afterwards; `fsck` then reports the state.
 * @returns the manifest restored
 * @throws BackupRefusal for a missing or damaged backup, Postgres or an object store, or data already in place
 */
export async function restore(config: Config, dir: string): Promise<BackupManifest> {
  const places = embeddedOnly(config);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as BackupManifest;
  } catch {
    throw new BackupRefusal(`${dir} holds no readable ${MANIFEST}; is it a backup?`);
  }
  if (manifest.format !== 'hangar-backup-1') throw new BackupRefusal(`${dir}: unknown backup format ${JSON.stringify(manifest.format)}.`);
  for (const entry of manifest.files) {
    const file = path.join(dir, entry.path);
    if (!existsSync(file) || (await stat(file)).size !== entry.size || (await sha256Of(file)) !== entry.sha256) {
      throw new BackupRefusal(`${entry.path} in ${dir} is missing or differs from the manifest; the backup is damaged.`);
    }
  }
  if (existsSync(places.database)) throw new BackupRefusal(`${places.database} exists; restore into an empty DATA_DIR.`);
  if (existsSync(places.blobs) && (await readdir(places.blobs)).length > 0)
    throw new BackupRefusal(`${places.blobs} is not empty; restore into an empty DATA_DIR.`);
  for (const entry of manifest.files) {
    const target =
      entry.path === 'hangar.db'
        ? places.database
        : entry.path === 'jwt-secret'
          ? config.jwtSecret.kind === 'file'
            ? config.jwtSecret.path
            : undefined
          : path.join(places.blobs, path.relative('blobs', entry.path));
    if (target === undefined) continue;
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(path.join(dir, entry.path), target);
  }
  return manifest;
}
