import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { postgresConnectionString } from '../../adapters/persistence/postgres/postgres-database.js';
import type { ServerProcess } from '../support/server-process.js';
import { createTestSchema, testDatabaseUrl, type TestSchema } from '../support/test-database.js';
import { S3RVER_CREDENTIALS, type S3TestServer, startS3TestServer } from '../support/s3-test-server.js';
import {
  aBody,
  anAccount,
  checkSqlite,
  download,
  filesUnder,
  killServer,
  listAllFiles,
  LONG,
  runCli,
  serverEnv,
  sha256,
  startServer,
  tryFetch,
  tryUpload,
} from './harness.js';

/**
 * The crash harness (docs/reliability.md): a workload of uploads, deletes and bulk deletes against the
 * server as its own process, killed with SIGKILL at each failpoint and at random times, started
 * again over the same DATA_DIR, and checked after every restart:
 * - every acknowledged upload (201) reads back byte-identical, every acknowledged delete stays gone;
 * - every unacknowledged upload is wholly present (byte-identical) or wholly absent;
 * - an unacknowledged delete either happened or not, never half (a listed file always reads back);
 * - no record appears that the workload did not create;
 * - with the server down: `PRAGMA integrity_check` is ok and `files_count`/`storage_bytes` equal the
 *   sum over the records;
 * - no response is a 500.
 * At the end `fsck --repair` removes the orphans the kills left, and a second `fsck` finds none.
 */

/** Kills at each failpoint (each is a round of its own) and at random times. */
const FAILPOINTS = ['after_blob_before_record', 'after_record_before_response', 'after_records_deleted_before_blobs', 'before_blob_link'] as const;
const ROUNDS_PER_FAILPOINT = LONG ? 15 : 2;
const RANDOM_KILLS = LONG ? 150 : 12;
/** On Postgres (npm run test:long with TEST_DATABASE_URL only): fewer rounds, the same checks. */
const POSTGRES_ROUNDS_PER_FAILPOINT = 3;
const POSTGRES_RANDOM_KILLS = 28;
/** With blobs on S3 (s3rver): the failpoints the S3 store reaches (before_blob_link is the local disk's), once each, and a few random kills. */
const S3_FAILPOINTS = FAILPOINTS.filter((name) => name !== 'before_blob_link');
const S3_RANDOM_KILLS = LONG ? 40 : 4;
/**
 * When a random kill comes, ms after the round's server answers: from `first`, over `spread`. On S3
 * each upload is several requests to s3rver, so its rounds run longer for about as many answered
 * requests as on the local disk (with 30–630 ms, 7 kills acknowledged 7–10 uploads in CI).
 */
const RANDOM_KILL_WINDOW = { 'local disk': { first: 30, spread: 600 }, S3: { first: 200, spread: 1_500 } } as const;
/**
 * The last random round's kill waits, after its random time, until the run has had an upload and a
 * delete answered, for at most this long (ms): on a slow machine all of a run's deletes could
 * otherwise be cut short (seen on S3: 7 kills, 9 deletes in flight, none answered), and the run
 * would check no acknowledged delete at all.
 */
const REAL_WORK_WAIT_MS = 15_000;
/** Requests in flight at once. */
const WORKERS = 4;
/** A failpoint round that has not killed the server after this long is killed by the test (counted apart). */
const FAILPOINT_ROUND_LIMIT_MS = 5_000;

interface Known {
  sha256: string;
  size: number;
  name: string;
}

/** What the test knows about the account's files: acknowledged, uncertain (no answer came) and deleted. */
class Model {
  readonly acknowledged = new Map<string, Known>();
  readonly deleted = new Set<string>();
  /** Uploads that got no answer, by file name. */
  readonly uncertainUploads = new Map<string, Known>();
  /** Deletes that got no answer (the files, by file id). */
  readonly uncertainDeletes = new Map<string, Known>();
  /** Files taken by a worker for deletion (not offered to others). */
  readonly busy = new Set<string>();
  readonly counts = {
    uploadsAcknowledged: 0,
    uploadsUncertain: 0,
    uncertainUploadsPresent: 0,
    deletesAcknowledged: 0,
    deletesUncertain: 0,
    uncertainDeletesDone: 0,
    filesVerified: 0,
    statuses500: 0,
  };
}

describeCrashHarness('SQLite', ROUNDS_PER_FAILPOINT, RANDOM_KILLS);
if (LONG && testDatabaseUrl() !== undefined) describeCrashHarness('Postgres', POSTGRES_ROUNDS_PER_FAILPOINT, POSTGRES_RANDOM_KILLS);
describeCrashHarness('SQLite', 1, S3_RANDOM_KILLS, 'S3');

/** `blobs`: the local disk under DATA_DIR, or an S3 bucket on s3rver (started by the test, outliving every server kill). */
function describeCrashHarness(
  database: 'SQLite' | 'Postgres',
  roundsPerFailpoint: number,
  randomKills: number,
  blobs: 'local disk' | 'S3' = 'local disk',
): void {
  const failpoints = blobs === 'S3' ? S3_FAILPOINTS : FAILPOINTS;
  describe(`crash safety on ${database}${blobs === 'S3' ? ' with blobs on S3 (s3rver)' : ''}: SIGKILL at every failpoint and at random times (docs/reliability.md)`, function () {
    this.timeout(LONG ? 3_600_000 : 180_000);
    let dataDir: string;
    let server: ServerProcess | undefined;
    let schema: TestSchema | undefined;
    let s3: S3TestServer | undefined;
    /** The environment every start and CLI run gets on top of serverEnv: the Postgres schema, when on Postgres. */
    let databaseEnv: Record<string, string> = {};

    before(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'hangar-crash-'));
      if (database === 'Postgres') {
        schema = await createTestSchema(testDatabaseUrl()!);
        databaseEnv = { DATABASE_URL: schema.url };
      }
      if (blobs === 'S3') {
        s3 = await startS3TestServer(['hangar-crash']);
        databaseEnv = {
          ...databaseEnv,
          BLOB_STORE_URL: 's3://hangar-crash/blobs',
          S3_ENDPOINT: s3.url,
          S3_FORCE_PATH_STYLE: 'true',
          // s3rver ignores If-None-Match (docs/s3.md).
          S3_IF_NONE_MATCH: 'false',
          AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
          // The SDK's notice that its 2027 releases need Node 22 would be the CLI's only stderr output.
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        };
      }
    });
    after(async () => {
      if (server) await killServer(server);
      await schema?.drop();
      await s3?.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    /** The database checks of each round, with the server down. */
    const checkDatabase = async (): Promise<{ files: number; bytes: number }> =>
      database === 'SQLite' ? checkSqlite(path.join(dataDir, 'hangar.db')) : checkPostgres(schema!.url);

    it(`loses nothing acknowledged over ${failpoints.length * roundsPerFailpoint + randomKills} kills (${failpoints.length}×${roundsPerFailpoint} at failpoints, ${randomKills} at random times)`, async () => {
      const started = Date.now();
      server = await startServer(dataDir, databaseEnv);
      const { apiKey } = await anAccount(server, dataDir, 'crash@example.com');
      await killServer(server);
      server = undefined;

      const model = new Model();
      const rounds: Array<{ kind: 'failpoint'; name: string } | { kind: 'random' }> = [
        ...failpoints.flatMap((name) => Array.from({ length: roundsPerFailpoint }, () => ({ kind: 'failpoint' as const, name }))),
        ...Array.from({ length: randomKills }, () => ({ kind: 'random' as const })),
      ];
      // Interleaved, so each failpoint round starts from the state random kills left, and vice versa.
      rounds.sort(() => Math.random() - 0.5);
      const kills = { failpoint: 0, random: 0, failpointNotReached: 0 };
      const lastRandom = rounds.findLastIndex((round) => round.kind === 'random');
      const realWorkSeen = () => model.counts.uploadsAcknowledged > 0 && model.counts.deletesAcknowledged > 0;

      for (const [index, round] of rounds.entries()) {
        server = await startServer(dataDir, round.kind === 'failpoint' ? { ...databaseEnv, HANGAR_FAILPOINTS: round.name } : databaseEnv);
        await verify(server, apiKey, model);
        const stopAt = round.kind === 'random' ? RANDOM_KILL_WINDOW[blobs].first + Math.random() * RANDOM_KILL_WINDOW[blobs].spread : FAILPOINT_ROUND_LIMIT_MS;
        const running = server;
        let killedByTest = false;
        const waitUntil = index === lastRandom ? Date.now() + stopAt + REAL_WORK_WAIT_MS : 0;
        const kill = () => {
          if (!realWorkSeen() && Date.now() < waitUntil) {
            timer = setTimeout(kill, 20);
            return;
          }
          killedByTest = true;
          running.child.kill('SIGKILL');
        };
        let timer = setTimeout(kill, stopAt);
        await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(running, apiKey, model, `r${index}w${w}`)));
        clearTimeout(timer);
        await killServer(running);
        expect(running.child.signalCode, 'the server died of SIGKILL').to.equal('SIGKILL');
        server = undefined;
        if (round.kind === 'random') kills.random++;
        else if (killedByTest) kills.failpointNotReached++;
        else kills.failpoint++;
        await checkDatabase();
      }
      expect(kills.failpointNotReached, 'failpoint rounds where the failpoint was never reached').to.equal(0);

      // After the last kill: start once more, check everything, stop cleanly, then reconcile.
      server = await startServer(dataDir, databaseEnv);
      await verify(server, apiKey, model);
      expect(await server.stop()).to.equal(0);
      server = undefined;
      const totals = await checkDatabase();

      const env = serverEnv(dataDir, databaseEnv);
      const repaired = await runCli(['fsck', '--repair', '--grace-seconds', '0', '--json'], env);
      expect(repaired.stderr).to.equal('');
      expect(repaired.code, repaired.stdout).to.equal(0);
      const repairReport = JSON.parse(repaired.stdout);
      expect(repairReport.recordsWithoutBlob.count).to.equal(0);
      expect(repairReport.sizeMismatches.count).to.equal(0);
      const again = await runCli(['fsck', '--grace-seconds', '0', '--json'], env);
      expect(again.code, again.stdout).to.equal(0);
      const clean = JSON.parse(again.stdout);
      expect(clean).to.deep.include({ clean: true, blobsChecked: totals.files, recordsChecked: totals.files });
      expect(clean.orphanBlobs.count).to.equal(0);
      expect(await filesUnder(path.join(dataDir, 'blobs', '.tmp'))).to.deep.equal([]);
      expect(model.counts.statuses500, 'responses with status 500').to.equal(0);

      const summary = {
        kills: rounds.length,
        ...kills,
        ...model.counts,
        orphanBlobsRemovedByFsck: repairReport.orphanBlobs.count,
        tempFilesRemovedByFsck: repairReport.tempFilesRemoved,
        filesAtEnd: totals.files,
        bytesAtEnd: totals.bytes,
        seconds: Math.round((Date.now() - started) / 1000),
      };
      process.stdout.write(`      crash harness (${database}, ${blobs}): ${JSON.stringify(summary)}\n`);
      // The kills met real work, however fast or slow the machine: files were stored and found again
      // after kills, deletes were answered (the last random kill waits for one, REAL_WORK_WAIT_MS),
      // and kills cut requests short.
      expect(model.counts.uploadsAcknowledged, 'uploads acknowledged').to.be.greaterThan(0);
      expect(model.counts.filesVerified, 'files read back after a kill').to.be.greaterThan(0);
      expect(model.counts.deletesAcknowledged, 'deletes acknowledged').to.be.greaterThan(0);
      expect(model.counts.uploadsUncertain + model.counts.deletesUncertain, 'requests cut short by a kill').to.be.greaterThan(0);
    });
  });
}

/**
 * With the servers down: every account's `files_count` / `storage_bytes` in Postgres equal the
 * count and sum over its records. Returns the totals checked.
 */
async function checkPostgres(url: string): Promise<{ files: number; bytes: number }> {
  const client = new pg.Client({ connectionString: postgresConnectionString(url) });
  await client.connect();
  try {
    const mismatched = await client.query(
      `select t.user_id from account_totals t left join (select user_id, count(*) as n, sum(size) as bytes from files group by user_id) f on f.user_id = t.user_id
        where t.files_count != coalesce(f.n, 0) or t.storage_bytes != coalesce(f.bytes, 0)`,
    );
    expect(mismatched.rows, 'account_totals that differ from the sum over the records').to.deep.equal([]);
    const { rows } = await client.query('select count(*)::int as files, coalesce(sum(size), 0)::bigint as bytes from files');
    return { files: rows[0].files, bytes: Number(rows[0].bytes) };
  } finally {
    await client.end();
  }
}

/** One worker: uploads, deletes and bulk deletes until the server stops answering. */
async function worker(server: ServerProcess, apiKey: string, model: Model, prefix: string): Promise<void> {
  for (let n = 0; n < 10_000; n++) {
    const roll = Math.random();
    const candidates = [...model.acknowledged.keys()].filter((id) => !model.busy.has(id));
    let answered: boolean;
    if (roll < 0.6 || candidates.length < 4) answered = await uploadOne(server, apiKey, model, `${prefix}n${n}`);
    else if (roll < 0.85) answered = await deleteSome(server, apiKey, model, [pick(candidates)]);
    else answered = await deleteSome(server, apiKey, model, pickSome(candidates, 2 + Math.floor(Math.random() * 3)));
    if (!answered) return;
  }
}

/** Sizes: mostly small, some over one 256 KiB write batch, a few of several MiB. */
function aSize(): number {
  const roll = Math.random();
  if (roll < 0.7) return 1 + Math.floor(Math.random() * 64 * 1024);
  if (roll < 0.95) return 64 * 1024 + Math.floor(Math.random() * 700 * 1024);
  return 1024 * 1024 + Math.floor(Math.random() * 2 * 1024 * 1024);
}

async function uploadOne(server: ServerProcess, apiKey: string, model: Model, name: string): Promise<boolean> {
  const body = aBody(aSize());
  const known = { sha256: sha256(body), size: body.length, name };
  const result = await tryUpload(server.api, apiKey, body, name);
  if (!result) {
    model.uncertainUploads.set(name, known);
    model.counts.uploadsUncertain++;
    return false;
  }
  if (result.status >= 500) model.counts.statuses500 += result.status === 500 ? 1 : 0;
  expect(result.status, JSON.stringify(result.body)).to.equal(201);
  expect(result.body.file.size).to.equal(body.length);
  model.acknowledged.set(result.body.file.file_id, known);
  model.counts.uploadsAcknowledged++;
  return true;
}

async function deleteSome(server: ServerProcess, apiKey: string, model: Model, ids: string[]): Promise<boolean> {
  ids.forEach((id) => model.busy.add(id));
  try {
    const bulk = ids.length > 1;
    const result = bulk
      ? await tryFetch(`${server.api}/files/bulk-delete`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ ids }),
        })
      : await tryFetch(`${server.api}/files/${ids[0]}`, { method: 'DELETE', headers: { 'x-api-key': apiKey } });
    if (!result) {
      for (const id of ids) {
        model.uncertainDeletes.set(id, model.acknowledged.get(id)!);
        model.acknowledged.delete(id);
        model.counts.deletesUncertain++;
      }
      return false;
    }
    if (result.status === 500) model.counts.statuses500++;
    expect(result.status, JSON.stringify(result.body)).to.equal(bulk ? 200 : 204);
    if (bulk) expect(result.body).to.deep.equal({ deleted: ids.length, errors: [] });
    for (const id of ids) {
      model.acknowledged.delete(id);
      model.deleted.add(id);
      model.counts.deletesAcknowledged++;
    }
    return true;
  } finally {
    ids.forEach((id) => model.busy.delete(id));
  }
}

/** After a restart: the server's files are exactly what the model allows, and each reads back byte-identical. */
async function verify(server: ServerProcess, apiKey: string, model: Model): Promise<void> {
  const listed = new Map((await listAllFiles(server.api, apiKey)).map((file) => [file.file_id, file]));
  const byName = new Map<string, string[]>();
  for (const file of listed.values()) byName.set(file.name ?? '', [...(byName.get(file.name ?? '') ?? []), file.file_id]);

  // Unacknowledged uploads: wholly present (once, byte-identical) or wholly absent.
  for (const [name, known] of model.uncertainUploads) {
    const ids = byName.get(name) ?? [];
    expect(ids.length, `copies of unacknowledged upload ${name}`).to.be.at.most(1);
    if (ids.length === 1) {
      model.acknowledged.set(ids[0], known);
      model.counts.uncertainUploadsPresent++;
    }
  }
  model.uncertainUploads.clear();
  // Unacknowledged deletes: done (gone) or not done (the file whole).
  for (const [id, known] of model.uncertainDeletes) {
    if (listed.has(id)) model.acknowledged.set(id, known);
    else {
      model.deleted.add(id);
      model.counts.uncertainDeletesDone++;
    }
  }
  model.uncertainDeletes.clear();

  for (const id of listed.keys()) expect(model.acknowledged.has(id), `listed file ${id} the workload never stored`).to.equal(true);
  const checks = [...model.acknowledged].map(([id, known]) => async () => {
    expect(listed.has(id), `acknowledged file ${id} (${known.name}) is listed`).to.equal(true);
    expect(listed.get(id)!.size).to.equal(known.size);
    const read = await download(server.content, id);
    expect(read, `acknowledged file ${id} (${known.name}) reads back`).to.deep.equal({ status: 200, sha256: known.sha256, size: known.size });
    model.counts.filesVerified++;
  });
  // Deleted files stay gone (a sample: all of them would grow with the run).
  const deleted = [...model.deleted].slice(-20).map((id) => async () => {
    expect(listed.has(id), `deleted file ${id} is not listed`).to.equal(false);
    expect((await download(server.content, id)).status).to.equal(404);
  });
  const all = [...checks, ...deleted];
  for (let i = 0; i < all.length; i += 8) await Promise.all(all.slice(i, i + 8).map((check) => check()));
}

function pick<T>(items: T[]): T {
  return items[Math.floor(Math.random() * items.length)];
}

function pickSome<T>(items: T[], count: number): T[] {
  const chosen = new Set<T>();
  while (chosen.size < Math.min(count, items.length)) chosen.add(pick(items));
  return [...chosen];
}
