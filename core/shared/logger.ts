/** Severity of a log entry, lowest first (the names pino and syslog use). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The levels in order, lowest first. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * Fields of one entry: plain JSON values, snake_case names. An `error` field may hold an Error
 * (adapters render its message, and its stack at level `error`).
 */
export type LogFields = Record<string, unknown>;

/**
 * Port: where the service writes what it does, one structured entry per call. `event` is a stable
 * snake_case name (`request`, `mail_failed`, `request_aborted`), the key operators filter on;
 * `fields` carry the details. Entries never hold a password, token, API key or URL signature:
 * callers pass ids and kinds, never credentials (adapters redact the usual names again, as a net).
 * Calls never throw and never wait for the write.
 */
export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
  /** True when entries of `level` are written at all (skip building costly fields otherwise). */
  enabled(level: LogLevel): boolean;
}

/** A {@link Logger} that writes nothing (embedding hosts that log elsewhere, tests that do not look). */
export const SILENT_LOGGER: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  enabled: () => false,
};
