import type { Paged, Window } from '../shared/pagination.js';
import type { StoredFile } from './stored-file.js';

/** Filters of `GET /files` (spec 4.9), already validated; all optional, combined with AND. */
export interface FileFilter {
  /** Case-insensitive substring of `name` or `file_id`. */
  q?: string;
  /** Exact content type. */
  type?: string;
  /** Bytes, inclusive. */
  sizeMin?: number;
  sizeMax?: number;
  isPublic?: boolean;
  /** Inclusive bounds on `created_at`. */
  createdAfter?: Date;
  createdBefore?: Date;
}

/** Port: persistence of file records. */
export interface FileRepository {
  /** Stores a new record. @throws when `fileId` or `id` already exists (UploadFile draws a free file id first) */
  insert(file: StoredFile): Promise<void>;
  /** Looks up by public file id (unique, indexed), whoever owns it. */
  findByFileId(fileId: string): Promise<StoredFile | undefined>;
  /** One page of the user's files matching `filter`, newest first (created_at, then id, descending). */
  list(options: { userId: string; filter: FileFilter; window: Window }): Promise<Paged<StoredFile>>;
  /**
   * Deletes the user's records among `fileIds`, in one transaction.
   * @returns the records that were deleted (ids of other accounts and unknown ids are skipped)
   */
  deleteMany(options: { userId: string; fileIds: string[] }): Promise<StoredFile[]>;
}
