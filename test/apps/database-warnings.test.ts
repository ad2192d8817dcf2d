import { expect } from 'chai';
import { sql } from 'kysely';
import { MemoryLogger } from '../../adapters/logging/memory-logger.js';
import { FOLD_FROM_WAITING } from '../../adapters/persistence/postgres/file-gram-counts.js';
import { openDatabase, type OpenDatabase } from '../../apps/server/database.js';
import { createTestSchema, testDatabaseUrl, type TestSchema } from '../support/test-database.js';

const url = testDatabaseUrl();

(url === undefined ? describe.skip : describe)("the server's database warnings (apps/server/database.ts), Postgres", function () {
  this.timeout(30_000);
  let schema: TestSchema;
  let database: OpenDatabase | undefined;

  beforeEach(async () => {
    schema = await createTestSchema(url!);
  });
  afterEach(async () => {
    await database?.close();
    database = undefined;
    await schema.drop();
  });

  it('logs a failed background batch of the gram counts as `search_counts_failed` (warn), with the reason, on the log rather than bare stderr', async () => {
    const logger = new MemoryLogger();
    database = await openDatabase({ kind: 'postgres', url: schema.url, poolSize: 2 }, logger);
    // A fold reads the tracked grams; without their table every fold fails.
    await sql`drop table file_gram_days, file_grams_tracked`.execute(database.db);
    await sql`
      insert into file_gram_pending (user_id, created_at, search_text, content_type, is_public, delta)
      select 'nobody', 0, 'x', 'image/png', 1, 1 from generate_series(1, ${FOLD_FROM_WAITING})
    `.execute(database.db);
    const deadline = Date.now() + 10_000;
    while (!logger.entries.some((entry) => entry.event === 'search_counts_failed') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const warning = logger.entries.find((entry) => entry.event === 'search_counts_failed');
    expect(warning, JSON.stringify(logger.entries)).to.not.equal(undefined);
    expect(warning!.level).to.equal('warn');
    expect(String(warning!.fields.error)).to.match(/file_grams_tracked/);
    expect(String(warning!.fields.action)).to.match(/tried again/);
  });
});
