import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { MailMessage, Mailer } from '../../core/accounts/mailer.js';

/** Options of {@link FileOutboxMailer}. */
export interface FileOutboxMailerOptions {
  /** Where message files go; created (with parents) on first send. */
  directory: string;
  /** Source of `created_at`; default the system clock. */
  clock?: () => Date;
}

/** What one outbox file holds (snake_case, like the HTTP API). */
export interface OutboxFile {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** ISO 8601 UTC with milliseconds, e.g. `2026-01-01T00:00:00.000Z`. */
  created_at: string;
}

/**
 * A {@link Mailer} for development and self-hosting without SMTP: each message becomes one
 * pretty-printed JSON file ({@link OutboxFile}) in `directory`, named
 * `<created_at with ':' as '-'>-<sequence>-<random>.json`, so names sort by time (and by send order
 * within one process and millisecond) and never collide. The file is written under a hidden
 * temporary name and renamed, so a reader never sees half a message: read only `*.json` names not
 * starting with a dot.
 * @throws the file system's error when the file cannot be written
 */
export class FileOutboxMailer implements Mailer {
  private readonly directory: string;
  private readonly clock: () => Date;
  private ready: Promise<unknown> | undefined;
  private sequence = 0;

  constructor(options: FileOutboxMailerOptions) {
    this.directory = resolve(options.directory);
    this.clock = options.clock ?? (() => new Date());
  }

  async send(message: MailMessage): Promise<void> {
    const createdAt = this.clock().toISOString();
    this.sequence = (this.sequence + 1) % 1e8;
    const name = `${createdAt.replaceAll(':', '-')}-${String(this.sequence).padStart(8, '0')}-${randomBytes(6).toString('hex')}.json`;
    const file: OutboxFile = { to: message.to, subject: message.subject, text: message.text, html: message.html, created_at: createdAt };

    this.ready ??= mkdir(this.directory, { recursive: true }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    await this.ready;
    const temporary = join(this.directory, `.${name}.tmp`);
    try {
      await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { flag: 'wx' });
      await rename(temporary, join(this.directory, name));
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
  }
}
