import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileAndSqliteBlobStore } from '../../adapters/blobs/file-and-sqlite-blob-store.js';
import { collect, sha256 } from '../contracts/blob-store.contract.js';
import { randomFileOf } from '../support/bytes.js';
import { CLI_MAIN, runCli } from '../support/cli-process.js';
import { FakeS3Server, operationOf } from '../support/fake-s3-server.js';
import { signUpWithKey, startTestServer, upload } from '../support/http-harness.js';
import { S3RVER_CREDENTIALS } from '../support/s3-test-server.js';

const MiB = 1024 * 1024;

describe('admin CLI: blobs copy --to (docs/s3.md)', function () {
  this.timeout(60_000);
  const bucket = 'hangar-target';
  let dir: string;
  let fake: FakeS3Server;
  /** What the uploads stored: blob key → SHA-256 and size. */
  const uploaded = new Map<string, { sha256: string; size: number }>();
  /** The CLI's environment: the source installation (SQLite, local disk) and the S3 target's variables. */
  let env: Record<string, string>;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hangar-blobs-copy-'));
    const dataDir = path.join(dir, 'data');
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}`,
      BLOB_STORE_URL: `file:${path.join(dataDir, 'blobs')}`,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PART_SIZE_BYTES: String(5 * MiB),
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      // The SDK's notice that its 2027 releases need Node 22 is not what these tests read on stderr.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    // Small blobs (rows of small-blobs.db), files, and one of several parts (a multipart upload in the target).
    const server = await startTestServer(
      { DATABASE_URL: env.DATABASE_URL, BLOB_STORE_URL: env.BLOB_STORE_URL, DEFAULT_MAX_UPLOAD_SIZE_BYTES: String(16 * MiB) },
      {},
      { dataDir },
    );
    try {
      const { apiKey, userId } = await signUpWithKey(server, 'copy@example.com');
      const sizes = [...Array.from({ length: 12 }, (_, i) => 1_000 + i * 20_000), 300_000, 11 * MiB + 3];
      for (const [i, size] of sizes.entries()) {
        const bytes = randomFileOf(size, 'application/zip', i + 1);
        const result = await upload(server, apiKey, bytes, { name: `f${i}.zip`, contentType: 'application/zip' });
        expect(result.status, JSON.stringify(result.body)).to.equal(201);
        uploaded.set(`${userId}/${result.body.file.file_id}`, { sha256: sha256(bytes), size });
      }
    } finally {
      await server.stop();
    }
    fake = await new FakeS3Server([bucket]).start();
    env.S3_ENDPOINT = fake.url;
  });
  after(async () => {
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies every blob to s3://, is killed part-way, resumes without copying twice, and every object is verified', async () => {
    const target = `s3://${bucket}/moved`;
    // The 6th create hangs: the first run is killed there, with 5 objects stored and one in flight.
    fake.hang((r) => (operationOf(r) === 'PutObject' || operationOf(r) === 'CreateMultipartUpload') && fake.objectKeys(bucket).length >= 5);
    const first = spawn(process.execPath, [CLI_MAIN, 'blobs', 'copy', '--to', target, '--concurrency', '1'], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => first.on('close', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!(fake.objectKeys(bucket).length === 5 && fake.requests.length > 0 && hungCreates(fake) > 0)) {
      if (Date.now() > deadline) expect.fail('the first run never reached its sixth create');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.kill('SIGKILL');
    expect(await exited).to.equal(null);
    expect(fake.objectKeys(bucket)).to.have.length(5);
    fake.heal();

    const resumed = await runCli(['blobs', 'copy', '--to', target], env);
    expect(resumed.code, resumed.stdout + resumed.stderr).to.equal(0);
    expect(resumed.stdout).to.contain(`${uploaded.size} file records`);
    expect(resumed.stdout).to.contain(`copied and verified: ${uploaded.size - 5}`);
    expect(resumed.stdout).to.contain('already in the target, verified: 5');
    expect(resumed.stdout).to.contain(`set BLOB_STORE_URL=${target}`);
    // Not a terminal: progress as whole lines on stderr, the last one at 100 %.
    expect(resumed.stderr.trim().split('\n').pop()).to.match(
      new RegExp(`^blobs copy: ${uploaded.size}/${uploaded.size} files, .* \\(100%\\): ${uploaded.size - 5} copied, 5 already there, 0 not copied$`),
    );

    expect(fake.objectKeys(bucket)).to.deep.equal([...uploaded.keys()].map((key) => `moved/${key}`).sort());
    for (const [key, known] of uploaded) {
      const object = fake.object(bucket, `moved/${key}`)!;
      expect({ sha256: sha256(object.bytes), size: object.bytes.length }, key).to.deep.equal(known);
      expect(object.contentType).to.equal('application/zip');
    }
    expect(
      fake.requests.filter((r) => operationOf(r) === 'CompleteMultipartUpload'),
      'the large blob went as a multipart upload',
    ).to.have.length(1);

    // Switched over: fsck on the S3 store finds every record's blob.
    const fsck = await runCli(['fsck', '--grace-seconds', '0', '--json'], { ...env, BLOB_STORE_URL: target });
    expect(fsck.code, fsck.stdout + fsck.stderr).to.equal(0);
    expect(JSON.parse(fsck.stdout)).to.deep.include({ clean: true, blobsChecked: uploaded.size, recordsChecked: uploaded.size });

    // A third run copies nothing and verifies everything.
    const again = await runCli(['blobs', 'copy', '--to', target], env);
    expect(again.code).to.equal(0);
    expect(again.stdout).to.contain(`already in the target, verified: ${uploaded.size}`);
  });

  it('copies to file:, and refuses to keep a target blob whose bytes differ from the record (exit 1, reported, left alone)', async () => {
    const targetDir = path.join(dir, 'other-blobs');
    const [damagedKey] = uploaded.keys();
    const store = new FileAndSqliteBlobStore({ directory: targetDir });
    await store.put({
      key: damagedKey,
      body: (async function* () {
        yield Buffer.from('not the bytes');
      })(),
      contentType: 'application/zip',
      maxBytes: 100,
    });
    await store.close?.();

    const result = await runCli(['blobs', 'copy', '--to', `file:${targetDir}`], env);
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stdout).to.contain(`copied and verified: ${uploaded.size - 1}`);
    expect(result.stdout).to.match(new RegExp(`not copied: 1\\n    file \\w+ \\(blob ${damagedKey}\\): the target holds different bytes`));
    expect(result.stdout).to.contain('problems remain');

    const reopened = new FileAndSqliteBlobStore({ directory: targetDir });
    try {
      expect((await collect((await reopened.get(damagedKey))!)).toString()).to.equal('not the bytes');
      for (const [key, known] of uploaded) {
        if (key === damagedKey) continue;
        const bytes = await collect((await reopened.get(key))!);
        expect({ sha256: sha256(bytes), size: bytes.length }, key).to.deep.equal(known);
      }
    } finally {
      await reopened.close?.();
    }
  });

  it('refuses a missing or unsupported --to with a usage error or a refusal', async () => {
    const missing = await runCli(['blobs', 'copy'], env);
    expect(missing.code).to.equal(64);
    expect(missing.stderr).to.contain('--to');
    const unsupported = await runCli(['blobs', 'copy', '--to', 'ftp://host/dir'], env);
    expect(unsupported.code).to.equal(1);
    expect(unsupported.stderr).to.contain('--to: unsupported "ftp:"');
    const help = await runCli(['help'], env);
    expect(help.stdout).to.contain('blobs copy --to <s3://bucket/prefix|gs://bucket/prefix|file:dir> [--concurrency N]');
  });
});

/** Creates (PutObject, CreateMultipartUpload) the fake took after the fifth object: the ones it left hanging. */
function hungCreates(fake: FakeS3Server): number {
  const creates = fake.requests.filter((r) => operationOf(r) === 'PutObject' || operationOf(r) === 'CreateMultipartUpload');
  return Math.max(0, creates.length - 5);
}
