// The measurements of docs/search.md on SQLite: `GET /files` queries (SqlFileRepository.list, as
// the service runs it, through openSqliteDatabase) on an account of LIST_FILES files (default
// 1,000,000; a second account holds a fifth as many) in a SQLite file, with the plans of the statements.
// Needs a build (`npx tsc -b`). Usage:
//   node bench/tools/sqlite-list-files.mjs generate <file>
//     (re)creates the file at the latest schema with the same data as the Postgres generator (names,
//     types, sizes, visibility and times drawn alike, from a seeded generator; the trigram index
//     filled by its triggers as the files are inserted), ANALYZE
//   node bench/tools/sqlite-list-files.mjs measure <file> [case-name-substring]
//     each case 55 times (LIST_RUNS + 5), the first 5 dropped, median, p95 and p99 (nearest rank) of
//     the other 50, in ms, with the API's bound on counted totals; then EXPLAIN QUERY PLAN of every
//     statement of one more run of each case
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { median } from '../lib/stats.mjs';
import { CASES } from './list-files-cases.mjs';

const dist = new URL('../../dist/', import.meta.url);
const { SqlFileRepository } = await import(new URL('adapters/persistence/sql/sql-file-repository.js', dist).href);
const { SqlExecutor } = await import(new URL('adapters/persistence/sql/sql-executor.js', dist).href);
const { openSqliteDatabase } = await import(new URL('adapters/persistence/sqlite/sqlite-database.js', dist).href);
const { fileSearchText } = await import(new URL('adapters/persistence/file-search.js', dist).href);
const { FILE_TOTAL_COUNT_LIMIT } = await import(new URL('core/files/list-files.js', dist).href);

const [command, file, only] = process.argv.slice(2);
if (!file || !['generate', 'measure'].includes(command)) {
  console.error('usage: node bench/tools/sqlite-list-files.mjs generate|measure <file> [case]');
  process.exit(64);
}
const BIG = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const RUNS = Number(process.env.LIST_RUNS ?? 50);
const FILES = Number(process.env.LIST_FILES ?? 1_000_000);

/** mulberry32: a small seeded generator, so every generate writes the same files. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const md5 = (text) => createHash('md5').update(text).digest('hex');
const TYPES = ['image/png', 'image/jpeg', 'image/jpeg', 'image/png', 'application/pdf', 'video/mp4', 'image/webp', 'audio/mpeg', 'text/plain', 'image/gif'];
const EXTENSIONS = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'application/pdf': '.pdf',
  'video/mp4': '.mp4',
  'image/webp': '.webp',
  'audio/mpeg': '.mp3',
  'text/plain': '.txt',
  'image/gif': '.gif',
};
const FIRST = [
  'holiday',
  'invoice',
  'cat',
  'dog',
  'report',
  'screenshot',
  'IMG',
  'DSC',
  'scan',
  'receipt',
  'Paris',
  'Berlin',
  'family',
  'meeting',
  'draft',
  'final',
  'Résumé',
  'logo',
  'banner',
  'podcast',
];
const SECOND = [
  '2019',
  '2020',
  '2021',
  '2022',
  '2023',
  '2024',
  'summer',
  'winter',
  'v2',
  'copy',
  'edited',
  'small',
  'large',
  'export',
  'backup',
  'new',
  'old',
  'raw',
  'web',
  'print',
];

if (command === 'generate') {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  await (await openSqliteDatabase({ path: file })).close();
  const raw = new BetterSqlite3(file);
  const started = performance.now();
  const random = seeded(42);
  const insertUser = raw.prepare(
    "insert into users (id, email, password_hash, created_at, updated_at, plan_name) values (?, ?, 'x', 1700000000000, 1700000000000, 'default')",
  );
  const insertFile = raw.prepare(`insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  raw.transaction(() => {
    insertUser.run(BIG, 'big@example.com');
    insertUser.run(OTHER, 'other@example.com');
    for (const [userId, count, n] of [
      [BIG, FILES, 1],
      [OTHER, FILES / 5, 2],
    ]) {
      for (let g = 1; g <= count; g++) {
        const fileId = md5(`${n}:${g}`).slice(0, 10);
        const drawn = TYPES[Math.floor(random() * 10)];
        const type = drawn === 'image/gif' && random() < 0.9 ? 'image/png' : drawn;
        const name = `${FIRST[Math.floor(random() * 20)]}-${SECOND[Math.floor(random() * 20)]}-${g}${EXTENSIONS[drawn]}`;
        const size = Math.round(Math.exp(random() * Math.log(100_000_000 / 1024)) * 1024);
        const isPublic = random() < 0.9 ? 1 : 0;
        const createdAt = 1_700_000_000_000 + g * 63_000 + Math.round(random() * 1000);
        insertFile.run(
          md5(`id${g}${n}`),
          userId,
          fileId,
          name,
          type,
          size,
          md5(`sha${g}`),
          isPublic,
          createdAt,
          `${userId}/${fileId}`,
          fileSearchText({ name, fileId }),
        );
      }
    }
    raw.exec(`insert into account_totals (user_id, storage_bytes, files_count, public_files_count)
      select user_id, sum(size), count(*), sum(is_public) from files group by user_id`);
  })();
  console.log(`generator (files and their trigram index): ${((performance.now() - started) / 1000).toFixed(1)} s`);
  raw.exec('analyze');
  raw.close();
} else {
  const opened = await openSqliteDatabase({ path: file });
  // The same repository over plain Kysely, to capture the SQL of each statement for EXPLAIN QUERY PLAN.
  const raw = new BetterSqlite3(file, { readonly: true });
  const log = {};
  const logged = new Kysely({
    dialect: new SqliteDialect({ database: raw }),
    log: (event) => log.current?.push({ sql: event.query.sql, parameters: event.query.parameters }),
  });
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const rows = [];
  for (const [name, filter, offset = 0] of CASES.filter(([name]) => only === undefined || name.includes(only))) {
    // A repository per run: it keeps no listing from the run before (KeptListings), so each run finds it.
    const list = (executor) => new SqlFileRepository(executor).list({ userId: BIG, filter, window: { offset, limit: 30 }, countLimit: FILE_TOTAL_COUNT_LIMIT });
    const times = [];
    let total;
    for (let i = 0; i < RUNS + 5; i++) {
      const begun = performance.now();
      total = (await list(new SqlExecutor(opened.db, { direct: opened.direct }))).total;
      times.push(performance.now() - begun);
    }
    const kept = times.slice(5).sort((a, b) => a - b);
    const at = (p) => kept[Math.ceil(p * kept.length) - 1];
    rows.push({ name, total, median: median(kept), p95: at(0.95), p99: at(0.99) });
    log.current = [];
    await list(new SqlExecutor(logged));
    const statements = log.current;
    log.current = undefined;
    console.log(`\n### ${name}  (total ${total}; median ${median(kept).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms)\n`);
    for (const statement of statements) {
      const plan = raw.prepare(`explain query plan ${statement.sql}`).all(...statement.parameters);
      console.log('```');
      console.log(statement.sql);
      console.log(`-- parameters: ${JSON.stringify(statement.parameters)}`);
      console.log(plan.map((row) => `${row.parent === 0 ? '' : '  '}${row.detail}`).join('\n'));
      console.log('```');
    }
  }
  console.log(
    `\nload average at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}\n`,
  );
  for (const row of rows)
    console.log(`| ${row.name} | ${row.total.toLocaleString('en')} | ${row.median.toFixed(1)} / ${row.p95.toFixed(1)} / ${row.p99.toFixed(1)} |`);
  await logged.destroy();
  await opened.close();
}
