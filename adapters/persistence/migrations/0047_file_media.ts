import type { Kysely } from 'kysely';

// Kysely<any>: a migration runs against the schema as it was when it was written, not today's HangarDatabase.
 

/**
 * 0047: media facts of files (issue #63, docs/media.md). `file_media` holds one row per file record
 * whose facts were computed after its upload was stored: `width`/`height` in pixels after the EXIF
 * orientation, `duration_seconds` of audio and video, `thumbhash` (base64) of images, each null when
 * unknown; `state` `probed` or `failed` (unreadable bytes: every fact null); `computed_at` in Unix ms.
 * The row goes with its file (`on delete cascade`). Existing files get no row here: the background
 * backfill (`hangar files backfill-media`) finds them as the files without one, in record id order
 * (the primary key of both tables serves that walk).
 */
async function createFileMedia(db: Kysely<any>, durationType: 'real' | 'double precision'): Promise<void> {
  await db.schema
    .createTable('file_media')
    .addColumn('file_record_id', 'text', (c) => c.primaryKey().notNull().references('files.id').onDelete('cascade'))
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('duration_seconds', durationType)
    .addColumn('thumbhash', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('computed_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function sqlite(db: Kysely<any>): Promise<void> {
  await createFileMedia(db, 'real');
}

/** The same table; `duration_seconds` as `double precision` (Postgres's `real` keeps only 6 digits). */
export async function postgres(db: Kysely<any>): Promise<void> {
  await createFileMedia(db, 'double precision');
}
