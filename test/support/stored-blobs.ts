import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { SMALL_BLOBS_FILE } from '../../adapters/blobs/file-and-sqlite-blob-store.js';
import { sha256 } from './bytes.js';

/** One thing a local-disk blob store holds: a file (blob or temp file) or a row of small-blobs.db. */
export interface StoredBlob {
  /** `file:<path relative to the store's directory>` or `row:<key>`. */
  name: string;
  /** SHA-256 (hex) of its bytes. */
  sha256: string;
}

/**
 * Everything a local-disk blob store under `directory` holds, read behind its back: every file
 * (blobs and temp files, recursively; not the small blobs' database itself) and every row of
 * `small-blobs.db`, sorted by name. Empty when the directory does not exist.
 */
export async function storedBlobs(directory: string): Promise<StoredBlob[]> {
  const found: StoredBlob[] = [];
  let entries;
  try {
    entries = await readdir(directory, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const name = path.relative(directory, file);
    if (name.startsWith(SMALL_BLOBS_FILE)) continue;
    found.push({ name: `file:${name}`, sha256: sha256(await readFile(file)) });
  }
  if (existsSync(path.join(directory, SMALL_BLOBS_FILE))) {
    const database = new BetterSqlite3(path.join(directory, SMALL_BLOBS_FILE));
    try {
      for (const row of database.prepare('select key, bytes from blobs').all() as Array<{ key: string; bytes: Buffer }>) {
        found.push({ name: `row:${row.key}`, sha256: sha256(row.bytes) });
      }
    } finally {
      database.close();
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** The names of {@link storedBlobs}. */
export async function blobsUnder(directory: string): Promise<string[]> {
  return (await storedBlobs(directory)).map((blob) => blob.name);
}
