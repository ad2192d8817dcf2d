import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, SqliteDialect } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FileFilter } from '../../core/files/file-repository.js';
import { fileSearchText } from '../../adapters/persistence/file-search.js';
import type { ListingWay } from '../../adapters/persistence/sql/listing-plan.js';
import type { HangarDatabase } from '../../adapters/persistence/sql/schema.js';
import { SqlExecutor } from '../../adapters/persistence/sql/sql-executor.js';
import { SqlFileRepository } from '../../adapters/persistence/sql/sql-file-repository.js';
import { openSqliteDatabase } from '../../adapters/persistence/sqlite/sqlite-database.js';

const OWNER = '00000000-0000-4000-8000-000000000001';

/**
 * Each SQLite way of answering a listing (listing-plan.ts) reads the index it is meant to, as
 * SQLite's planner takes the statements on a database at the latest schema that has never been
 * ANALYZEd (as a server's is): EXPLAIN QUERY PLAN of every statement of one listing.
 */
describe('SQLite listing ways: the index each way reads (sql-file-listing.ts)', () => {
  let dir: string;
  let raw: BetterSqlite3.Database;
  let logged: Kysely<HangarDatabase>;
  let statements: { sql: string; parameters: readonly unknown[] }[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-listing-plans-'));
    const file = path.join(dir, 'plans.db');
    await (await openSqliteDatabase({ path: file })).close();
    raw = new BetterSqlite3(file);
    raw
      .prepare("insert into users (id, email, password_hash, created_at, updated_at, plan_name) values (?, 'plans@example.com', 'x', 0, 0, 'default')")
      .run(OWNER);
    const insert = raw.prepare(`insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text)
      values (?, ?, ?, ?, ?, ?, 'x', 1, ?, ?, ?)`);
    for (let i = 0; i < 20; i++) {
      const fileId = `plan${String(i).padStart(6, '0')}`;
      const name = `holiday-${i}.png`;
      insert.run(
        `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        OWNER,
        fileId,
        name,
        'image/png',
        1000 * i,
        i,
        `${OWNER}/${fileId}`,
        fileSearchText({ name, fileId }),
      );
    }
    raw.exec(`insert into account_totals (user_id, storage_bytes, files_count, public_files_count)
      select user_id, sum(size), count(*), sum(is_public) from files group by user_id
      on conflict (user_id) do update set storage_bytes = excluded.storage_bytes, files_count = excluded.files_count, public_files_count = excluded.public_files_count`);
    logged = new Kysely<HangarDatabase>({
      dialect: new SqliteDialect({ database: raw }),
      log: (event) => void statements.push({ sql: event.query.sql, parameters: event.query.parameters }),
    });
  });
  after(async () => {
    await logged.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  /** The plan lines of every statement of one listing answered `way`, after the first (the account's totals). */
  async function plansOf(filter: FileFilter, way: ListingWay): Promise<string> {
    statements = [];
    const page = await new SqlFileRepository(new SqlExecutor(logged), { sqliteListingWay: way }).list({
      userId: OWNER,
      filter,
      window: { offset: 0, limit: 30 },
      countLimit: 10_000,
    });
    expect(page.total, 'the listing found its files').to.be.above(0);
    return statements
      .slice(1)
      .map((statement) =>
        (raw.prepare(`explain query plan ${statement.sql}`).all(...(statement.parameters as unknown[])) as { detail: string }[])
          .map((row) => row.detail)
          .join('\n'),
      )
      .join('\n');
  }

  it('size-range: a needle with a size range walks the range on the size index alone, testing the needle on each entry, not the trigram index', async () => {
    const plans = await plansOf({ q: 'holiday', sizeMin: 5_000 }, 'size-range');
    expect(plans).to.match(/USING (COVERING )?INDEX files_user_id_size_is_public_content_type_created_at_search_text/);
    expect(plans).not.to.include('files_trigram');
  });

  it('size-range: a needle with a size range, a content type and visibility still walks the size index (tests the others on its entries)', async () => {
    const plans = await plansOf({ q: 'holiday', type: 'image/png', isPublic: true, sizeMax: 15_000 }, 'size-range');
    expect(plans, plans).to.match(/USING (COVERING )?INDEX files_user_id_size_is_public_content_type_created_at_search_text/);
    expect(plans, plans).not.to.match(/files_trigram|files_user_id_content_type|files_user_id_is_public/);
  });

  it('size-range: a needle of 2 code points with a size range reads the size index', async () => {
    expect(await plansOf({ q: 'ho', sizeMin: 5_000 }, 'size-range')).to.match(
      /USING (COVERING )?INDEX files_user_id_size_is_public_content_type_created_at_search_text/,
    );
  });

  it('index: a needle of 3 code points or more reads the trigram index', async () => {
    expect(await plansOf({ q: 'holiday', sizeMin: 5_000 }, 'index')).to.include('files_trigram');
  });

  it('list-order: walks the files newest first on the list-order index of the content type or visibility when the listing has one, else the account’s, and never sorts the page', async () => {
    const ofType = await plansOf({ q: 'holiday', sizeMin: 5_000, type: 'image/png' }, 'list-order');
    expect(ofType, ofType).to.match(
      /^SEARCH files USING INDEX files_user_id_content_type_created_at_id_is_public_size_search_text \(user_id=\? AND content_type=\?\)$/m,
    );
    const ofVisibility = await plansOf({ q: 'holiday', isPublic: true }, 'list-order');
    expect(ofVisibility, ofVisibility).to.match(
      /^SEARCH files USING INDEX files_user_id_is_public_created_at_id_size_content_type_search_text \(user_id=\? AND is_public=\?\)$/m,
    );
    const ofAccount = await plansOf({ q: 'holiday', createdAfter: new Date(0) }, 'list-order');
    expect(ofAccount, ofAccount).to.match(
      /^SEARCH files USING INDEX files_user_id_created_at_id_is_public_size_content_type_search_text \(user_id=\? AND created_at>\?\)$/m,
    );
    // The count too: a bounded count walks the same index newest first, never the size index (whose
    // order would put a size range's files after all the others).
    const sized = await plansOf({ q: 'holiday', sizeMin: 5_000 }, 'list-order');
    expect(sized, sized).to.match(/^SEARCH files USING COVERING INDEX files_user_id_created_at_id_is_public_size_content_type_search_text \(user_id=\?\)$/m);
    for (const plans of [ofType, ofVisibility, ofAccount, sized]) expect(plans, plans).not.to.match(/TEMP B-TREE|files_trigram|size>|files_user_id_size_/);
  });
});
