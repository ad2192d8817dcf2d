import { createTransport } from 'nodemailer';
import type { MailMessage, Mailer } from '../../core/accounts/mailer.js';

/** Options of {@link SmtpMailer}. */
export interface SmtpMailerOptions {
  /** Connection URL, e.g. `smtp://user:pass@mail.example.com:587` (STARTTLS when offered) or `smtps://…:465` (TLS). */
  url: string;
  /** The From address of every message, e.g. `Hangar <no-reply@example.com>`. */
  from: string;
  /** Limit in ms on each of: connecting, the server's greeting, socket inactivity, DNS lookup. Default 10 000. */
  timeoutMs?: number;
}

/**
 * A {@link Mailer} that hands messages to an SMTP server (RFC 5321) with nodemailer, one connection
 * per message, as a multipart/alternative text + HTML message. A stalled server fails the send
 * after `timeoutMs` instead of hanging it.
 * @throws nodemailer's error (with `code`, `responseCode`) when the server refuses or cannot be reached
 */
export class SmtpMailer implements Mailer {
  private readonly transport: ReturnType<typeof createTransport>;

  constructor(options: SmtpMailerOptions) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.transport = createTransport(
      { url: options.url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs, dnsTimeout: timeoutMs },
      { from: options.from },
    );
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ to: message.to, subject: message.subject, text: message.text, html: message.html });
  }

  /** Releases the transport (open pooled connections, if any). */
  close(): void {
    this.transport.close();
  }
}
