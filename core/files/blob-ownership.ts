import type { StoredFile } from './stored-file.js';

/**
 * What a blob key says about the blob, by its shape alone (core/files/stored-file.ts, core/images):
 * - `file`: `<account id>/<file id>`, the bytes of one file (`StoredFile.blobKey`);
 * - `derived`: `<account id>/<file id>/<variant>`, e.g. a resized image of that file, cached
 *   (core/images/transform-public-image.ts names them `<file blob key>/<variant name>`);
 * - `unknown`: any other shape; the reconciler never removes such a blob, it only reports it.
 */
export type BlobRole = { kind: 'file'; fileId: string } | { kind: 'derived'; fileId: string } | { kind: 'unknown' };

/** The role of the blob under `key` (see {@link BlobRole}). */
export function blobRoleOf(key: string): BlobRole {
  const segments = key.split('/');
  if (segments.length === 2 && segments.every((s) => s !== '')) return { kind: 'file', fileId: segments[1] };
  if (segments.length === 3 && segments.every((s) => s !== '')) return { kind: 'derived', fileId: segments[1] };
  return { kind: 'unknown' };
}

/**
 * The orphan rule, in one place: a blob is live when the record it belongs to exists, i.e. the
 * record of its file id has exactly this key as its blob key (`file`), or this key is under the
 * record's blob key (`derived`: a variant of a live file). `record` is the record of the role's file
 * id, or undefined when there is none. Blobs of an `unknown` shape count as live (never removed).
 * Extend here when a new kind of blob is stored.
 */
export function isLiveBlob(key: string, role: BlobRole, record: StoredFile | undefined): boolean {
  switch (role.kind) {
    case 'unknown':
      return true;
    case 'file':
      return record !== undefined && record.blobKey === key;
    case 'derived':
      return record !== undefined && key.startsWith(`${record.blobKey}/`);
  }
}
