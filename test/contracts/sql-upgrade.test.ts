// An existing server upgrades in place: a database created at an earlier migration and filled as the
// release of that time filled it (its own SQL, written out here), then migrated to the latest
// migration, is read whole by today's repositories, and its listings and searches find the same files.
import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { FileFilter } from '../../core/files/file-repository.js';
import type { StoredFile } from '../../core/files/stored-file.js';
import { createSqlRepositories } from '../../adapters/persistence/sql/create-sql-repositories.js';
import { MIGRATION_NAMES, migrateTo, migrateToLatest } from '../../adapters/persistence/sql/migrate.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { createTestSchema, testDatabaseUrl } from '../support/test-database.js';

/**
 * The migrations a database is created at: the first, the one that brought private files and
 * expiry, the one before the search indexes of SQLite, and the last one before the migrations
 * became files.
 */
const STARTS = ['0001_initial', '0013_private_files', '0030_invites', '0041_postgres_size_covering_index'] as const;

const T0 = Date.UTC(2025, 2, 1, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const ADA = {
  id: '00000000-0000-4000-8000-0000000000a1',
  email: 'ada@example.com',
  passwordHash: '$argon2id$v=19$m=1024,t=2,p=1$YWRh$aGFzaA',
  confirmedAt: T0 - DAY,
  createdAt: T0 - 2 * DAY,
};
const BOB = {
  id: '00000000-0000-4000-8000-0000000000b2',
  email: 'bob@example.com',
  passwordHash: '$argon2id$v=19$m=1024,t=2,p=1$Ym9i$aGFzaA',
  confirmedAt: null,
  createdAt: T0 - DAY,
};

/** A file as the test writes it; `expiresAt` only where the schema has expiry (0013). File ids are digits, so no needle below matches one. */
interface OldFile {
  id: string;
  userId: string;
  fileId: string;
  name: string | null;
  contentType: string;
  size: number;
  isPublic: boolean;
  createdAt: number;
  expiresAt: number | null;
}

const FILES: OldFile[] = [
  {
    id: '10000000-0000-4000-8000-000000000001',
    userId: ADA.id,
    fileId: '0000000001',
    name: 'Holiday Photo.PNG',
    contentType: 'image/png',
    size: 1_000,
    isPublic: true,
    createdAt: T0,
    expiresAt: null,
  },
  {
    id: '10000000-0000-4000-8000-000000000002',
    userId: ADA.id,
    fileId: '0000000002',
    name: 'Secret Plans.pdf',
    contentType: 'application/pdf',
    size: 70_000,
    isPublic: false,
    createdAt: T0 + HOUR,
    expiresAt: null,
  },
  {
    id: '10000000-0000-4000-8000-000000000003',
    userId: ADA.id,
    fileId: '0000000003',
    name: 'Résumé draft.txt',
    contentType: 'text/plain',
    size: 12,
    isPublic: true,
    createdAt: T0 + 2 * HOUR,
    expiresAt: T0 + 400 * DAY,
  },
  {
    id: '10000000-0000-4000-8000-000000000004',
    userId: ADA.id,
    fileId: '0000000004',
    name: 'holiday-notes.txt',
    contentType: 'text/plain',
    size: 5_000_000,
    isPublic: false,
    createdAt: T0 + DAY,
    expiresAt: null,
  },
  {
    id: '10000000-0000-4000-8000-000000000005',
    userId: ADA.id,
    fileId: '0000000005',
    name: null,
    contentType: 'application/octet-stream',
    size: 0,
    isPublic: true,
    createdAt: T0 + 2 * DAY,
    expiresAt: null,
  },
  {
    id: '10000000-0000-4000-8000-000000000006',
    userId: BOB.id,
    fileId: '0000000006',
    name: 'Bob HOLIDAY.png',
    contentType: 'image/png',
    size: 64,
    isPublic: true,
    createdAt: T0 + 3 * HOUR,
    expiresAt: null,
  },
];

const KEY = {
  id: '20000000-0000-4000-8000-000000000001',
  userId: ADA.id,
  name: 'deploy bot',
  prefix: 'hgr_abcd',
  hash: createHash('sha256').update('hgr_abcd-the-rest-of-the-key').digest('hex'),
  createdAt: T0 - HOUR,
};
const SHARE = {
  id: 'aaaaaaaaaaaaaaaaaaaaa1',
  fileRecordId: FILES[0].id,
  fileId: FILES[0].fileId,
  passwordHash: 'share-hash',
  expiresAt: T0 + 30 * DAY,
  maxDownloads: 10,
  downloads: 3,
  createdAt: T0 + 3 * HOUR,
};
const VARIANT = { fileRecordId: FILES[0].id, variant: 'w200', size: 321, createdAt: T0 + 4 * HOUR };
const USAGE = { periodStart: Date.UTC(2025, 2, 1), originReads: 17, imageOps: 2 };

/** The schema has migration `name` (from `start` on). */
const since = (start: string, name: string) => start >= name;

/** `files.search_text` as every release wrote it: name and file id joined by a line feed, lower-cased and NFC-normalised. */
const searchText = (file: OldFile) => `${file.name ?? ''}\n${file.fileId}`.toLowerCase().normalize('NFC');
const sha256Of = (file: OldFile) => createHash('sha256').update(file.fileId).digest('hex');
const blobKeyOf = (file: OldFile) => `${file.userId}/${file.fileId}`;

/** `file_histogram`'s buckets of a file, as the releases from 0006 on computed them: UTC day and hour, and the size class (32 per octave). */
function histogramBuckets(file: OldFile): Array<[string, number]> {
  const floorDiv = (value: number, width: number) => (value - (((value % width) + width) % width)) / width;
  const e = file.size === 0 ? 0 : Math.floor(Math.log2(file.size));
  const sizeClass = file.size < 64 ? file.size : 32 * (e - 5) + Math.floor(file.size / 2 ** (e - 5));
  return [
    ['day', floorDiv(file.createdAt, DAY)],
    ['hour', floorDiv(file.createdAt, HOUR)],
    ['size', sizeClass],
  ];
}

/**
 * Writes the accounts, key, files and, where the schema has them, totals, histogram rows, usage,
 * image variant and share, with the statements the release at `start` would have made.
 */
async function fillAsOf(db: Kysely<any>, start: string): Promise<void> {
  for (const user of [ADA, BOB]) {
    if (since(start, '0002_account_rules')) {
      await sql`insert into users (id, email, password_hash, email_confirmed_at, max_upload_size_bytes, last_email_sent_at, created_at, updated_at, plan_name, trial_ends_at)
        values (${user.id}, ${user.email}, ${user.passwordHash}, ${user.confirmedAt}, ${null}, ${null}, ${user.createdAt}, ${user.createdAt}, ${'pro'}, ${T0 + 14 * DAY})`.execute(
        db,
      );
      await sql`insert into account_totals (user_id, storage_bytes, files_count) values (${user.id}, 0, 0)`.execute(db);
    } else {
      await sql`insert into users (id, email, password_hash, email_confirmed_at, max_upload_size_bytes, last_email_sent_at, created_at, updated_at)
        values (${user.id}, ${user.email}, ${user.passwordHash}, ${user.confirmedAt}, ${null}, ${null}, ${user.createdAt}, ${user.createdAt})`.execute(db);
    }
  }
  if (since(start, '0025_api_key_scopes')) {
    await sql`insert into api_keys (id, user_id, name, key_prefix, key_hash, created_at, last_used_at, scopes, expires_at)
      values (${KEY.id}, ${KEY.userId}, ${KEY.name}, ${KEY.prefix}, ${KEY.hash}, ${KEY.createdAt}, ${null}, ${'files:read account:read'}, ${T0 + 90 * DAY})`.execute(
      db,
    );
  } else {
    await sql`insert into api_keys (id, user_id, name, key_prefix, key_hash, created_at, last_used_at)
      values (${KEY.id}, ${KEY.userId}, ${KEY.name}, ${KEY.prefix}, ${KEY.hash}, ${KEY.createdAt}, ${null})`.execute(db);
  }
  for (const file of FILES) {
    const common = [
      file.id,
      file.userId,
      file.fileId,
      file.name,
      file.contentType,
      file.size,
      sha256Of(file),
      file.isPublic ? 1 : 0,
      file.createdAt,
      blobKeyOf(file),
      searchText(file),
    ];
    if (since(start, '0013_private_files')) {
      await sql`insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text, expires_at)
        values (${sql.join(common)}, ${file.expiresAt})`.execute(db);
    } else {
      await sql`insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text) values (${sql.join(common)})`.execute(
        db,
      );
    }
    if (since(start, '0002_account_rules')) {
      const publicFiles = since(start, '0003_list_indexes') ? sql`, public_files_count = public_files_count + ${file.isPublic ? 1 : 0}` : sql``;
      const changes = since(start, '0005_listing_speed') ? sql`, changes = changes + 1` : sql``;
      await sql`update account_totals set storage_bytes = storage_bytes + ${file.size}, files_count = files_count + 1${publicFiles}${changes} where user_id = ${file.userId}`.execute(
        db,
      );
    }
    if (since(start, '0007_file_histogram_by_type')) {
      for (const [dimension, bucket] of histogramBuckets(file)) {
        for (const contentType of ['', file.contentType]) {
          await sql`insert into file_histogram (user_id, content_type, dimension, bucket, is_public, files) values (${file.userId}, ${contentType}, ${dimension}, ${bucket}, ${file.isPublic ? 1 : 0}, 1)
            on conflict (user_id, content_type, dimension, bucket, is_public) do update set files = file_histogram.files + 1`.execute(db);
        }
      }
    }
  }
  if (since(start, '0002_account_rules')) {
    await sql`insert into usage_periods (user_id, period_start, origin_reads, image_ops) values (${ADA.id}, ${USAGE.periodStart}, ${USAGE.originReads}, ${USAGE.imageOps})`.execute(
      db,
    );
  }
  if (since(start, '0012_image_variants')) {
    await sql`insert into image_variants (file_record_id, variant, user_id, state, claim_token, claimed_until, size, created_at)
      values (${VARIANT.fileRecordId}, ${VARIANT.variant}, ${ADA.id}, 'stored', ${null}, 0, ${VARIANT.size}, ${VARIANT.createdAt})`.execute(db);
    await sql`update account_totals set storage_bytes = storage_bytes + ${VARIANT.size} where user_id = ${ADA.id}`.execute(db);
  }
  if (since(start, '0014_shares')) {
    await sql`insert into shares (id, user_id, file_id, file_record_id, password_hash, expires_at, max_downloads, downloads, created_at)
      values (${SHARE.id}, ${ADA.id}, ${SHARE.fileId}, ${SHARE.fileRecordId}, ${SHARE.passwordHash}, ${SHARE.expiresAt}, ${SHARE.maxDownloads}, ${SHARE.downloads}, ${SHARE.createdAt})`.execute(
      db,
    );
  }
}

/** The file as today's repositories should read it back from a database filled at `start`. */
function expectedFile(file: OldFile, start: string): StoredFile {
  return {
    id: file.id,
    userId: file.userId,
    fileId: file.fileId,
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    sha256: sha256Of(file),
    isPublic: file.isPublic,
    createdAt: new Date(file.createdAt),
    blobKey: blobKeyOf(file),
    expiresAt: since(start, '0013_private_files') && file.expiresAt !== null ? new Date(file.expiresAt) : null,
    viewCount: 0,
    downloadCount: 0,
  };
}

/** After migrating to the latest migration: every row read with its fields, and listings by filter and `q` as a brute-force search of FILES. */
async function expectEverythingReadable(db: Kysely<HangarDatabase>, start: string): Promise<void> {
  const { users, apiKeys, files, shares, imageVariants, usage } = createSqlRepositories(db);

  const ada = await users.findById(ADA.id);
  expect(ada).to.include({ id: ADA.id, email: ADA.email, passwordHash: ADA.passwordHash, planName: since(start, '0002_account_rules') ? 'pro' : '' });
  expect(ada!.emailConfirmedAt).to.deep.equal(new Date(ADA.confirmedAt));
  expect(ada!.createdAt).to.deep.equal(new Date(ADA.createdAt));
  expect(ada!.trialEndsAt).to.deep.equal(since(start, '0002_account_rules') ? new Date(T0 + 14 * DAY) : null);
  const bob = await users.findByEmail(BOB.email);
  expect(bob).to.include({ id: BOB.id, emailConfirmedAt: null });
  expect((await users.list({ window: { offset: 0, limit: 10 } })).items.map((user) => user.id)).to.have.members([ADA.id, BOB.id]);

  const key = await apiKeys.findByHash(KEY.hash);
  expect(key).to.include({ id: KEY.id, userId: ADA.id, name: KEY.name, keyPrefix: KEY.prefix, lastUsedAt: null });
  expect(key!.createdAt).to.deep.equal(new Date(KEY.createdAt));
  if (since(start, '0025_api_key_scopes')) {
    expect(key!.scopes).to.have.members(['files:read', 'account:read']);
    expect(key!.expiresAt).to.deep.equal(new Date(T0 + 90 * DAY));
  } else {
    // Keys made before scopes existed may do everything (0044 gives full-access keys webhooks:manage), and never expire.
    expect(key!.scopes).to.have.members(['files:read', 'files:write', 'files:delete', 'account:read', 'webhooks:manage']);
    expect(key!.expiresAt).to.equal(null);
  }

  for (const file of FILES) expect(await files.findByFileId(file.fileId), file.fileId).to.deep.equal(expectedFile(file, start));
  const variantBytes = since(start, '0012_image_variants') ? VARIANT.size : 0;
  const adaFiles = FILES.filter((file) => file.userId === ADA.id);
  expect(await files.totals(ADA.id)).to.deep.equal({
    storageBytes: adaFiles.reduce((sum, file) => sum + file.size, 0) + variantBytes,
    filesCount: adaFiles.length,
  });
  expect(await files.totals(BOB.id)).to.deep.equal({ storageBytes: 64, filesCount: 1 });

  const filters: Array<[string, FileFilter, (file: OldFile) => boolean]> = [
    ['everything', {}, () => true],
    ['public', { isPublic: true }, (file) => file.isPublic],
    ['private', { isPublic: false }, (file) => !file.isPublic],
    ['one type', { type: 'text/plain' }, (file) => file.contentType === 'text/plain'],
    ['a size range', { sizeMin: 64, sizeMax: 100_000 }, (file) => file.size >= 64 && file.size <= 100_000],
    [
      'an upload-time range',
      { createdAfter: new Date(T0 + HOUR), createdBefore: new Date(T0 + DAY) },
      (file) => file.createdAt >= T0 + HOUR && file.createdAt <= T0 + DAY,
    ],
    ['q in another case', { q: 'HOLIDAY' }, (file) => /holiday/i.test(file.name ?? '')],
    ['q of two characters', { q: 'Pd' }, (file) => /pd/i.test(file.name ?? '')],
    ['q with an accent, upper case', { q: 'RÉSUMÉ' }, (file) => (file.name ?? '').toLowerCase().includes('résumé')],
    ['q inside a word, with visibility', { q: 'oLiDaY', isPublic: false }, (file) => /oliday/i.test(file.name ?? '') && !file.isPublic],
    ['q with a type', { q: 'a', type: 'image/png' }, (file) => /a/i.test(file.name ?? '') && file.contentType === 'image/png'],
    ['q that matches nothing', { q: 'zebra' }, () => false],
  ];
  if (since(start, '0013_private_files')) filters.push(['expiring', { expiresBefore: new Date(T0 + 1_000 * DAY) }, (file) => file.expiresAt !== null]);
  for (const userId of [ADA.id, BOB.id]) {
    for (const [what, filter, matches] of filters) {
      const expected = FILES.filter((file) => file.userId === userId && matches(file))
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((file) => file.fileId);
      const page = await files.list({ userId, filter, window: { offset: 0, limit: 50 } });
      expect(
        page.items.map((file) => file.fileId),
        `${userId}: ${what}`,
      ).to.deep.equal(expected);
      expect(page.total, `${userId}: ${what} (total)`).to.equal(expected.length);
    }
  }

  if (since(start, '0002_account_rules')) {
    expect(await usage.get({ userId: ADA.id, periodStart: new Date(USAGE.periodStart) })).to.deep.equal({
      originReads: USAGE.originReads,
      imageOps: USAGE.imageOps,
    });
  }
  expect(await imageVariants.list({ fileRecordId: VARIANT.fileRecordId })).to.deep.equal(
    since(start, '0012_image_variants') ? [{ variant: VARIANT.variant, state: 'stored', sizeBytes: VARIANT.size }] : [],
  );
  if (since(start, '0014_shares')) {
    expect(await shares.findById(SHARE.id)).to.deep.equal({
      id: SHARE.id,
      userId: ADA.id,
      fileId: SHARE.fileId,
      fileRecordId: SHARE.fileRecordId,
      passwordHash: SHARE.passwordHash,
      expiresAt: new Date(SHARE.expiresAt),
      maxDownloads: SHARE.maxDownloads,
      downloads: SHARE.downloads,
      createdAt: new Date(SHARE.createdAt),
      // Shares made before 0043 record no minting API key.
      apiKeyId: null,
    });
  }
}

/** One suite per dialect: `open` gives an empty database (and the schema of Kysely's migration table on Postgres). */
function describeUpgrades(
  dialect: string,
  open: () => Promise<{ db: Kysely<HangarDatabase>; migrationTableSchema?: string; close: () => Promise<void> }>,
): void {
  describe(`upgrading a database that holds data to the latest migration (${dialect})`, function () {
    this.timeout(30_000);
    for (const start of STARTS) {
      it(`reads every row of a database created at ${start} and filled with that release's SQL, and lists and searches it as before`, async () => {
        const { db, migrationTableSchema, close } = await open();
        try {
          expect(await migrateTo(db, start, { migrationTableSchema })).to.deep.equal(MIGRATION_NAMES.filter((name) => name <= start));
          await fillAsOf(db, start);
          expect(await migrateToLatest(db, undefined, { migrationTableSchema })).to.deep.equal(MIGRATION_NAMES.filter((name) => name > start));
          await expectEverythingReadable(db, start);
        } finally {
          await close();
        }
      });
    }
  });
}

describeUpgrades('SQLite', async () => {
  // As openSqliteDatabase opens it: foreign keys on.
  const database = new BetterSqlite3(':memory:');
  database.pragma('foreign_keys = ON');
  const db = new Kysely<HangarDatabase>({ dialect: new SqliteDialect({ database }) });
  return { db, close: () => db.destroy() };
});

// Registered only where a Postgres database is configured (testDatabaseUrl prints the one line saying so otherwise).
const postgresUrl = testDatabaseUrl();
if (postgresUrl !== undefined) {
  describeUpgrades('Postgres', async () => {
    const schema = await createTestSchema(postgresUrl);
    const db = new Kysely<HangarDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 2 }) }) });
    return {
      db,
      migrationTableSchema: schema.schema,
      close: async () => {
        await db.destroy();
        await schema.drop();
      },
    };
  });
}
