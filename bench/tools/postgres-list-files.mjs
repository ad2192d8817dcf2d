// The measurements of docs/search.md on Postgres: `GET /files` queries (SqlFileRepository.list) on
// an account of LIST_FILES files (default 1,000,000; a second account holds a fifth as many), at
// repository level, with the plans of the statements. Needs a build (`npx tsc -b`). Usage:
//   node bench/tools/postgres-list-files.mjs generate <postgres-url> [schema=hangar_bench]
//     (re)creates the schema at the latest migration, then the generator below with the trigram
//     index of `q` dropped and built again after it (timed), VACUUM ANALYZE
//   node bench/tools/postgres-list-files.mjs measure <postgres-url> [schema=hangar_bench] [case-name-substring]
//     the pool's sessions warmed first (warmSessions), then each case 55 times (LIST_RUNS + 5), the
//     first 5 dropped, median, p95 and p99 (nearest rank) of the other 50, in ms, with the API's bound
//     on counted totals (FILE_TOTAL_COUNT_LIMIT); then EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) of every
//     statement of one more run of each case
//   node bench/tools/postgres-list-files.mjs drop <postgres-url> [schema=hangar_bench]
import { performance } from 'node:perf_hooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { median } from '../lib/stats.mjs';
import { CASES } from './list-files-cases.mjs';

const dist = new URL('../../dist/', import.meta.url);
const { migrateToLatest } = await import(new URL('adapters/persistence/sql/migrate.js', dist).href);
const { SqlFileRepository } = await import(new URL('adapters/persistence/sql/sql-file-repository.js', dist).href);
const { SqlExecutor } = await import(new URL('adapters/persistence/sql/sql-executor.js', dist).href);
const { postgresConnectionString } = await import(new URL('adapters/persistence/postgres/postgres-database.js', dist).href);
const { FILE_TOTAL_COUNT_LIMIT } = await import(new URL('core/files/list-files.js', dist).href);

const [command, url, schema = 'hangar_bench', only] = process.argv.slice(2);
if (!url || !['generate', 'measure', 'drop'].includes(command)) {
  console.error('usage: node bench/tools/postgres-list-files.mjs generate|measure|drop <postgres-url> [schema] [case]');
  process.exit(64);
}
const BIG = '00000000-0000-4000-8000-000000000001';
/** Timed runs per case after 5 warm-up runs (p99 is then the 50th of 50, nearest rank). */
const RUNS = Number(process.env.LIST_RUNS ?? 50);
const FILES = Number(process.env.LIST_FILES ?? 1_000_000);

/**
 * The generator of the data docs/search.md measures (account_totals filled after it), its search text
 * folded as file-search.ts folds it (the only accented letter drawn is é).
 */
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
  translate(lower(nm || E'\\n' || fid), 'é', 'e')
from (values ('00000000-0000-4000-8000-000000000001', ${FILES}, 1), ('00000000-0000-4000-8000-000000000002', ${FILES / 5}, 2)) as u(id, count, n)
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
  const db = new Kysely({
    dialect: new PostgresDialect({ pool }),
    log: (event) => log.current?.push({ sql: event.query.sql, parameters: event.query.parameters }),
  });
  return Object.assign(db, { pool });
}

/**
 * Opens every session of the pool and has each read the big account's rows twice, as the service's
 * long-lived sessions have (POOL_IDLE_TIMEOUT_MS): a new session's first statements that read many
 * rows are slower than later ones (docs/scale-out.md, "Pool sizing"), which would otherwise land in
 * the first timed runs of whichever case a session first serves.
 */
async function warmSessions(db) {
  const clients = await Promise.all(Array.from({ length: POOL_SIZE }, () => db.pool.connect()));
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < 2; i++) await client.query('select sum(size) from files where user_id = $1 and created_at >= 0', [BIG]);
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
  console.log('migrated:', (await migrateToLatest(db, undefined, { migrationTableSchema: schema })).length, 'migrations');
  const client = new pg.Client({ connectionString });
  await client.connect();
  const {
    rows: [index],
  } = await client.query("select indexdef from pg_indexes where schemaname = current_schema() and indexname = 'files_search_text_trgm'");
  let started = performance.now();
  if (index) await client.query('drop index files_search_text_trgm');
  await client.query(GENERATOR);
  console.log(`generator: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  started = performance.now();
  if (index) await client.query(index.indexdef);
  console.log(`trigram index built: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const table of ['files', 'account_totals']) await client.query(`vacuum analyze ${table}`);
  await client.end();
  await db.destroy();
} else {
  const log = {};
  const db = openDb(log);
  await warmSessions(db);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const load = (await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  console.log(`load average at start: ${load}`);
  const rows = [];
  const chosen = CASES.filter(([name]) => only === undefined || name.includes(only));
  for (const [name, filter, offset = 0] of chosen) {
    // A repository per run: it keeps no listing from the run before (KeptListings), so each run finds it.
    const list = () =>
      new SqlFileRepository(new SqlExecutor(db)).list({ userId: BIG, filter, window: { offset, limit: 30 }, countLimit: FILE_TOTAL_COUNT_LIMIT });
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
      const plan = await client.query({ text: `explain (analyze, buffers, costs off) ${statement.sql}`, values: statement.parameters });
      console.log('```');
      console.log(statement.sql);
      console.log(`-- parameters: ${JSON.stringify(statement.parameters)}`);
      console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
      console.log('```');
    }
  }
  console.log(
    `\nload average at end: ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}\n`,
  );
  for (const row of rows)
    console.log(`| ${row.name} | ${row.total.toLocaleString('en')} | ${row.median.toFixed(1)} / ${row.p95.toFixed(1)} / ${row.p99.toFixed(1)} |`);
  await client.end();
  await db.destroy();
}
