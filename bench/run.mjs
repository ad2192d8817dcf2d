// `npm run bench [-- --quick] [-- --only=upload-4k,read-4k] [-- --profile] [-- --keep] [-- --s3rver]`
// Measures the service against bare node:http baselines in the same run, alternating, and checks
// the targets of issue 8. See bench/README.md for what each scenario measures and why.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { call, createAccount, seedFiles, uploadFile } from './lib/api.mjs';
import { measureStartup, RSS_TARGET_MIB, rssSummary } from './scenarios/startup.mjs';
import {
  BENCH,
  ROOT,
  cpuOfAll,
  cpuTimeOf,
  freePort,
  memoryOf,
  peakMemoryTracker,
  processTree,
  runClient,
  serviceEnvironment,
  settled,
  startBaseline,
  startService,
} from './lib/processes.mjs';
import { withMagic } from './lib/magic.mjs';
import { thumbnails } from './scenarios/thumbnails.mjs';
import { format, GiB, median, MiB, table } from './lib/stats.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const profile = args.includes('--profile');
const keep = args.includes('--keep');
/** Blobs on S3: an s3rver process started by the bench (bench/README.md, "S3"). */
const withS3rver = args.includes('--s3rver');

/** Sizes and durations. --quick: 128 MiB instead of 1 GiB, 3 s instead of 20 s, 10,000 files instead of 100,000, fewer repetitions. */
const settings = quick
  ? { mode: 'quick', bigBytes: 128 * MiB, bigPairs: 2, loadSeconds: 3, loadPairs: 1, warmupSeconds: 1, listFiles: 10_000, startupRuns: 1 }
  : { mode: 'full', bigBytes: GiB, bigPairs: 3, loadSeconds: 20, loadPairs: 3, warmupSeconds: 3, listFiles: 100_000, startupRuns: 3 };
const override = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
if (override('files')) settings.listFiles = Number(override('files'));
if (override('seconds')) settings.loadSeconds = Number(override('seconds'));
if (override('pairs')) settings.loadPairs = settings.bigPairs = Number(override('pairs'));

const bigLabel = settings.bigBytes >= GiB ? `${settings.bigBytes / GiB} GiB` : `${settings.bigBytes / MiB} MiB`;
const filesLabel = settings.listFiles.toLocaleString('en-US');
/** Words the seeded file names are made of; the list scenario searches for one of them (1 file in WORDS.length). */
const WORDS = [
  'harbor',
  'meadow',
  'granite',
  'lantern',
  'orchid',
  'compass',
  'velvet',
  'thistle',
  'quarry',
  'saffron',
  'glacier',
  'pepper',
  'falcon',
  'marble',
  'juniper',
  'canyon',
  'ember',
  'walnut',
  'cobalt',
  'tundra',
  'willow',
  'basalt',
  'citrus',
  'drizzle',
  'fjord',
  'gazebo',
  'hazel',
  'ivory',
  'jasmine',
  'kelp',
  'lagoon',
  'mosaic',
  'nectar',
  'oyster',
  'pumice',
  'quill',
  'raven',
  'sorrel',
  'topaz',
  'umber',
  'vortex',
  'wombat',
  'yarrow',
  'zephyr',
  'bramble',
  'cricket',
  'dune',
  'estuary',
  'fennel',
  'geyser',
];
const QUERY = 'saffron';

/** Postgres (`DATABASE_URL=postgres://…`) is judged by issue 21's targets, SQLite by issue 8's (bench/README.md, "Scenarios and targets"). */
const onPostgres = /^postgres(ql)?:/i.test(process.env.DATABASE_URL ?? '');
/** The target set that applies to this run: its name (printed with the table) and the targets that differ by database. */
const TARGET_SET = onPostgres
  ? { name: 'Postgres (issue 21)', upload4k: { ratio: 0.4 }, read4k: { ratio: 2 }, auth: { ratio: 0.6 } }
  : { name: 'SQLite (issue 8)', upload4k: { ratio: 0.5 }, read4k: { ratio: 0.6 }, auth: { ratio: 0.7 } };
/**
 * `--two-processes`: the request scenarios again on two server processes (each WORKERS=1, DATA_DIRs
 * of their own, one database, one blob directory, one JWT_SECRET), the load split over both.
 * On by default on Postgres (where several processes is how the service scales out); `--no-two-processes` turns it off.
 */
const twoProcesses = args.includes('--two-processes') || (onPostgres && !args.includes('--no-two-processes'));

const SCENARIOS = [
  { id: 'upload-big', title: `one ${bigLabel} upload, API key auth`, unit: 'MiB/s', better: 'higher', target: { ratio: 0.8, rssMiB: 64 }, run: uploadBig },
  {
    id: 'upload-resumable',
    title: `one ${bigLabel} resumable upload (tus, PATCHes of 16 MiB), API key auth`,
    unit: 'MiB/s',
    better: 'higher',
    target: { ratio: 0.7, rssMiB: 64 },
    run: uploadResumable,
  },
  { id: 'download-big', title: `one ${bigLabel} download from /d/:id`, unit: 'MiB/s', better: 'higher', target: { ratio: 0.9, rssMiB: 64 }, run: downloadBig },
  {
    id: 'upload-4k',
    title: `4 KiB uploads, 32 concurrent, ${settings.loadSeconds} s`,
    unit: 'req/s',
    better: 'higher',
    target: TARGET_SET.upload4k,
    run: upload4k,
  },
  {
    id: 'read-4k',
    title: `4 KiB reads of /m/:id, 64 concurrent, ${settings.loadSeconds} s`,
    unit: 'req/s',
    better: 'higher',
    target: TARGET_SET.read4k,
    run: read4k,
  },
  {
    id: 'log-upload-4k',
    title: `4 KiB uploads, LOG_LEVEL=info (the default: an access-log line each) against a service at LOG_LEVEL=warn, 32 concurrent, ${settings.loadSeconds} s`,
    unit: 'req/s',
    better: 'higher',
    target: {},
    run: () => accessLogCost('upload'),
  },
  {
    id: 'log-read-4k',
    title: `4 KiB reads of /m/:id, LOG_LEVEL=info against a service at LOG_LEVEL=warn, 64 concurrent, ${settings.loadSeconds} s`,
    unit: 'req/s',
    better: 'higher',
    target: {},
    run: () => accessLogCost('read'),
  },
  {
    id: 'list',
    title: `GET /files?limit=30&q=${QUERY} (${filesLabel} files), 32 concurrent, ${settings.loadSeconds} s`,
    unit: 'ms',
    better: 'lower',
    target: { maxValue: 25, figure: 'p99' },
    run: listFiles,
  },
  {
    id: 'auth',
    title: `GET /settings (API key) vs GET /reference/allowed-content-types, 32 concurrent, ${settings.loadSeconds} s`,
    unit: 'req/s',
    better: 'higher',
    target: TARGET_SET.auth,
    run: authCost,
  },
  {
    id: 'startup',
    title: 'start to first 200 on /healthz, one process, existing DATA_DIR (every case in the notes)',
    unit: 'ms',
    better: 'lower',
    target: { maxValue: 500 },
    run: startup,
  },
  {
    id: 'thumbnails-cold',
    title: '12 MP JPEG → 320 px WebP on /m/:id, new variants (computed)',
    unit: 'thumbnails/s',
    better: 'higher',
    target: {},
    run: () => thumbnailFigures('cold'),
  },
  {
    id: 'thumbnails-cached',
    title: '12 MP JPEG → 320 px WebP on /m/:id, one variant again (cached)',
    unit: 'thumbnails/s',
    better: 'higher',
    target: {},
    run: () => thumbnailFigures('cached'),
  },
  // --two-processes: the same request ratios, the load split over two processes (twoProcessScenario).
  {
    id: 'two-upload-4k',
    two: true,
    title: `two processes: 4 KiB uploads, 2 × 16 concurrent, ${settings.loadSeconds} s`,
    unit: 'req/s',
    better: 'higher',
    target: TARGET_SET.upload4k,
    run: () => twoProcessScenario('upload-4k'),
  },
  {
    id: 'two-read-4k',
    two: true,
    title: `two processes: 4 KiB reads of /m/:id, 2 × 32 concurrent, ${settings.loadSeconds} s`,
    unit: 'req/s',
    better: 'higher',
    target: TARGET_SET.read4k,
    run: () => twoProcessScenario('read-4k'),
  },
  {
    id: 'two-list',
    two: true,
    title: `two processes: GET /files?limit=30&q=${QUERY} (${filesLabel} files), 2 × 16 concurrent, ${settings.loadSeconds} s`,
    unit: 'ms',
    better: 'lower',
    target: { maxValue: 25, figure: 'p99' },
    run: () => twoProcessScenario('list'),
  },
  {
    id: 'two-auth',
    two: true,
    title: `two processes: GET /settings (API key) vs GET /reference/allowed-content-types, 2 × 16 concurrent, ${settings.loadSeconds} s`,
    unit: 'req/s',
    better: 'higher',
    target: TARGET_SET.auth,
    run: () => twoProcessScenario('auth'),
  },
].filter((scenario) => (only ? only.includes(scenario.id) : !scenario.two || twoProcesses));

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const resultsDir = path.join(BENCH, 'results');
const work = await mkdtemp(path.join(os.tmpdir(), 'hangar-bench-'));
const cleanups = [];
/** Stops what the run started (the service, baselines, s3rver) and removes its work directory, then exits with `status`. */
async function abandon(status) {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  if (!keep) await rm(work, { recursive: true, force: true });
  process.exit(status);
}
process.on('SIGINT', () => void abandon(130));
// A run that fails part-way leaves no service process behind to load the next run's machine.
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    process.stderr.write(`bench: ${error?.stack ?? error}\n`);
    void abandon(1);
  });
}

const log = (text) => process.stdout.write(`${text}\n`);
if (withS3rver) await startS3rver();
log(`hangar bench (${settings.mode}): ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / GiB).toFixed(0)} GiB, node ${process.version}`);
log(
  `database ${process.env.DATABASE_URL ? process.env.DATABASE_URL.split(':')[0] : 'sqlite (embedded)'}, blobs ${process.env.BLOB_STORE_URL ?? 'file (embedded)'}, work directory ${work}`,
);
log(
  `targets: ${TARGET_SET.name}; load average ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);

// One service for every scenario but startup, started as the README does.
let service;
let main;
/** The service at LOG_LEVEL=warn (no access log) of the log-* scenarios: started at the first, with a DATA_DIR and an account of its own. */
let quietService;
const needsService = SCENARIOS.some((scenario) => scenario.id !== 'startup');
const profileDir = path.join(resultsDir, `${stamp}-profiles`);
if (needsService) {
  if (profile) await mkdir(profileDir, { recursive: true });
  service = await startService({ dataDir: path.join(work, 'service'), nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });
  cleanups.push(() => service.stop());
  service.processes = processTree(service.pid).length;
  service.startRss = treeRss(service.pid);
  log(
    `service pid ${service.pid} (${service.processes === 1 ? 'one process' : `a supervisor and ${service.processes - 1} workers: WORKERS`}): API ${service.api}, content ${service.content}; resident memory ${(service.startRss / MiB).toFixed(0)} MiB`,
  );
  main = await createAccount(service, 'main');
}

// Preparation before any measurement, as a store in use would be: the list scenario's account and
// its files. (Seeding also creates most of the blob store's 65,536 shard directories, which a store
// in use has; on an empty store the first upload into each pays a mkdir and an fsync more.)
let listAccount;
if (SCENARIOS.some((scenario) => scenario.id === 'list' || scenario.id === 'two-list')) {
  listAccount = await createAccount(service, 'list');
  log(`seeding ${filesLabel} files through POST /files …`);
  listAccount.seedRate = await seedFiles(service, listAccount.key, {
    count: settings.listFiles,
    concurrency: 16,
    nameOf: (i) => `${WORDS[i % WORDS.length]}-${String(i).padStart(6, '0')}.jpg`,
    onProgress: (done) => log(`  ${done.toLocaleString('en-US')} files`),
  });
  log(`seeded at ${listAccount.seedRate.toFixed(0)} files/s`);
  // The service computes the media facts of every image uploaded (MEDIA_PROBE_CONCURRENCY, after
  // each upload is stored): wait for that work on the seeded files to end, as it has on a store in
  // use, so that it does not run during the scenarios and slow the service and its baselines alike.
  const probing = performance.now();
  const quiet = await settled([service.pid], 600_000);
  log(`${quiet ? 'service idle again' : 'service still busy (gave up waiting)'} ${((performance.now() - probing) / 1000).toFixed(1)} s after the seeding`);
  if (onPostgres) {
    // Planner statistics for the new rows, as Postgres's autovacuum gathers them within its naptime
    // (1 min) once 10 % of a table's rows are new: without them the planner takes an account of
    // 10,000 files for one of ~100 and sorts all of its files for every page.
    // VACUUM also merges the GIN indexes' pending lists (the seeding's 100,000 names), which
    // autovacuum would otherwise do during the next scenarios, on the CPUs they measure.
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    const started = performance.now();
    try {
      await client.query('vacuum (analyze) files');
    } finally {
      await client.end();
    }
    log(
      `vacuumed and analyzed files in ${((performance.now() - started) / 1000).toFixed(1)} s (Postgres statistics and GIN pending lists, as autovacuum would within a minute)`,
    );
  }
}

/** The upload scenario keeps its last files (service and baseline) for the download scenario. */
let bigFiles;
const results = [];
/** E-mails of the accounts this run created (deleted at the end on an external database). */
const createdAccounts = [main?.email, listAccount?.email].filter(Boolean);
for (const scenario of SCENARIOS) {
  log(`\n▶ ${scenario.id}: ${scenario.title}`);
  const started = performance.now();
  try {
    const measured = await scenario.run();
    results.push(judge(scenario, measured));
  } catch (error) {
    log(`  failed: ${error instanceof Error ? error.stack : String(error)}`);
    results.push({ id: scenario.id, title: scenario.title, unit: scenario.unit, error: String(error instanceof Error ? error.message : error), pass: false });
  }
  log(`  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

// Output: the table, and the same as JSON.
const rows = results.map((r) => [
  r.title,
  r.error ? 'ERROR' : format(r.service, r.unit),
  r.error ? '' : format(r.baseline, r.unit),
  r.ratio === undefined ? '—' : r.ratio.toFixed(2),
  targetText(r.target ?? SCENARIOS.find((s) => s.id === r.id).target),
  r.error ? 'FAIL' : Object.keys(r.target ?? {}).length === 0 ? '—' : r.pass ? 'pass' : 'FAIL',
  r.rss ? `${(r.rss.growth / MiB).toFixed(1)} MiB` : '—',
]);
log(`\n${table(['scenario', 'service', 'baseline', 'ratio', `target: ${TARGET_SET.name}`, 'result', 'peak RSS growth'], rows)}`);
log(
  `\nload average at the end ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(
      ' ',
    )}${service ? `; service resident memory ${((service.endRss ?? treeRss(service.pid)) / MiB).toFixed(0)} MiB at the end (${(service.startRss / MiB).toFixed(0)} MiB after start)` : ''}`,
);
const notes = results.filter((r) => r.notes?.length).map((r) => `- ${r.id}: ${r.notes.join('; ')}`);
if (notes.length) log(`\n${notes.join('\n')}`);

await mkdir(resultsDir, { recursive: true });
const file = path.join(resultsDir, `${stamp}.json`);
const report = {
  timestamp: new Date().toISOString(),
  mode: settings.mode,
  settings,
  machine: {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    memoryBytes: os.totalmem(),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  },
  database: process.env.DATABASE_URL ? process.env.DATABASE_URL.replace(/\/\/[^@]*@/, '//***@') : 'sqlite (embedded)',
  serviceProcesses: service?.processes,
  targetSet: TARGET_SET.name,
  loadAverageAtEnd: os.loadavg(),
  blobStore: process.env.BLOB_STORE_URL ?? 'file (embedded)',
  statistic:
    'each figure is the median of its runs; service and baseline runs alternate (baseline, service, baseline, service, …); ratio = median over the pairs of service run / the baseline run before it',
  scenarios: results,
};
await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
log(`\nresults: ${path.relative(ROOT, file)}`);

if (service) {
  await writeFile(path.join(resultsDir, `${stamp}.service.log`), service.output());
  if (process.env.DATABASE_URL) await deleteBenchAccounts();
}
for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
if (profile)
  log(
    `CPU profiles of the service: ${path.relative(ROOT, profileDir)} (summarise them with node bench/tools/profile-summary.mjs ${path.relative(ROOT, profileDir)}/*)`,
  );
if (keep) log(`work directory kept: ${work}`);
else await rm(work, { recursive: true, force: true });

// ─── scenarios ──────────────────────────────────────────────────────────────────────────────

async function uploadBig() {
  const directory = path.join(work, 'baseline-files');
  await mkdir(directory, { recursive: true });
  const baseline = await startBaseline('upload-server.mjs', directory);
  cleanups.push(() => baseline.stop());
  const serviceUpload = (bytes) =>
    runClient('stream-upload.mjs', {
      url: `${service.api}/files`,
      bytes,
      headers: { 'x-api-key': main.key, 'content-type': 'video/mp4', 'x-file-name': 'big.mp4' },
    });
  const baselineUpload = (bytes) => runClient('stream-upload.mjs', { url: `${baseline.url}/`, bytes });
  // Warm-up: lazily loaded code and JIT, on both sides.
  expect201(await serviceUpload(8 * MiB), 'service warm-up');
  expect201(await baselineUpload(8 * MiB), 'baseline warm-up');

  const memory = peakMemoryTracker(service.pid);
  memory.start();
  const runs = { service: [], baseline: [] };
  let last;
  for (let pair = 0; pair < settings.bigPairs; pair++) {
    const b = expect201(await baselineUpload(settings.bigBytes), 'baseline upload');
    const s = expect201(await serviceUpload(settings.bigBytes), 'service upload');
    runs.baseline.push(b.bytesPerSecond / MiB);
    runs.service.push(s.bytesPerSecond / MiB);
    log(`  pair ${pair + 1}: baseline ${format(b.bytesPerSecond / MiB, 'MiB/s')}, service ${format(s.bytesPerSecond / MiB, 'MiB/s')}`);
    if (last) {
      await rm(path.join(directory, last.baseline), { force: true });
      await call(service.api, `/files/${last.service}`, { method: 'DELETE', headers: { 'x-api-key': main.key } });
    }
    last = { baseline: b.answer.name, service: s.answer.file.file_id };
  }
  const rss = memory.end();
  await baseline.stop();
  bigFiles = { directory, ...last };
  return { runs, rss };
}

/**
 * The same bytes as upload-big, through tus (bench/clients/tus-upload.mjs: a creation POST, then
 * PATCHes of 16 MiB), against the same bare single-POST baseline: the ratio prices the protocol
 * (a request, a database update and a durable append per 16 MiB, the completion) on top of the upload.
 */
async function uploadResumable() {
  const directory = path.join(work, 'baseline-resumable');
  await mkdir(directory, { recursive: true });
  const baseline = await startBaseline('upload-server.mjs', directory);
  cleanups.push(() => baseline.stop());
  const serviceUpload = async (bytes) => {
    const result = await runClient('tus-upload.mjs', {
      url: `${service.api}/files/resumable`,
      bytes,
      contentType: 'video/mp4',
      headers: { 'x-api-key': main.key },
    });
    if (result.status !== 204 || result.bytes !== bytes || !result.fileId) throw new Error(`resumable upload: ${JSON.stringify(result)}`);
    return result;
  };
  const baselineUpload = (bytes) => runClient('stream-upload.mjs', { url: `${baseline.url}/`, bytes });
  await serviceUpload(32 * MiB);
  expect201(await baselineUpload(32 * MiB), 'baseline warm-up');
  const memory = peakMemoryTracker(service.pid);
  memory.start();
  const runs = { service: [], baseline: [] };
  const completions = [];
  for (let pair = 0; pair < settings.bigPairs; pair++) {
    const b = expect201(await baselineUpload(settings.bigBytes), 'baseline upload');
    const s = await serviceUpload(settings.bigBytes);
    runs.baseline.push(b.bytesPerSecond / MiB);
    runs.service.push(s.bytesPerSecond / MiB);
    log(`  pair ${pair + 1}: baseline ${format(b.bytesPerSecond / MiB, 'MiB/s')}, service ${format(s.bytesPerSecond / MiB, 'MiB/s')} (${s.patches} PATCHes)`);
    completions.push(s.lastPatchSeconds);
    // Both of the pair's files go before the next pair, as in upload-big: the disk writes blocks
    // freed a moment before faster than others (bench/README.md, "How it measures"),
    // so removing only the baseline's would give the next baseline upload the fast blocks.
    await rm(path.join(directory, b.answer.name), { force: true });
    await call(service.api, `/files/${s.fileId}`, { method: 'DELETE', headers: { 'x-api-key': main.key } });
  }
  const rss = memory.end();
  await baseline.stop();
  return { runs, rss, notes: [`the last PATCH (16 MiB and the completion) took ${median(completions).toFixed(1)} s`] };
}

async function downloadBig() {
  if (!bigFiles) {
    // Run alone (--only=download-big): store the two files first.
    await uploadBig();
  }
  const baseline = await startBaseline('download-server.mjs', bigFiles.directory);
  cleanups.push(() => baseline.stop());
  const serviceDownload = () => runClient('stream-download.mjs', `${service.content}/d/${bigFiles.service}`);
  const baselineDownload = () => runClient('stream-download.mjs', `${baseline.url}/${bigFiles.baseline}`);
  // Warm-up, which also leaves both files equally in the page cache.
  expectBytes(await serviceDownload(), 'service warm-up');
  expectBytes(await baselineDownload(), 'baseline warm-up');

  const memory = peakMemoryTracker(service.pid);
  memory.start();
  const runs = { service: [], baseline: [] };
  for (let pair = 0; pair < settings.bigPairs; pair++) {
    const b = expectBytes(await baselineDownload(), 'baseline download');
    const s = expectBytes(await serviceDownload(), 'service download');
    runs.baseline.push(b.bytesPerSecond / MiB);
    runs.service.push(s.bytesPerSecond / MiB);
    log(`  pair ${pair + 1}: baseline ${format(b.bytesPerSecond / MiB, 'MiB/s')}, service ${format(s.bytesPerSecond / MiB, 'MiB/s')}`);
  }
  const rss = memory.end();
  await baseline.stop();
  await rm(path.join(bigFiles.directory, bigFiles.baseline), { force: true });
  await call(service.api, `/files/${bigFiles.service}`, { method: 'DELETE', headers: { 'x-api-key': main.key } });
  return { runs, rss };
}

async function upload4k() {
  const directory = path.join(work, 'baseline-small');
  await mkdir(directory, { recursive: true });
  const baseline = await startBaseline('upload-server.mjs', directory);
  cleanups.push(() => baseline.stop());
  const load = { connections: 32, method: 'POST', bodyBytes: 4096 };
  const measured = await alternate({
    baseline: { ...load, url: `${baseline.url}/` },
    service: { ...load, url: `${service.api}/files`, headers: { 'x-api-key': main.key, 'content-type': 'image/png', 'x-file-name': 'small.png' } },
    figure: (result) => result.requestsPerSecond,
  });
  await baseline.stop();
  return measured;
}

async function read4k() {
  const directory = path.join(work, 'baseline-read');
  await mkdir(directory, { recursive: true });
  const bytes = withMagic(randomBytes(4096), 'image/png');
  await writeFile(path.join(directory, 'small.png'), bytes);
  const file = await uploadFile(service, main.key, bytes, { contentType: 'image/png', name: 'small.png' });
  const baseline = await startBaseline('download-server.mjs', directory);
  cleanups.push(() => baseline.stop());
  const measured = await alternate({
    baseline: { connections: 64, url: `${baseline.url}/small.png` },
    service: { connections: 64, url: `${service.content}/m/${file.file_id}` },
    figure: (result) => result.requestsPerSecond,
  });
  await baseline.stop();
  return measured;
}

/**
 * What the access log costs a 4 KiB upload or read: the bench's service (LOG_LEVEL=info, one
 * access-log line per request to its stdout, a pipe the bench reads) alternated with a second
 * service at LOG_LEVEL=warn, started the same way, under the same load. The ratio is info / warn
 * request rates; the notes give each side's CPU per request and the difference as a share of the
 * request's CPU (issue 59: worth making cheaper above 5 %).
 */
async function accessLogCost(kind) {
  if (!quietService) {
    const started = await startService({ dataDir: path.join(work, 'service-log-warn'), env: { LOG_LEVEL: 'warn' } });
    cleanups.push(() => started.stop());
    quietService = { ...started, account: await createAccount(started, 'quiet') };
  }
  const quiet = quietService;
  let loads;
  if (kind === 'upload') {
    const upload = (target, key) => ({
      connections: 32,
      method: 'POST',
      bodyBytes: 4096,
      url: `${target.api}/files`,
      headers: { 'x-api-key': key, 'content-type': 'image/png', 'x-file-name': 'small.png' },
    });
    loads = { baseline: upload(quiet, quiet.account.key), service: upload(service, main.key) };
  } else {
    const bytes = withMagic(randomBytes(4096), 'image/png');
    const read = async (target, key) => ({
      connections: 64,
      url: `${target.content}/m/${(await uploadFile(target, key, bytes, { contentType: 'image/png', name: 'small.png' })).file_id}`,
    });
    loads = { baseline: await read(quiet, quiet.account.key), service: await read(service, main.key) };
  }
  const measured = await alternate({ ...loads, figure: (result) => result.requestsPerSecond, baselinePids: [quiet.pid] });
  const info = median(measured.runs.serviceCpuUsPerRequest);
  const warn = median(measured.runs.baselineCpuUsPerRequest);
  measured.notes.push(
    `CPU per request: ${info.toFixed(0)} µs at LOG_LEVEL=info, ${warn.toFixed(0)} µs at warn: the access log ${(info - warn).toFixed(0)} µs, ${(((info - warn) / info) * 100).toFixed(1)} % of the request (medians over the pairs)`,
  );
  return measured;
}

async function authCost() {
  return alternate({
    baseline: { connections: 32, url: `${service.api}/reference/allowed-content-types` },
    service: { connections: 32, url: `${service.api}/settings`, headers: { 'x-api-key': main.key } },
    figure: (result) => result.requestsPerSecond,
  });
}

async function listFiles() {
  const account = listAccount;
  const rate = account.seedRate;
  const check = await call(service.api, `/files?limit=30&q=${QUERY}`, { headers: { 'x-api-key': account.key } });
  const expected = Math.ceil(settings.listFiles / WORDS.length);
  if (check.status !== 200 || check.body.total < expected || check.body.files.length !== 30) {
    throw new Error(`list check: ${check.status}, total ${check.body?.total} (expected ${expected})`);
  }
  const options = { connections: 32, url: `${service.api}/files?limit=30&q=${QUERY}`, headers: { 'x-api-key': account.key } };
  const memory = peakMemoryTracker(service.pid);
  await autocannon({ ...options, duration: settings.warmupSeconds });
  memory.start();
  const runs = { service: [], requestsPerSecond: [], serviceCpuUsPerRequest: [] };
  for (let run = 0; run < settings.loadPairs; run++) {
    const cpuBefore = cpuTimeOf(service.pid);
    const result = await autocannon({ ...options, duration: settings.loadSeconds });
    const cpu = ((cpuTimeOf(service.pid) - cpuBefore) * 1000) / Math.max(1, result.ok + result.non2xx);
    runs.service.push(result.latencyMs.p99);
    runs.requestsPerSecond.push(result.requestsPerSecond);
    runs.serviceCpuUsPerRequest.push(cpu);
    log(
      `  run ${run + 1}: p99 ${result.latencyMs.p99} ms, p50 ${result.latencyMs.p50} ms, ${result.requestsPerSecond.toFixed(0)} req/s, ${cpu.toFixed(0)} µs CPU per request${problems(result)}`,
    );
  }
  return {
    runs,
    rss: memory.end(),
    notes: [`seeded through POST /files at ${rate.toFixed(0)} files/s; ${expected} files match q=${QUERY}; ${median(runs.requestsPerSecond).toFixed(0)} req/s`],
  };
}

/**
 * The two server processes of the `two-*` scenarios (`--two-processes`), started on first use as
 * an operator scales out (docs/operations.md, "Worker processes"; issue 21): each `WORKERS=1` with a `DATA_DIR`
 * of its own, both on the run's database (on SQLite: the bench service's database file), one
 * blob directory (`BLOB_STORE_URL` when set) and one `JWT_SECRET`. The bench's own service is
 * stopped first, so that only these two serve and use the CPUs.
 */
async function twoServices() {
  twoServices.started ??= (async () => {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.endRss = treeRss(service.pid);
      await service.stop();
      log('  (the bench service is stopped: two processes of WORKERS=1 take over)');
    }
    const blobs = path.join(work, 'shared-blobs');
    await mkdir(blobs, { recursive: true });
    const env = {
      WORKERS: '1',
      DATABASE_URL: process.env.DATABASE_URL ?? `sqlite:${path.join(service.dataDir, 'hangar.db')}`,
      BLOB_STORE_URL: process.env.BLOB_STORE_URL ?? `file:${blobs}`,
      JWT_SECRET: randomBytes(32).toString('hex'),
    };
    const pair = [];
    for (const name of ['process-a', 'process-b']) {
      const one = await startService({ dataDir: path.join(work, name), env });
      cleanups.push(() => one.stop());
      pair.push(one);
      log(`  ${name}: pid ${one.pid}, API ${one.api}, content ${one.content}; resident memory ${(treeRss(one.pid) / MiB).toFixed(0)} MiB`);
    }
    return pair;
  })();
  return twoServices.started;
}

/**
 * One request scenario on the two processes of {@link twoServices}: the load of the one-process
 * scenario split in two halves, one load client per process at once, counted together (rates
 * summed, p99 the worse client's); the baselines likewise split over two bare servers (two
 * processes of `upload-server.mjs` / `download-server.mjs`), or for `auth` over the same two
 * processes' unauthenticated endpoint. CPU and memory are both processes'.
 * @param kind `upload-4k` | `read-4k` | `auth` | `list`
 */
async function twoProcessScenario(kind) {
  const pair = await twoServices();
  const pids = pair.map((one) => one.pid);
  const both = (make) => pair.map((one, index) => make(one, index));
  if (kind === 'upload-4k' || kind === 'read-4k') {
    const directory = path.join(work, `baseline-two-${kind}`);
    await mkdir(directory, { recursive: true });
    let serviceLoads;
    let baselineUrl;
    if (kind === 'upload-4k') {
      const load = { connections: 16, method: 'POST', bodyBytes: 4096 };
      serviceLoads = both((one) => ({
        ...load,
        url: `${one.api}/files`,
        headers: { 'x-api-key': main.key, 'content-type': 'image/png', 'x-file-name': 'small.png' },
      }));
      baselineUrl = (base) => ({ ...load, url: `${base}/` });
    } else {
      const bytes = withMagic(randomBytes(4096), 'image/png');
      await writeFile(path.join(directory, 'small.png'), bytes);
      const file = await uploadFile(pair[0], main.key, bytes, { contentType: 'image/png', name: 'small.png' });
      serviceLoads = both((one) => ({ connections: 32, url: `${one.content}/m/${file.file_id}` }));
      baselineUrl = (base) => ({ connections: 32, url: `${base}/small.png` });
    }
    const baselines = [];
    for (let i = 0; i < 2; i++) {
      const one = await startBaseline(kind === 'upload-4k' ? 'upload-server.mjs' : 'download-server.mjs', directory);
      cleanups.push(() => one.stop());
      baselines.push(one);
    }
    const measured = await alternate({
      baseline: baselines.map((one) => baselineUrl(one.url)),
      service: serviceLoads,
      figure: (result) => result.requestsPerSecond,
      pids,
    });
    for (const one of baselines) await one.stop();
    return measured;
  }
  if (kind === 'auth') {
    return alternate({
      baseline: both((one) => ({ connections: 16, url: `${one.api}/reference/allowed-content-types` })),
      service: both((one) => ({ connections: 16, url: `${one.api}/settings`, headers: { 'x-api-key': main.key } })),
      figure: (result) => result.requestsPerSecond,
      pids,
    });
  }
  // list: no baseline, the p99 of the worse client against the absolute target.
  const loads = both((one) => ({ connections: 16, url: `${one.api}/files?limit=30&q=${QUERY}`, headers: { 'x-api-key': listAccount.key } }));
  for (const one of pair) {
    const check = await call(one.api, `/files?limit=30&q=${QUERY}`, { headers: { 'x-api-key': listAccount.key } });
    if (check.status !== 200 || check.body.files.length !== 30) throw new Error(`list check on ${one.api}: ${check.status}`);
  }
  const memory = peakMemoryOfAll(pids);
  await loadAll(loads, settings.warmupSeconds);
  memory.start();
  const runs = { service: [], requestsPerSecond: [], serviceCpuUsPerRequest: [] };
  for (let run = 0; run < settings.loadPairs; run++) {
    const cpuBefore = cpuOfAll(pids);
    const result = await loadAll(loads, settings.loadSeconds);
    const cpu = ((cpuOfAll(pids) - cpuBefore) * 1000) / Math.max(1, result.ok + result.non2xx);
    runs.service.push(result.latencyMs.p99);
    runs.requestsPerSecond.push(result.requestsPerSecond);
    runs.serviceCpuUsPerRequest.push(cpu);
    log(
      `  run ${run + 1}: p99 ${result.latencyMs.p99} ms (clients ${result.clients.map((c) => c.p99).join(', ')}), p50 ${result.latencyMs.p50} ms, ${result.requestsPerSecond.toFixed(0)} req/s, ${cpu.toFixed(0)} µs CPU per request${problems(result)}`,
    );
  }
  return { runs, rss: memory.end(), notes: [`${median(runs.requestsPerSecond).toFixed(0)} req/s over both processes`] };
}

/** Both thumbnail figures come from one measurement (bench/scenarios/thumbnails.mjs); no baseline, no target. */
async function thumbnailFigures(which) {
  thumbnailFigures.run ??= thumbnails({ apiBase: service.api, apiKey: main.key, quick, contentBase: service.content });
  const measured = await thumbnailFigures.run;
  const perSecond = which === 'cold' ? measured.coldPerSecond : measured.cachedPerSecond;
  return {
    runs: { service: [perSecond] },
    notes:
      which === 'cold'
        ? [
            `${measured.cold} thumbnails computed, ${measured.cached} served from the cache; source ${(measured.sourceBytes / MiB).toFixed(1)} MiB, thumbnail ${(measured.thumbnailBytes / 1024).toFixed(0)} KiB`,
          ]
        : [],
  };
}

async function startup() {
  // Start to first answer, RSS and modules loaded, for one process and WORKERS=2 on an existing and
  // a fresh DATA_DIR (bench/scenarios/startup.mjs). The scenario's figure is the one-process start
  // on an existing DATA_DIR, against the bare node:http server started the same way; every case is
  // a note, and judged against its own target there.
  const { cases } = await measureStartup({ runs: settings.startupRuns, work, log });
  const main = cases.find((c) => c.id === 'one-existing');
  const notes = cases.map((c) => {
    const rss = rssSummary(c);
    const modules = c.modules.map((m) => `${m.esm}+${m.cjs}`).join(', ');
    return `${c.id}: ${c.medianMs.toFixed(0)} ms (bare node ${c.bareMedianMs.toFixed(0)} ms, ${c.ratio.toFixed(1)}×; target ${c.targetMs} ms), RSS MiB per process after start/idle→after 1,000 requests/idle ${rss} (bare ${c.bareRssMiB.toFixed(0)}; target ${RSS_TARGET_MIB} per worker), modules esm+cjs ${modules} (bare ${c.bareModules.esm}+${c.bareModules.cjs}) ${c.pass ? 'pass' : 'FAIL'}`;
  });
  return { runs: { service: main.ms, baseline: main.bareMs }, notes };
}

// ─── helpers ────────────────────────────────────────────────────────────────────────────────

/**
 * Runs autocannon against the baseline and the service in turn, `settings.loadPairs` times
 * (baseline, service, baseline, service, …) after a warm-up of each; tracks the service's peak RSS.
 * A side given as an array of loads runs them at once (one load client each) and counts them
 * together ({@link loadAll}); `pids` are the service processes whose CPU and memory are counted
 * (default: the bench's service and its workers); `baselinePids`, when the baseline is a service
 * too, the processes whose CPU per request is counted as `runs.baselineCpuUsPerRequest`, with the
 * work a run left running (an upload's media facts) counted as that run's on both sides.
 */
async function alternate({ baseline, service: serviceLoad, figure, pids = [service.pid], baselinePids }) {
  await loadAll(baseline, settings.warmupSeconds);
  await loadAll(serviceLoad, settings.warmupSeconds);
  await settled(baselinePids ? [...pids, ...baselinePids] : pids);
  const memory = peakMemoryOfAll(pids);
  memory.start();
  const runs = { service: [], baseline: [], serviceCpuUsPerRequest: [] };
  const notes = [];
  for (let pair = 0; pair < settings.loadPairs; pair++) {
    const baselineCpuBefore = baselinePids ? cpuOfAll(baselinePids) : 0;
    const b = await loadAll(baseline, settings.loadSeconds);
    if (baselinePids) {
      await settled(baselinePids);
      (runs.baselineCpuUsPerRequest ??= []).push(((cpuOfAll(baselinePids) - baselineCpuBefore) * 1000) / Math.max(1, b.ok + b.non2xx));
    }
    const cpuBefore = cpuOfAll(pids);
    const s = await loadAll(serviceLoad, settings.loadSeconds);
    // Work the load left running (the media facts of uploaded images, log batches) belongs to it.
    await settled(pids);
    const cpu = ((cpuOfAll(pids) - cpuBefore) * 1000) / Math.max(1, s.ok + s.non2xx);
    runs.baseline.push(figure(b));
    runs.service.push(figure(s));
    runs.serviceCpuUsPerRequest.push(cpu);
    log(
      `  pair ${pair + 1}: baseline ${b.requestsPerSecond.toFixed(0)} req/s (p99 ${b.latencyMs.p99} ms)${problems(b)}, service ${s.requestsPerSecond.toFixed(0)} req/s (p99 ${s.latencyMs.p99} ms, ${cpu.toFixed(0)} µs CPU per request)${problems(s)}`,
    );
    if (problems(b) || problems(s)) notes.push(`pair ${pair + 1}: baseline${problems(b) || ' ok'}, service${problems(s) || ' ok'}`);
  }
  return { runs, rss: memory.end(), notes };
}

/**
 * One load, or several at once (an array: one autocannon process each, started together), for
 * `duration` seconds. Several are counted together: requests and rates summed, latency
 * percentiles the worst of the clients' (their histograms are not merged, so p99 is an upper bound).
 */
async function loadAll(loads, duration) {
  if (!Array.isArray(loads)) return autocannon({ ...loads, duration });
  const results = await Promise.all(loads.map((one) => autocannon({ ...one, duration })));
  const sum = (field) => results.reduce((total, r) => total + (r[field] ?? 0), 0);
  const worst = (field) => Math.max(...results.map((r) => r.latencyMs[field]));
  return {
    requestsPerSecond: sum('requestsPerSecond'),
    ok: sum('ok'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    latencyMs: { p50: worst('p50'), p90: worst('p90'), p99: worst('p99'), max: worst('max') },
    clients: results.map((r) => ({ requestsPerSecond: r.requestsPerSecond, p99: r.latencyMs.p99 })),
  };
}

/** {@link peakMemoryTracker} of several service processes, their figures summed. */
function peakMemoryOfAll(pids) {
  const trackers = pids.map((pid) => peakMemoryTracker(pid));
  return {
    start: () => trackers.forEach((tracker) => tracker.start()),
    end() {
      const ends = trackers.map((tracker) => tracker.end());
      const total = (field) => ends.reduce((sum, one) => sum + one[field], 0);
      return { startRss: total('startRss'), peakRss: total('peakRss'), growth: total('growth'), method: ends[0].method };
    },
  };
}

/** Resident memory of a process and its descendants (the service's workers) now, in bytes. */
function treeRss(pid) {
  return processTree(pid).reduce((total, one) => {
    try {
      return total + memoryOf(one).rss;
    } catch {
      return total; // it ended meanwhile
    }
  }, 0);
}

function autocannon(options) {
  return runClient('autocannon.mjs', options);
}

function problems(result) {
  const parts = [];
  if (result.non2xx) parts.push(`${result.non2xx} non-2xx`);
  if (result.errors) parts.push(`${result.errors} errors`);
  if (result.timeouts) parts.push(`${result.timeouts} timeouts`);
  return parts.length ? ` [${parts.join(', ')}]` : '';
}

function expect201(result, what) {
  if (result.status !== 201) throw new Error(`${what}: ${result.status} ${JSON.stringify(result.answer)}`);
  return result;
}

function expectBytes(result, what) {
  if (result.status !== 200 || result.bytes !== settings.bigBytes) throw new Error(`${what}: ${result.status}, ${result.bytes} bytes`);
  return result;
}

/** The verdict of one scenario against its target. */
function judge(scenario, { runs, rss, notes = [] }) {
  const serviceFigure = median(runs.service);
  const baselineFigure = runs.baseline?.length ? median(runs.baseline) : undefined;
  const { target } = scenario;
  // Paired: each service run is compared with the baseline run just before it, and the ratio is the
  // median of those pair ratios, so a disk or CPU that is faster for a while weighs on both sides
  // of a pair instead of one side's median (bench/README.md, "How it measures").
  const paired = target.ratio !== undefined && runs.baseline?.length === runs.service.length;
  const pairRatios = paired ? runs.service.map((value, i) => value / runs.baseline[i]) : undefined;
  const ratio = target.ratio === undefined ? undefined : pairRatios ? median(pairRatios) : serviceFigure / baselineFigure;
  let pass = true;
  if (target.ratio !== undefined) pass &&= ratio >= target.ratio;
  if (target.maxValue !== undefined) pass &&= serviceFigure <= target.maxValue;
  if (target.rssMiB !== undefined) pass &&= rss !== undefined && rss.growth <= target.rssMiB * MiB;
  return {
    id: scenario.id,
    title: scenario.title,
    unit: scenario.unit,
    service: serviceFigure,
    baseline: baselineFigure,
    ratio,
    pairRatios,
    target,
    pass,
    rss: rss && { ...rss, growthMiB: rss.growth / MiB },
    runs,
    notes,
  };
}

function targetText(target) {
  const parts = [];
  if (target.ratio !== undefined) parts.push(`≥ ${target.ratio} × baseline`);
  if (target.maxValue !== undefined) parts.push(`${target.figure ?? ''}${target.figure ? ' ' : ''}≤ ${target.maxValue} ms`);
  if (target.rssMiB !== undefined) parts.push(`RSS growth ≤ ${target.rssMiB} MiB`);
  return parts.join(', ') || 'figure only';
}

async function deleteBenchAccounts() {
  // On an external database the bench's accounts would stay: delete them (with their files) through the admin CLI.
  // That keeps both CPUs busy for minutes at 100,000 files (bench/README.md, "Running one bench after another").
  log(`deleting the bench's accounts (${createdAccounts.length}); the machine is busy until this process exits`);
  for (const email of createdAccounts) {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/apps/cli/main.js'), 'users', 'delete', email, '--yes'], {
      cwd: ROOT,
      env: serviceEnvironment({ dataDir: path.join(work, 'service'), port: 0, contentPort: 0 }),
      stdio: 'inherit',
    });
    await once(child, 'exit');
  }
}

/**
 * `--s3rver`: starts s3rver (a devDependency, an S3-compatible server in JavaScript) as its own
 * process on a free port, over a directory of the work directory, and points the service at it:
 * BLOB_STORE_URL=s3://hangar-bench/bench with path-style addressing, s3rver's keys, and
 * S3_IF_NONE_MATCH=false (s3rver ignores conditional writes; docs/s3.md).
 */
async function startS3rver() {
  const port = await freePort();
  const directory = path.join(work, 's3rver');
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules/s3rver/bin/s3rver.js'), '-d', directory, '-a', '127.0.0.1', '-p', String(port), '-s', '--configure-bucket', 'hangar-bench'],
    { stdio: 'ignore' },
  );
  cleanups.push(async () => {
    child.kill();
    await once(child, 'exit').catch(() => undefined);
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await fetch(url);
      break;
    } catch {
      if (attempt > 100) throw new Error('s3rver did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  Object.assign(process.env, {
    BLOB_STORE_URL: 's3://hangar-bench/bench',
    S3_ENDPOINT: url,
    S3_FORCE_PATH_STYLE: 'true',
    S3_IF_NONE_MATCH: 'false',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  });
  log(`s3rver pid ${child.pid} at ${url}`);
}
