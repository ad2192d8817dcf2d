import pino, { type DestinationStream } from 'pino';
import type { LogFields, Logger, LogLevel } from '../../core/shared/logger.js';
import { GatheredOutput } from './gathered-output.js';

/** How entries are written: one JSON object per line, or one readable line for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/** Options of {@link PinoLogger}. */
export interface PinoLoggerOptions {
  /** Lowest level written (`LOG_LEVEL`); default `info`. */
  level?: LogLevel;
  /** `LOG_FORMAT`; default `json`. */
  format?: LogFormat;
  /** Where lines go; default this process's stdout, lines gathered into few writes and flushed at exit (see {@link PinoLogger}). */
  destination?: { write(line: string): unknown };
  /** Fields on every line, e.g. `{ worker: 1 }`. The process id is always there (`pid`). */
  base?: LogFields;
}

/**
 * Field names whose values never reach the log, at the top level or one object down: a caller
 * should not pass them at all (entries carry ids and kinds, not credentials), this is the net under it.
 */
const SECRET_FIELDS = [
  'password',
  'new_password',
  'token',
  'access_token',
  'refresh_token',
  'authorization',
  'cookie',
  'x-api-key',
  'api_key',
  'key',
  'secret',
  'sig',
  'signature',
];
const TOP_LEVEL_PATHS = SECRET_FIELDS.map((name) => `["${name}"]`);
const REDACT_PATHS = [...TOP_LEVEL_PATHS, ...SECRET_FIELDS.map((name) => `*["${name}"]`)];

/**
 * The {@link Logger} port over pino (https://getpino.io): one JSON line per entry with `time` (ISO
 * 8601, UTC), `level` (`debug`…`error`), `pid`, `event` and the entry's fields; with the `pretty`
 * format, one line `HH:MM:SS.mmm LEVEL event key=value…` instead (a small formatter of our own:
 * pino-pretty would be a runtime dependency for a convenience). Values of {@link SECRET_FIELDS}
 * are replaced by `[redacted]`. An `error` field holding an Error is written as
 * `{ type, message, code? }`, with its `stack` only at level `error`.
 *
 * Redacting one object down takes pino's wildcard paths, which cost ~15 µs an entry (more than the
 * rest of the entry): an entry whose fields are all primitives (the access log's) goes through a
 * second pino instance that redacts the top level alone, the same lines for a fraction of the CPU.
 *
 * Default destination: this process's stdout through a {@link GatheredOutput}, which gathers up to
 * 64 KiB of lines and writes them once that much has gathered or 100 ms after the first line since
 * the last burst, synchronously, in writes of at most PIPE_BUF bytes that end at a line end, so that the lines of the workers of one `npm start`, which
 * share one stdout, never interleave inside a line. A reader of stdout that falls behind slows the
 * process down instead of letting lines pile up in its memory (asynchronous writes, one in flight at
 * a time, fell behind a busy event loop and grew without bound: decision 0012, docs/decisions/).
 * What is gathered is written when the process exits (normally, on a signal the
 * server handles, or after an uncaught exception); a process killed outright (SIGKILL, out of
 * memory) can lose up to its last 100 ms of lines.
 */
export class PinoLogger implements Logger {
  /** Entries with an object-valued field: secrets redacted at the top level and one object down. */
  private readonly pino: pino.Logger;
  /** Entries whose fields are all primitives: secrets redacted at the top level, all there is. */
  private readonly flat: pino.Logger;

  constructor(options: PinoLoggerOptions = {}) {
    const destination = options.destination ?? stdout();
    const stream: DestinationStream = options.format === 'pretty' ? { write: (line: string) => destination.write(prettyLine(line)) } : destination;
    const settings = (paths: string[]): pino.LoggerOptions => ({
      level: options.level ?? 'info',
      base: { pid: process.pid, ...options.base },
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths, censor: '[redacted]' },
    });
    this.pino = pino(settings(REDACT_PATHS), stream);
    this.flat = pino(settings(TOP_LEVEL_PATHS), stream);
  }

  debug(event: string, fields?: LogFields): void {
    if (this.pino.isLevelEnabled('debug')) this.write('debug', entry('debug', event, fields));
  }
  info(event: string, fields?: LogFields): void {
    if (this.pino.isLevelEnabled('info')) this.write('info', entry('info', event, fields));
  }
  warn(event: string, fields?: LogFields): void {
    if (this.pino.isLevelEnabled('warn')) this.write('warn', entry('warn', event, fields));
  }
  error(event: string, fields?: LogFields): void {
    if (this.pino.isLevelEnabled('error')) this.write('error', entry('error', event, fields));
  }
  enabled(level: LogLevel): boolean {
    return this.pino.isLevelEnabled(level);
  }

  private write(level: LogLevel, fields: LogFields): void {
    (hasObjectField(fields) ? this.pino : this.flat)[level](fields);
  }
}

/** The millisecond {@link isoTime} last formatted, and its field. */
let stampedMs = Number.NaN;
let stamp = '';

/**
 * The `time` field of a line, as pino's `stdTimeFunctions.isoTime` writes it (`,"time":"<ISO 8601,
 * UTC, ms>"`), formatted once per millisecond: under load many lines share one, and formatting a
 * Date per line was a visible share of a small read's CPU (decision 0012).
 */
function isoTime(): string {
  const now = Date.now();
  if (now !== stampedMs) {
    stampedMs = now;
    stamp = `,"time":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

/** The stdout destination of every {@link PinoLogger} of this process (see the class), made on first use. */
let stdoutDestination: GatheredOutput | undefined;

function stdout(): GatheredOutput {
  if (!stdoutDestination) {
    const destination = new GatheredOutput({ fd: 1 });
    process.once('exit', destination.flushSync);
    stdoutDestination = destination;
  }
  return stdoutDestination;
}

/** Whether any of `fields` holds an object (which a secret could sit one level down in). */
function hasObjectField(fields: LogFields): boolean {
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === 'object' && value !== null) return true;
  }
  return false;
}

function entry(level: LogLevel, event: string, fields: LogFields | undefined): LogFields {
  if (fields === undefined) return { event };
  const error = fields.error;
  if (error instanceof Error) return { event, ...fields, error: errorFields(error, level === 'error') };
  return { event, ...fields };
}

function errorFields(error: Error, withStack: boolean): LogFields {
  const code = (error as NodeJS.ErrnoException).code;
  return { type: error.name, message: error.message, ...(code === undefined ? {} : { code }), ...(withStack && error.stack ? { stack: error.stack } : {}) };
}

const LEVEL_LABELS: Record<string, string> = { debug: 'DEBUG', info: 'INFO ', warn: 'WARN ', error: 'ERROR' };
/** Fields the pretty line shows in its own place, or not at all. */
const SHOWN_APART = new Set(['time', 'level', 'pid', 'event', 'msg']);

/**
 * One JSON line as a person reads it: `13:05:09.412 INFO  request msg key=value…`, then the stack
 * of an error on the lines below. Anything that is not a JSON object passes through unchanged.
 */
export function prettyLine(line: string): string {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof value.time === 'string' ? value.time.slice(11, 23) : '';
  const parts = [time, LEVEL_LABELS[String(value.level)] ?? String(value.level), (value.event as string | undefined) ?? ''];
  if (typeof value.msg === 'string') parts.push(value.msg);
  let stack = '';
  for (const [key, field] of Object.entries(value)) {
    if (SHOWN_APART.has(key)) continue;
    if (key === 'error' && typeof field === 'object' && field !== null && 'stack' in field) {
      const { stack: trace, ...rest } = field;
      stack = `\n${String(trace)}`;
      parts.push(`error=${JSON.stringify(rest)}`);
      continue;
    }
    parts.push(`${key}=${typeof field === 'string' && !/[\s"=]/.test(field) ? field : JSON.stringify(field)}`);
  }
  return `${parts.join(' ')}${stack}\n`;
}
