import { expect } from 'chai';
import { sql } from 'kysely';
import { MemoryLogger } from '../../adapters/logging/memory-logger.js';
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

  it('logs a missing trigram index of `q` as `database_warning` (warn) at start, with the statement that creates it', async () => {
    database = await openDatabase({ kind: 'postgres', url: schema.url, poolSize: 2 }, new MemoryLogger());
    await sql`drop index files_search_text_trgm`.execute(database.db);
    await database.close();
    const logger = new MemoryLogger();
    database = await openDatabase({ kind: 'postgres', url: schema.url, poolSize: 2 }, logger);
    const warning = logger.entries.find((entry) => entry.event === 'database_warning');
    expect(warning, JSON.stringify(logger.entries)).to.not.equal(undefined);
    expect(warning!.level).to.equal('warn');
    expect(String(warning!.fields.message)).to.match(/CREATE INDEX files_search_text_trgm/);
  });
});
