// Profiles the service under load on one endpoint alone: starts it with `node --cpu-prof`, makes a
// confirmed account with an API key, runs autocannon for a few seconds, stops it and prints the
// profile's summary. For finding where one scenario's CPU goes (bench/README.md, "Profiles").
// Usage: node bench/tools/profile-endpoint.mjs <path> [seconds=5] [connections=32] [method=GET] [bodyBytes] [contentType]
//   e.g. node bench/tools/profile-endpoint.mjs /settings
//        node bench/tools/profile-endpoint.mjs /files 5 32 POST 4096 image/png
//        SEED_FILES=10000 node bench/tools/profile-endpoint.mjs '/files?limit=30&q=saffron'   (files named like the bench's list scenario)
//        node bench/tools/profile-endpoint.mjs content:/m/:id   (the content server; :id is a 4 KiB PNG uploaded first, as read-4k reads)
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import pg from 'pg';
import path from 'node:path';
import { createAccount, seedFiles, uploadFile } from '../lib/api.mjs';
import { withMagic } from '../lib/magic.mjs';
import { BENCH, cpuTimeOf, cpuTimeOfCommand, processTree, runClient, settled, startService, threadCpuOf } from '../lib/processes.mjs';

const [endpoint = '/settings', seconds = '5', connections = '32', method = 'GET', bodyBytes, contentType = 'application/octet-stream'] = process.argv.slice(2);
const work = await mkdtemp(path.join(os.tmpdir(), 'hangar-profile-'));
const profiles = path.join(work, 'profiles');
// NO_CPU_PROF=1: without the profiler (its sampling costs CPU too), for the per-thread figures alone.
const profiling = !process.env.NO_CPU_PROF;
// One process (WORKERS=1) unless WORKERS is set: the profile and the thread figures are of one event loop.
const service = await startService({
  dataDir: path.join(work, 'service'),
  nodeArgs: profiling ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [],
  env: { WORKERS: process.env.WORKERS ?? '1' },
});
try {
  const account = await createAccount(service, 'profile');
  const WORDS = ['harbor', 'meadow', 'granite', 'lantern', 'orchid', 'compass', 'velvet', 'thistle', 'quarry', 'saffron'];
  const seed = Number(process.env.SEED_FILES ?? 0);
  if (seed > 0) await seedFiles(service, account.key, { count: seed, nameOf: (i) => `${WORDS[i % WORDS.length]}-${String(i).padStart(6, '0')}.jpg` });
  // The media facts of the seeded images are computed in the background after each upload: wait for
  // that work to end, as bench/run.mjs does, so that it is not profiled as the endpoint's.
  if (seed > 0 && !(await settled([service.pid], 600_000))) console.log('the service was still busy 10 min after the seeding; profiling anyway');
  if (seed > 0 && /^postgres(ql)?:/i.test(process.env.DATABASE_URL ?? '')) {
    // Planner statistics for the new rows, as the bench gathers them (bench/run.mjs, and autovacuum within a minute).
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query('analyze files').finally(() => client.end());
  }
  const content = endpoint.startsWith('content:');
  const file = content ? await uploadFile(service, account.key, withMagic(Buffer.alloc(4096, 7), 'image/png')) : undefined;
  const options = {
    connections: Number(connections),
    url: content ? `${service.content}${endpoint.slice('content:'.length).replace(':id', file.file_id)}` : `${service.api}${endpoint}`,
    method,
    headers: { 'x-api-key': account.key, ...(bodyBytes ? { 'content-type': contentType, 'x-file-name': 'profile.bin' } : {}) },
    ...(bodyBytes ? { bodyBytes: Number(bodyBytes) } : {}),
  };
  await runClient('autocannon.mjs', { ...options, duration: 2 });
  const cpu = cpuTimeOf(service.pid);
  const databaseCpu = cpuTimeOfCommand('postgres');
  // Per process (with WORKERS > 1: the supervisor and each worker), thread by thread.
  const pids = processTree(service.pid);
  const threadsBefore = new Map(pids.map((pid) => [pid, threadCpuOf(pid)]));
  const result = await runClient('autocannon.mjs', { ...options, duration: Number(seconds) });
  const requests = Math.max(1, result.ok + result.non2xx);
  const perRequest = ((cpuTimeOf(service.pid) - cpu) * 1000) / requests;
  // Postgres on this machine: its processes' CPU over the same time (0 on SQLite, or a remote server).
  const databasePerRequest = ((cpuTimeOfCommand('postgres') - databaseCpu) * 1000) / requests;
  console.log(
    `${endpoint}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.latencyMs.p99} ms, ${perRequest.toFixed(0)} µs CPU per request, ${result.non2xx} non-2xx`,
  );
  if (databasePerRequest > 0) console.log(`  postgres processes: ${databasePerRequest.toFixed(0)} µs CPU per request`);
  // Where that CPU went, thread by thread (µs per request, user + system).
  for (const pid of pids) {
    if (pids.length > 1) console.log(`  process ${pid}${pid === service.pid ? ' (supervisor)' : ''}`);
    for (const [name, after] of threadCpuOf(pid)) {
      const before = threadsBefore.get(pid).get(name) ?? { user: 0, system: 0 };
      const user = ((after.user - before.user) * 1000) / requests;
      const system = ((after.system - before.system) * 1000) / requests;
      if (user + system > 0) console.log(`  ${name.padEnd(16)} ×${after.threads}: ${user.toFixed(0)} µs user + ${system.toFixed(0)} µs system per request`);
    }
  }
} finally {
  await service.stop();
}
const [file] = profiling ? await readdir(profiles) : [];
if (file)
  console.log(
    execFileSync(process.execPath, [path.join(BENCH, 'tools/profile-summary.mjs'), path.join(profiles, file), '45', '', `--last=${seconds}`], {
      encoding: 'utf8',
    }),
  );
if (!process.env.KEEP_PROFILE) await rm(work, { recursive: true, force: true });
else console.log(work);
