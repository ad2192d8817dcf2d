import type { LogFields, Logger, LogLevel } from '../../core/shared/logger.js';
import { LOG_LEVELS } from '../../core/shared/logger.js';

/** One entry as {@link MemoryLogger} keeps it. */
export interface MemoryLogEntry {
  level: LogLevel;
  event: string;
  fields: LogFields;
}

/**
 * A {@link Logger} that keeps its entries in an array (tests, embedding hosts that forward them),
 * from `level` up (default `debug`: everything), at most the newest `limit` of them (default 10 000).
 * `onEntry` is told about each one as it is written.
 */
export class MemoryLogger implements Logger {
  readonly entries: MemoryLogEntry[] = [];
  private readonly min: number;

  constructor(private readonly options: { level?: LogLevel; limit?: number; onEntry?: (entry: MemoryLogEntry) => void } = {}) {
    this.min = LOG_LEVELS.indexOf(options.level ?? 'debug');
  }

  debug(event: string, fields?: LogFields): void {
    this.write('debug', event, fields);
  }
  info(event: string, fields?: LogFields): void {
    this.write('info', event, fields);
  }
  warn(event: string, fields?: LogFields): void {
    this.write('warn', event, fields);
  }
  error(event: string, fields?: LogFields): void {
    this.write('error', event, fields);
  }
  enabled(level: LogLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= this.min;
  }

  private write(level: LogLevel, event: string, fields: LogFields = {}): void {
    if (!this.enabled(level)) return;
    const entry = { level, event, fields: { ...fields } };
    this.entries.push(entry);
    const limit = this.options.limit ?? 10_000;
    if (this.entries.length > 2 * limit) this.entries.splice(0, this.entries.length - limit);
    this.options.onEntry?.(entry);
  }
}
