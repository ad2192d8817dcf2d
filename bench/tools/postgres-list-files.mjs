// Times `GET /files` queries (SqlFileRepository.list)
// on an account of 1,000,000 files in Postgres, at repository level, with the plans of the statements.
// Needs a build (`npx tsc -b`). Usage:
//   node bench/tools/postgres-list-files.mjs generate <postgres-url> [schema=hangar_bench]
//     (re)creates the schema: migrations up to 0005, the generator below, then migrations 0006 and 0007 (their
//     backfills fill file_histogram from the generated files, timed), VACUUM ANALYZE
//   node bench/tools/postgres-list-files.mjs measure <postgres-url> [schema=hangar_bench] [case-name-substring]
//     the pool's sessions warmed first (warmSessions), then each case 55 times, each on a new SqlFileRepository (no cached counted total; the first 5 dropped), median, p95 and p99 (nearest rank) of the other 50, in ms, with the API's bound on counted totals (FILE_TOTAL_COUNT_LIMIT);
//     then EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) of every statement of one more run of each case;
//     a case with an offset (a deep page) twice: skipping the rows (the seek off) and placed from the histogram
//   node bench/tools/postgres-list-files.mjs drop <postgres-url> [schema=hangar_bench]
import { performance } from 'node:perf_hooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { median } from '../lib/stats.mjs';
import { CASES } from './list-files-cases.mjs';

const dist = new URL('../../dist/', import.meta.url);
const { migrateToLatest, migrationsUpTo } = await import(new URL('adapters/persistence/sql/migrate.js', dist).href);
const { SqlFileRepository } = await import(new URL('adapters/persistence/sql/sql-file-repository.js', dist).href);
const { SqlExecutor } = await import(new URL('adapters/persistence/sql/sql-executor.js', dist).href);
const { postgresConnectionString } = await import(new URL('adapters/persistence/postgres/postgres-database.js', dist).href);
const { FILE_TOTAL_COUNT_LIMIT } = await import(new URL('core/files/list-files.js', dist).href);
const { BITMAPS_ONLY } = await import(new URL('adapters/persistence/sql/postgres-file-search.js', dist).href);

const [command, url, schema = 'hangar_bench', only] = process.argv.slice(2);
if (!url || !['generate', 'measure', 'drop'].includes(command)) {
  console.error('usage: node bench/tools/postgres-list-files.mjs generate|measure|drop <postgres-url> [schema] [case]');
  process.exit(64);
}
const BIG = '00000000-0000-4000-8000-000000000001';
/** Timed runs per case after 5 warm-up runs (p99 is then the 50th of 50, nearest rank). */
const RUNS = Number(process.env.LIST_RUNS ?? 50);

/** The generator of the 1,000,000-file account, seeded so every run makes the same files (account_totals filled after it). */
const GENERATOR = `
select setseed(0.42);
insert into users (id, email, password_hash, created_at, updated_at, plan_name)
values ('00000000-0000-4000-8000-000000000001', 'big@example.com', 'x', 1700000000000, 1700000000000, 'default'),
       ('00000000-0000-4000-8000-000000000002', 'other@example.com', 'x', 1700000000000, 1700000000000, 'default');
insert into files (id, user_id, file_id, name, content_type, size, sha256, is_public, created_at, blob_key, search_text)
select
  md5('id' || g || u.n), u.id, fid, nm, ct, sz, md5('sha' || g),
  case when random() < 0.9 then 1 else 0 end,
  1700000000000 + g::bigint * 63000 + (random() * 1000)::bigint,
  u.id || '/' || fid,
  lower(nm || E'\\n' || fid)
from (values ('00000000-0000-4000-8000-000000000001', 1000000, 1), ('00000000-0000-4000-8000-000000000002', 200000, 2)) as u(id, count, n)
cross join lateral generate_series(1, u.count) as g
cross join lateral (select
  substr(md5(u.n || ':' || g), 1, 10) as fid,
  (array['image/png','image/jpeg','image/jpeg','image/png','application/pdf','video/mp4','image/webp','audio/mpeg','text/plain','image/gif'])[1 + floor(random() * 10)::int] as ct0,
  (array['holiday','invoice','cat','dog','report','screenshot','IMG','DSC','scan','receipt','Paris','Berlin','family','meeting','draft','final','Résumé','logo','banner','podcast'])[1 + floor(random() * 20)::int] as w1,
  (array['2019','2020','2021','2022','2023','2024','summer','winter','v2','copy','edited','small','large','export','backup','new','old','raw','web','print'])[1 + floor(random() * 20)::int] as w2,
  (exp(random() * ln(100000000 / 1024.0)) * 1024)::bigint as sz
) r
cross join lateral (select
  case when r.ct0 = 'image/gif' and random() < 0.9 then 'image/png' else r.ct0 end as ct,
  r.w1 || '-' || r.w2 || '-' || g || case r.ct0 when 'image/png' then '.png' when 'image/jpeg' then '.jpg' when 'application/pdf' then '.pdf' when 'video/mp4' then '.mp4' when 'image/webp' then '.webp' when 'audio/mpeg' then '.mp3' when 'text/plain' then '.txt' else '.gif' end as nm
) n;
insert into account_totals (user_id, storage_bytes, files_count, public_files_count)
select user_id, sum(size), count(*), count(*) filter (where is_public = 1) from files group by user_id;
`;


const connectionString = postgresConnectionString(url, { schema });

async function run(sql) {
  const client = new pg.Client({ connectionString: postgresConnectionString(url) });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Sessions of the measuring pool. */
const POOL_SIZE = 4;

/** A Kysely over `schema` whose statements (SQL and parameters) are pushed to `log` while it is set. */
function openDb(log) {
  const pool = new pg.Pool({ connectionString, max: POOL_SIZE });
  const db = new Kysely({ dialect: new PostgresDialect({ pool }), log: (event) => log.current?.push({ sql: event.query.sql, parameters: event.query.parameters }) });
  return Object.assign(db, { pool });
}

/**
 * Opens every session of the pool and has each read the big account's rows twice through a bitmap,
 * as the service's long-lived sessions have (POOL_IDLE_TIMEOUT_MS): a new session's first statements
 * that read many rows are slower than later ones (docs/scale-out.md, "Pool sizing"), which would
 * otherwise land in the first timed runs of whichever case a session first serves.
 */
async function warmSessions(db) {
  const bitmapsOnly = BITMAPS_ONLY.compile(db).sql;
  const clients = await Promise.all(Array.from({ length: POOL_SIZE }, () => db.pool.connect()));
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < 2; i++) {
        await client.query('begin');
        await client.query(bitmapsOnly);
        await client.query('select sum(size) from files where user_id = $1 and created_at >= 0', [BIG]);
        await client.query('commit');
      }
    }),
  );
  for (const client of clients) client.release();
}

if (command === 'drop') {
  await run(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
} else if (command === 'generate') {
  await run(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
  await run(`create schema ${pg.escapeIdentifier(schema)}`);
  const db = openDb({});
  const before = migrationsUpTo('0005_listing_speed');
  console.log('migrated:', await migrateToLatest(db, before, { migrationTableSchema: schema }));
  const client = new pg.Client({ connectionString });
  await client.connect();
  let started = performance.now();
  await client.query(GENERATOR);
  console.log(`generator: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  started = performance.now();
  console.log('migrated:', await migrateToLatest(db, undefined, { migrationTableSchema: schema }));
  console.log(`0006 and later (file_histogram backfills of 1,200,000 files): ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const byType = (await client.query(`select count(*) from information_schema.columns where table_schema = $1 and table_name = 'file_histogram' and column_name = 'content_type'`, [schema])).rows[0].count > 0;
  const { rows } = await client.query(
    `select ${byType ? "content_type = '' as all_types, " : ''}dimension, count(*)::int as rows, sum(files)::bigint as files from file_histogram where user_id = $1 group by ${byType ? '1, 2' : '1'} order by ${byType ? '1, 2' : '1'}`,
    [BIG],
  );
  console.log('histogram rows of the big account:', rows);
  for (const table of ['files', 'account_totals', 'file_histogram']) await client.query(`vacuum analyze ${table}`);
  await client.end();
  await db.destroy();
} else {
  const log = {};
  const db = openDb(log);
  await warmSessions(db);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const load = (await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`load average at start: ${load}`);
  const rows = [];
  // A deep page (a case with an offset) twice: skipping every row before it (as before the seek), and placed from the histogram.
  const variants = CASES.flatMap(([name, filter, offset]) =>
    offset === undefined ? [[name, filter, 0, {}]] : [[`${name}, skipping`, filter, offset, { seekFromOffset: Number.POSITIVE_INFINITY }], [`${name}, placed`, filter, offset, {}]],
  );
  // The skipping variants last: they read up to every file of the account (which the service no
  // longer does), and would evict from shared_buffers the pages of the cases measured after them.
  const chosen = variants.filter(([name]) => only === undefined || name.includes(only));
  const skipping = ([, , , options]) => options.seekFromOffset !== undefined;
  for (const [name, filter, offset, options] of [...chosen.filter((variant) => !skipping(variant)), ...chosen.filter(skipping)]) {
    // A new repository each time: its per-process cache of counted totals (kept until the account's
    // next write) starts empty, so a counted filter is counted every time, as after any upload or delete.
    const list = () => new SqlFileRepository(new SqlExecutor(db), options).list({ userId: BIG, filter, window: { offset, limit: 30 }, countLimit: FILE_TOTAL_COUNT_LIMIT });
    const times = [];
    let total;
    for (let i = 0; i < RUNS + 5; i++) {
      const started = performance.now();
      total = (await list()).total;
      times.push(performance.now() - started);
    }
    const kept = times.slice(5).sort((a, b) => a - b);
    const p95 = kept[Math.ceil(0.95 * kept.length) - 1];
    const p99 = kept[Math.ceil(0.99 * kept.length) - 1];
    rows.push({ name, total, median: median(kept), p95, p99 });
    log.current = [];
    await list();
    const statements = log.current;
    log.current = undefined;
    console.log(`\n### ${name}  (total ${total}; median ${median(kept).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms)\n`);
    for (const statement of statements) {
      // A transaction of the repository's (PostgresFileSearch sets planner settings local to one) is
      // replayed as one, so each statement is explained under the settings it ran with.
      if (/^\s*(begin|commit|rollback)\b/i.test(statement.sql) || /^\s*select set_config\(/i.test(statement.sql)) {
        await client.query({ text: statement.sql, values: statement.parameters });
        console.log(`-- ${statement.sql}`);
        continue;
      }
      const plan = await client.query({ text: `explain (analyze, buffers, costs off) ${statement.sql}`, values: statement.parameters });
      console.log('```');
      console.log(statement.sql);
      console.log(`-- parameters: ${JSON.stringify(statement.parameters)}`);
      console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
      console.log('```');
    }
  }
  console.log(`\nload average at end: ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
  rows.sort((a, b) => chosen.findIndex(([name]) => name === a.name) - chosen.findIndex(([name]) => name === b.name));
  for (const row of rows) console.log(`| ${row.name} | ${row.total.toLocaleString('en')} | ${row.median.toFixed(1)} / ${row.p95.toFixed(1)} / ${row.p99.toFixed(1)} |`);
  await client.end();
  await db.destroy();
}
