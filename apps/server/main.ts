import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { startHangar } from './start.js';

// Entry point of `npm start`: the only reader of process.env.
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`hangar: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const running = await startHangar(config);
  process.stdout.write(`hangar: API on ${running.apiAddress} (public ${config.publicApiUrl}), content on ${running.contentAddress} (public ${config.publicContentUrl})\n`);
  process.stdout.write(`hangar: database ${config.database.kind}, blobs ${config.blobs.kind}, mail ${config.mail.kind}${config.mail.kind === 'file' ? ` (${config.mail.directory})` : ''}\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`hangar: ${signal} received, finishing requests in flight\n`);
    running.close().then(
      () => {
        process.stdout.write('hangar: stopped\n');
        process.exit(0);
      },
      (error) => {
        process.stderr.write(`hangar: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`hangar: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
