import { isDomainError } from '../../core/shared/errors.js';
import { type Config, ConfigError, loadConfig, withEnvFile } from '../server/config.js';
import { buildContainer, RootTokens } from '../server/container.js';
import { createLogger } from '../server/logging.js';
import { readBuildInfo, versionLine } from '../http/build-info.js';
import { Tokens } from '../server/tokens.js';
import { UsageError } from './arguments.js';
import { type Invocation, parseInvocation, ProblemsFound, Refusal, usageText } from './commands.js';
import { findHangarDatabase, noDatabaseMessage } from './database-check.js';
import { redactPostgresUrl } from '../../adapters/persistence/postgres/postgres-url.js';

// Entry point of the admin CLI: `hangar <command>` (bin/hangar.mjs) or `npm run cli -- <command>`
// in a checkout (see usageText(), docs/operations.md "Admin CLI" and docs/deployment.md).

/** Exit statuses (the last two from BSD sysexits.h). */
const Exit = {
  ok: 0,
  /** A DomainError (unknown account or plan, invalid e-mail…), a Refusal (delete without --yes), or fsck found problems. */
  refused: 1,
  /** ConfigError, as for the server. */
  invalidConfiguration: 2,
  /** EX_USAGE: unknown command or option, missing argument, unparsable value. */
  usage: 64,
  /** EX_SOFTWARE: anything unexpected (a bug, an unreadable database). */
  internal: 70,
} as const;

/**
 * Runs one command line against the configured database and blob store; always drains mail and
 * closes the database before returning. Standalone commands (`db copy`) open what they name instead.
 * Every command but `init` (and `restore`, which checks its own target) first refuses a database
 * that does not exist or holds no Hangar schema (exit 1, apps/cli/database-check.ts).
 * @returns the exit status (see {@link Exit})
 */
async function main(argv: readonly string[]): Promise<number> {
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const usage = error.usageLine === undefined ? '' : `\nusage: hangar ${error.usageLine}`;
    await print(process.stderr, `hangar: ${error.message}${usage}\nRun "hangar help" for the list of commands.`);
    return Exit.usage;
  }
  if (invocation.kind === 'version') {
    await print(process.stdout, versionLine(readBuildInfo()));
    return Exit.ok;
  }
  if (invocation.kind === 'help') {
    await print(process.stdout, usageText());
    return Exit.ok;
  }
  if (invocation.kind === 'standalone') return runStandalone(invocation);

  let config: Config;
  try {
    config = loadConfig(withEnvFile(process.env));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    await print(process.stderr, `hangar: invalid configuration: ${error.message}`);
    return Exit.invalidConfiguration;
  }

  if (invocation.kind === 'configured') {
    const run = invocation.run;
    return runStandalone({ name: invocation.name, run: () => run(config) });
  }
  // Before anything is opened (opening creates and migrates): a wrong DATA_DIR or DATABASE_URL is
  // refused here instead of becoming a new, empty instance. `init` alone may create one.
  if (!invocation.createsDatabase) {
    let state;
    try {
      state = await findHangarDatabase(config.database);
    } catch (error) {
      await print(process.stderr, `hangar: ${error instanceof Error ? error.message : String(error)}`);
      return Exit.internal;
    }
    if (!state.found) {
      await print(process.stderr, `hangar: ${noDatabaseMessage(state)}`);
      return Exit.refused;
    }
  }
  // Adapters' warnings go to stderr; the CLI's own answers stay alone on stdout. One command, then
  // exit: SQLite checkpoints on the CLI's own connection (no worker thread started for them).
  const container = buildContainer(
    config,
    { clusterWorker: false, shortLived: true },
    createLogger({ ...config.log, level: config.log.level === 'debug' ? 'debug' : 'warn' }, undefined, 2),
  );
  const closers: { name: string; close: () => Promise<void> }[] = [];
  let status: number;
  try {
    const database = await container.getAsync(RootTokens.Database);
    closers.push({ name: 'database', close: () => database.close() });
    const mail = await container.getAsync(RootTokens.MailQueue);
    closers.unshift({ name: 'mail queue', close: () => mail.drain() });
    const blobs = await container.getAsync(Tokens.BlobStore);
    closers.push({ name: 'blob store', close: async () => blobs.close?.() });
    const hangar = await container.getAsync(Tokens.Hangar);
    const { files } = await container.getAsync(Tokens.Repositories);
    const databaseName = config.database.kind === 'sqlite' ? config.database.path : redactPostgresUrl(config.database.url);
    await print(process.stdout, await invocation.work(hangar, { env: process.env, blobs, files, progress: process.stderr, databaseName }));
    status = Exit.ok;
  } catch (error) {
    if (error instanceof ProblemsFound) {
      await print(process.stdout, error.report);
      status = Exit.refused;
    } else if (isDomainError(error) || error instanceof Refusal) {
      await print(process.stderr, `hangar: ${error.message}`);
      status = Exit.refused;
    } else {
      await print(process.stderr, `hangar: ${invocation.name} failed unexpectedly: ${describe(error)}`);
      status = Exit.internal;
    }
  }
  for (const { name, close } of closers) {
    try {
      await close();
    } catch (error) {
      await print(process.stderr, `hangar: closing the ${name} failed: ${describe(error)}`);
      status = Exit.internal;
    }
  }
  return status;
}

/** Runs work that opens what it needs itself (`db copy`): no configuration is read. @returns the exit status */
async function runStandalone(invocation: { name: string; run: () => Promise<string> }): Promise<number> {
  try {
    await print(process.stdout, await invocation.run());
    return Exit.ok;
  } catch (error) {
    if (error instanceof Refusal) {
      await print(process.stderr, `hangar: ${error.message}`);
      return Exit.refused;
    }
    // The message says what went wrong (a database that does not answer, a failed migration); a stack would not help.
    await print(process.stderr, `hangar: ${invocation.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    return Exit.internal;
  }
}

/** Writes `text` and a final newline, resolving once the stream has taken it (so exiting right after loses nothing). */
function print(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text.endsWith('\n') ? text : `${text}\n`, () => resolve()));
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  async (error: unknown) => {
    await print(process.stderr, `hangar: unexpected error: ${describe(error)}`);
    process.exit(Exit.internal);
  },
);
