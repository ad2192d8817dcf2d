import pino from 'pino';
import type { Logger } from '../../core/shared/logger.js';
import { PinoLogger } from '../../adapters/logging/pino-logger.js';
import type { Config } from './config.js';

/**
 * The process's logger for `LOG_LEVEL` and `LOG_FORMAT` (`auto`: pretty when the output is a
 * terminal, JSON lines otherwise), on stdout (`fd` 1) unless `fd` says otherwise (the admin CLI
 * logs on stderr, 2, keeping stdout for its answers). `base` fields go on every line (a worker's
 * `worker` index).
 */
export function createLogger(log: Config['log'], base?: Record<string, unknown>, fd: 1 | 2 = 1): Logger {
  const tty = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
  const format = log.format === 'auto' ? (tty ? 'pretty' : 'json') : log.format;
  return new PinoLogger({ level: log.level, format, base, ...(fd === 2 ? { destination: pino.destination({ dest: 2, sync: true }) } : {}) });
}
