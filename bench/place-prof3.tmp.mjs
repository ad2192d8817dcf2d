const { SqliteFileSearch } = await import('/work/main/dist/adapters/persistence/sql/sqlite-file-search.js');
const { SqlExecutor } = await import('/work/main/dist/adapters/persistence/sql/sql-executor.js');
const { openSqliteDatabase } = await import('/work/main/dist/adapters/persistence/sqlite/sqlite-database.js');
const opened = await openSqliteDatabase({ path: '/tmp/sqlite1m.db' });
const search = new SqliteFileSearch(new SqlExecutor(opened.db, { direct: opened.direct }), ['id']);
const BIG = '00000000-0000-4000-8000-000000000001';
for (const [filter, offset] of [[{ q: 'cat' }, 29970], [{ q: 'cat' }, 29970], [{ q: 'a' }, 299970], [{ q: 'cat', isPublic: true }, 44990]]) {
  const t = performance.now();
  const r = await search.place({ userId: BIG, filter, offset });
  console.log(JSON.stringify(filter), offset, JSON.stringify(r), (performance.now() - t).toFixed(1), 'ms');
}
await opened.close();
