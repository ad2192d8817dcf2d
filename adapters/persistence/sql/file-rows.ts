import type { Insertable, Selectable } from 'kysely';
import { METADATA_KINDS, type MetadataKind } from '../../../core/files/image-metadata/image-metadata-mode.js';
import type { StoredFile } from '../../../core/files/stored-file.js';
import { fileSearchText } from '../file-search.js';
import { toDate, toFlag, toMillis, toNullableDate, toNullableMillis, toNumber } from './rows.js';
import type { FilesTable } from './schema.js';

/**
 * The columns of `files` a {@link StoredFile} is read from: every column but `search_text`, which
 * only serves `q` (and would be one more string per row read).
 */
export const FILE_COLUMNS = [
  'id',
  'user_id',
  'file_id',
  'name',
  'content_type',
  'size',
  'sha256',
  'is_public',
  'created_at',
  'blob_key',
  'expires_at',
  'view_count',
  'download_count',
  'metadata_removed',
] as const;

/** A row of `files` as read with {@link FILE_COLUMNS}. */
export type FileRow = Pick<Selectable<FilesTable>, (typeof FILE_COLUMNS)[number]>;

/** The row an insert stores: every column but the read counts, which start at their default 0. */
export type NewFileRow = Required<Omit<Insertable<FilesTable>, 'view_count' | 'download_count'>>;

/**
 * The one mapping between a file record and its `files` row, both ways, so that a new field is
 * added in one place: `read` a row (times from Unix ms, `is_public` from 0/1, integers from whatever
 * the driver answers) into a {@link StoredFile}; `write` a StoredFile into the row an insert stores,
 * with its `search_text` (file-search.ts). The read counts start at 0 and are only ever added to
 * (`addReadCounts`), so `write` leaves them to the column defaults.
 */
export const fileRow = {
  read: (row: FileRow): StoredFile => {
    return {
      id: row.id,
      userId: row.user_id,
      fileId: row.file_id,
      name: row.name,
      contentType: row.content_type,
      size: toNumber(row.size),
      sha256: row.sha256,
      isPublic: row.is_public === 1,
      createdAt: toDate(row.created_at),
      blobKey: row.blob_key,
      expiresAt: toNullableDate(row.expires_at),
      viewCount: toNumber(row.view_count),
      downloadCount: toNumber(row.download_count),
      // Undefined in a webhook snapshot written by a trigger older than the column (0044).
      ...(row.metadata_removed ? { metadataRemoved: metadataKinds(row.metadata_removed) } : {}),
    };
  },
  write: (file: StoredFile): NewFileRow => {
    return {
      id: file.id,
      user_id: file.userId,
      file_id: file.fileId,
      name: file.name,
      content_type: file.contentType,
      size: file.size,
      sha256: file.sha256,
      is_public: toFlag(file.isPublic),
      created_at: toMillis(file.createdAt),
      blob_key: file.blobKey,
      search_text: fileSearchText(file),
      expires_at: toNullableMillis(file.expiresAt),
      metadata_removed: file.metadataRemoved?.length ? file.metadataRemoved.join(',') : null,
    };
  },
};

/** The kinds of a `metadata_removed` comma list, unknown words left out. */
function metadataKinds(list: string): MetadataKind[] {
  return list.split(',').filter((kind): kind is MetadataKind => (METADATA_KINDS as readonly string[]).includes(kind));
}
